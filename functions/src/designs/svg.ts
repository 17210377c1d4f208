// The designed code's layout (module shapes, eye rings, logo box, placement) and its SVG document. The PNG's
// pixels are drawn from the same layout (raster.ts), so both files show the same thing (the SVG keeps the
// logo, embedded as its re-encoded PNG). Coordinates are in modules; finder eyes are drawn apart from the
// data modules so they can be styled.
import { FRAME_SIDE, frameSpec, type FrameName } from "../qr/frames";
import type { QrMatrix } from "../qr/png";
import { modulePath } from "../qr/svg";
import type { DesignStyle } from "../store/designRecord";
import type { EYE_STYLES, MODULE_STYLES } from "../core/constants";

export type ModuleStyle = (typeof MODULE_STYLES)[number];
export type EyeStyle = (typeof EYE_STYLES)[number];

/** The design's drawn fields, as stored (store/designRecord.ts). */
export type { DesignStyle };

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
const alignment = (): AlignmentPatternModule => require("qrcode/lib/core/alignment-pattern") as AlignmentPatternModule;

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

/** Corner bits of a drawn data module (a corner is rounded with radius half a module, about the module's centre). */
export const TL = 1;
export const TR = 2;
export const BR = 4;
export const BL = 8;

/** A drawn data module, in symbol coordinates, and which of its corners are rounded. */
export interface ModuleShape {
  r: number;
  c: number;
  rounded: number;
}

/**
 * The data modules a style draws (finder eyes and the logo's square left out) and their shapes: the one
 * description both the SVG (paths) and the PNG (designs/raster.ts) are drawn from.
 */
export function moduleShapes(matrix: QrMatrix, style: ModuleStyle, cleared: (r: number, c: number) => boolean): ModuleShape[] {
  const { size, data } = matrix;
  const on = (r: number, c: number) => r >= 0 && c >= 0 && r < size && c < size && data[r * size + c] === 1 && !isEye(size, r, c) && !cleared(r, c);
  // Dots keep the alignment patterns as squares: decoders locate them by their run lengths.
  const aligned = style === "dots" ? alignmentMask(size) : undefined;
  const shapes: ModuleShape[] = [];
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (!on(r, c)) continue;
      let rounded = 0;
      if (style === "dots" && !aligned?.[r * size + c]) {
        // Dots fill their module's width (radius 0.5): smaller dots made decoders miss most codes.
        rounded = TL | TR | BR | BL;
      } else if (style === "rounded") {
        // A corner is rounded only where neither neighbour on that corner's sides is dark: runs stay solid.
        const up = on(r - 1, c);
        const down = on(r + 1, c);
        const left = on(r, c - 1);
        const right = on(r, c + 1);
        rounded = (!up && !left ? TL : 0) | (!up && !right ? TR : 0) | (!down && !right ? BR : 0) | (!down && !left ? BL : 0);
      }
      shapes.push({ r, c, rounded });
    }
  }
  return shapes;
}

function dataModules(matrix: QrMatrix, style: ModuleStyle, shapes: ModuleShape[]): string {
  if (style === "square") {
    const masked = new Uint8Array(matrix.size * matrix.size);
    for (const { r, c } of shapes) masked[r * matrix.size + c] = 1;
    return modulePath({ size: matrix.size, data: masked });
  }
  return shapes
    .map(({ r, c, rounded }) => {
      if (style === "dots") return rounded ? `M${c} ${r + 0.5}a0.5 0.5 0 1 0 1 0a0.5 0.5 0 1 0 -1 0z` : `M${c} ${r}h1v1h-1z`;
      return roundedModule(c, r, [!!(rounded & TL), !!(rounded & TR), !!(rounded & BR), !!(rounded & BL)]);
    })
    .join("");
}

/** Top left modules of the three finder eyes (7 x 7 each). */
export function eyeOrigins(size: number): Array<[number, number]> {
  return [
    [0, 0],
    [size - 7, 0],
    [0, size - 7],
  ];
}

/** A finder eye's three rings (outer dark, middle light, inner dark): half their side, and corner radius when rounded. */
export const EYE_RINGS = [
  { half: 3.5, rounding: 2 },
  { half: 2.5, rounding: 1.5 },
  { half: 1.5, rounding: 1 },
] as const;

/** A finder eye's three rings (7, 5 and 3 modules): dark, light, dark. */
function eyeRings(x: number, y: number, style: EyeStyle): [string, string, string] {
  const cx = x + 3.5;
  const cy = y + 3.5;
  return EYE_RINGS.map(({ half: h, rounding }) => {
    if (style === "circle") return `M${cx - h} ${cy}a${h} ${h} 0 1 0 ${2 * h} 0a${h} ${h} 0 1 0 -${2 * h} 0z`;
    const [x0, y0, s, rad] = [cx - h, cy - h, 2 * h, style === "rounded" ? rounding : 0];
    return rad === 0
      ? `M${x0} ${y0}h${s}v${s}h-${s}z`
      : `M${x0 + rad} ${y0}h${s - 2 * rad}a${rad} ${rad} 0 0 1 ${rad} ${rad}v${s - 2 * rad}a${rad} ${rad} 0 0 1 -${rad} ${rad}h-${s - 2 * rad}a${rad} ${rad} 0 0 1 -${rad} -${rad}v-${s - 2 * rad}a${rad} ${rad} 0 0 1 ${rad} -${rad}z`;
  }) as [string, string, string];
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
  /** The same modules as shapes (what the PNG is drawn from). */
  shapes: ModuleShape[];
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
  const eyes = eyeOrigins(size).map(([x, y]) => eyeRings(x, y, style.eyeStyle));
  const shapes = moduleShapes(matrix, style.moduleStyle, cleared);
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
    modules: dataModules(matrix, style.moduleStyle, shapes),
    shapes,
    eyeLayers: [0, 1, 2].map((layer) => eyes.map((e) => e[layer]).join("")) as [string, string, string],
    logo: placed,
  };
}

/** The code with its quiet zone, in module units: a (size + 2 * quietZone)-unit square at the origin. */
function codeBody(layout: DesignLayout, style: DesignStyle, logo: LogoImage | null): string {
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

/** Where the code square (with its quiet zone) goes in the 1024-unit drawing: its top left, and units per module. */
export function codePlacement(total: number, frame: FrameName | null): { left: number; top: number; scale: number } {
  if (!frame) return { left: 0, top: 0, scale: n(FRAME_SIDE / total) };
  const { box } = frameSpec(frame);
  return { left: box.left, top: box.top, scale: n(box.side / total) };
}

/** The designed code as a complete SVG document, framed when `frame` is given. */
export function designedSvg(matrix: QrMatrix, style: DesignStyle, logo: LogoImage | null, frame: FrameName | null, layout = designLayout(matrix, style, logo)): string {
  const total = matrix.size + 2 * style.quietZone;
  const code = codeBody(layout, style, logo);
  const { left, top, scale } = codePlacement(total, frame);
  let body: string;
  if (frame) {
    body =
      frameSpec(frame).svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "") +
      `<g transform="translate(${left} ${top}) scale(${scale})">${code}</g>`;
  } else {
    body = `<g transform="scale(${scale})">${code}</g>`;
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${DESIGNED_SIDE}" height="${DESIGNED_SIDE}" viewBox="0 0 ${FRAME_SIDE} ${FRAME_SIDE}">` +
    body +
    `</svg>\n`
  );
}
