// The designed code as one SVG document: the single drawing from which the PNG is rasterised, so the
// PNG and the SVG files show the same thing (the SVG keeps the logo, embedded as its re-encoded PNG).
// Coordinates are in modules; finder eyes are drawn apart from the data modules so they can be styled.
import { FRAME_SIDE, frameSpec, type FrameName } from "../qr/frames";
import type { QrMatrix } from "../qr/png";
import { modulePath } from "../qr/svg";
import type { EYE_STYLES, MODULE_STYLES } from "../codes/fields";

export type ModuleStyle = (typeof MODULE_STYLES)[number];
export type EyeStyle = (typeof EYE_STYLES)[number];

export interface DesignStyle {
  foreground: string;
  background: string;
  moduleStyle: ModuleStyle;
  eyeStyle: EyeStyle;
  quietZone: number;
}

export interface LogoImage {
  png: Buffer;
  width: number;
  height: number;
}

/** Pixel side of designed images (PNG) and of the SVG's nominal size. */
export const DESIGNED_SIDE = 1024;
/** Share of the symbol's side the logo area (cleared modules) takes: about 6% of the area, well inside H's 30%. */
export const LOGO_SIDE_RATIO = 0.24;

const n = (v: number) => +v.toFixed(3);

function isEye(size: number, r: number, c: number): boolean {
  return (r < 7 && c < 7) || (r < 7 && c >= size - 7) || (r >= size - 7 && c < 7);
}

interface AlignmentPatternModule {
  getPositions(version: number): Array<[number, number]>;
}
const alignment = (): AlignmentPatternModule => require("qrcode/lib/core/alignment-pattern") as AlignmentPatternModule; // eslint-disable-line @typescript-eslint/no-require-imports

/** Which modules belong to an alignment pattern (5x5 around each centre qrcode places). */
function alignmentMask(size: number): Uint8Array {
  const mask = new Uint8Array(size * size);
  for (const [row, col] of alignment().getPositions((size - 17) / 4)) {
    for (let r = row - 2; r <= row + 2; r++) for (let c = col - 2; c <= col + 2; c++) mask[r * size + c] = 1;
  }
  return mask;
}

/** Modules cleared for the logo: an odd square (same parity as the symbol) centred on the symbol. */
export function logoArea(size: number): { start: number; side: number } {
  let side = Math.floor(size * LOGO_SIDE_RATIO);
  if (side % 2 !== size % 2) side -= 1;
  return { start: (size - side) / 2, side };
}

function roundedModule(x: number, y: number, corners: [boolean, boolean, boolean, boolean]): string {
  const r = 0.5;
  const [tl, tr, br, bl] = corners.map((round) => (round ? r : 0));
  return (
    `M${x + tl} ${y}h${n(1 - tl - tr)}` +
    (tr ? `a${r} ${r} 0 0 1 ${r} ${r}` : "") +
    `v${n(1 - tr - br)}` +
    (br ? `a${r} ${r} 0 0 1 -${r} ${r}` : "") +
    `h-${n(1 - br - bl)}` +
    (bl ? `a${r} ${r} 0 0 1 -${r} -${r}` : "") +
    `v-${n(1 - bl - tl)}` +
    (tl ? `a${r} ${r} 0 0 1 ${r} -${r}` : "") +
    "z"
  );
}

function dataModules(matrix: QrMatrix, style: ModuleStyle, cleared: (r: number, c: number) => boolean): string {
  const { size, data } = matrix;
  const on = (r: number, c: number) => r >= 0 && c >= 0 && r < size && c < size && data[r * size + c] === 1 && !isEye(size, r, c) && !cleared(r, c);
  if (style === "square") {
    const masked = new Uint8Array(size * size);
    for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) masked[r * size + c] = on(r, c) ? 1 : 0;
    return modulePath({ size, data: masked });
  }
  const parts: string[] = [];
  // Dots keep the alignment patterns as squares: decoders locate them by their run lengths.
  const aligned = style === "dots" ? alignmentMask(size) : undefined;
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (!on(r, c)) continue;
      if (aligned?.[r * size + c]) {
        parts.push(`M${c} ${r}h1v1h-1z`);
      } else if (style === "dots") {
        // Dots fill their module's width (radius 0.5): smaller dots made jsQR miss most codes.
        parts.push(`M${c} ${r + 0.5}a0.5 0.5 0 1 0 1 0a0.5 0.5 0 1 0 -1 0z`);
      } else {
        // A corner is rounded only where neither neighbour on that corner's sides is dark: runs stay solid.
        const up = on(r - 1, c);
        const down = on(r + 1, c);
        const left = on(r, c - 1);
        const right = on(r, c + 1);
        parts.push(roundedModule(c, r, [!up && !left, !up && !right, !down && !right, !down && !left]));
      }
    }
  }
  return parts.join("");
}

/** A finder eye's three rings (7, 5 and 3 modules): dark, light, dark. */
function eyeRings(x: number, y: number, style: EyeStyle): [string, string, string] {
  if (style === "circle") {
    const cx = x + 3.5;
    const cy = y + 3.5;
    const ring = (r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 -${2 * r} 0z`;
    return [ring(3.5), ring(2.5), ring(1.5)];
  }
  const rect = (x0: number, y0: number, s: number, rad: number) =>
    rad === 0
      ? `M${x0} ${y0}h${s}v${s}h-${s}z`
      : `M${x0 + rad} ${y0}h${s - 2 * rad}a${rad} ${rad} 0 0 1 ${rad} ${rad}v${s - 2 * rad}a${rad} ${rad} 0 0 1 -${rad} ${rad}h-${s - 2 * rad}a${rad} ${rad} 0 0 1 -${rad} -${rad}v-${s - 2 * rad}a${rad} ${rad} 0 0 1 ${rad} -${rad}z`;
  const rounded = style === "rounded";
  return [rect(x, y, 7, rounded ? 2 : 0), rect(x + 1, y + 1, 5, rounded ? 1.5 : 0), rect(x + 2, y + 2, 3, rounded ? 1 : 0)];
}

/**
 * The drawing of a designed code in module units, apart from any file format: the SVG writes it as one
 * document and the PDF paints the same paths (images/pdf.ts), so the two cannot differ.
 */
export interface DesignLayout {
  /** Side of the code with its quiet zone, in modules. */
  total: number;
  /** Top left of the symbol inside that square (the quiet zone). */
  origin: number;
  /** Data modules, relative to the symbol's top left. */
  modules: string;
  /** The three finder eyes' rings by layer: outer (dark), middle (light), inner (dark), relative to the symbol. */
  eyeLayers: [string, string, string];
  /** Where the logo goes, in the same units as `total`. */
  logo: { x: number; y: number; width: number; height: number } | null;
}

export function designLayout(matrix: QrMatrix, style: DesignStyle, logo: Pick<LogoImage, "width" | "height"> | null): DesignLayout {
  const { size } = matrix;
  const q = style.quietZone;
  const area = logo ? logoArea(size) : null;
  const cleared = area ? (r: number, c: number) => r >= area.start && r < area.start + area.side && c >= area.start && c < area.start + area.side : () => false;
  const eyes = [eyeRings(0, 0, style.eyeStyle), eyeRings(size - 7, 0, style.eyeStyle), eyeRings(0, size - 7, style.eyeStyle)];
  let placed: DesignLayout["logo"] = null;
  if (logo && area) {
    // Fit the logo inside the cleared square, half a module in from its edge, keeping its aspect ratio.
    const box = area.side - 1;
    const scale = Math.min(box / logo.width, box / logo.height);
    const width = logo.width * scale;
    const height = logo.height * scale;
    placed = { x: q + area.start + (area.side - width) / 2, y: q + area.start + (area.side - height) / 2, width, height };
  }
  return {
    total: size + 2 * q,
    origin: q,
    modules: dataModules(matrix, style.moduleStyle, cleared),
    eyeLayers: [0, 1, 2].map((layer) => eyes.map((e) => e[layer]).join("")) as [string, string, string],
    logo: placed,
  };
}

/** The code with its quiet zone, in module units: a (size + 2 * quietZone)-unit square at the origin. */
function codeBody(matrix: QrMatrix, style: DesignStyle, logo: LogoImage | null): string {
  const layout = designLayout(matrix, style, logo);
  let body =
    `<rect width="${layout.total}" height="${layout.total}" fill="${style.background}"/>` +
    `<g transform="translate(${layout.origin} ${layout.origin})" fill="${style.foreground}">` +
    `<path d="${layout.modules}"/>` +
    `<path fill-rule="evenodd" d="${layout.eyeLayers.join("")}"/>` +
    `</g>`;
  if (logo && layout.logo) {
    const { x, y, width, height } = layout.logo;
    body += `<image x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" preserveAspectRatio="xMidYMid meet" href="data:image/png;base64,${logo.png.toString("base64")}"/>`;
  }
  return body;
}

/** The designed code as a complete SVG document, framed when `frame` is given. */
export function designedSvg(matrix: QrMatrix, style: DesignStyle, logo: LogoImage | null, frame: FrameName | null): string {
  const total = matrix.size + 2 * style.quietZone;
  const code = codeBody(matrix, style, logo);
  let body: string;
  if (frame) {
    const spec = frameSpec(frame);
    const scale = spec.box.side / total;
    body =
      spec.svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "") +
      `<g transform="translate(${spec.box.left} ${spec.box.top}) scale(${n(scale)})">${code}</g>`;
  } else {
    body = `<g transform="scale(${n(FRAME_SIDE / total)})">${code}</g>`;
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${DESIGNED_SIDE}" height="${DESIGNED_SIDE}" viewBox="0 0 ${FRAME_SIDE} ${FRAME_SIDE}">` +
    body +
    `</svg>\n`
  );
}
