// The designed PNG's pixels, drawn straight from the layout the SVG is written from (svg.ts: the same
// module shapes, eye rings, logo box and placement), so no SVG is rasterised per code: librsvg took
// ~30-40 ms a 1024 px code. Edges are anti-aliased by area: straight edges exactly (the pixel's overlap
// with the module), curves by their distance to the pixel's centre. A unit test compares this raster
// with librsvg's rendering of the SVG, and the SVG's own rendering is decoded too (design.ts).
import { frameSpec, type FrameName } from "../qr/frames";
import type { QrMatrix } from "../qr/png";
import { BL, BR, codePlacement, DESIGNED_SIDE, designLayout, EYE_RINGS, eyeOrigins, TL, TR, type DesignStyle, type LogoImage } from "./svg";
import { borrowPixels } from "./pixelBuffers";
import { sharp, type Raster } from "./verify";

const rgbOf = (hex: string): [number, number, number] => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/** Length of [a, a + 1) inside [lo, hi). */
const overlap = (a: number, lo: number, hi: number) => Math.max(0, Math.min(a + 1, hi) - Math.max(a, lo));
const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

/** Frames drawn once per instance in full colour, RGBA (the designed PNG keeps the frame's exact shades). */
const frames = new Map<FrameName, Promise<Buffer>>();

function frameCanvas(name: FrameName): Promise<Buffer> {
  let canvas = frames.get(name);
  if (!canvas) {
    canvas = sharp()(Buffer.from(frameSpec(name).svg)).flatten({ background: "#ffffff" }).ensureAlpha().raw().toBuffer();
    canvas.catch(() => frames.delete(name));
    frames.set(name, canvas);
  }
  return canvas;
}

/** Pixels wholly inside the code square: each coverage quantised to 1/255 picks its colour from the table. */
function fillShades(words: Uint32Array, cov: Float32Array, shade: Uint32Array, at: number, from: number, count: number): void {
  for (let n = 0; n < count; n++) {
    const f = cov[from + n];
    words[at + n] = shade[f >= 1 ? 255 : (f * 255 + 0.5) | 0];
  }
}

/** A logo's RGBA pixels at a drawn size, per logo (its cached image) and size. */
const logos = new WeakMap<Buffer, Map<string, Promise<Buffer>>>();

function logoPixels(logo: LogoImage, width: number, height: number): Promise<Buffer> {
  let sizes = logos.get(logo.png);
  if (!sizes) logos.set(logo.png, (sizes = new Map()));
  const key = `${width}x${height}`;
  let pixels = sizes.get(key);
  if (!pixels) {
    pixels = sharp()(logo.png).resize(width, height, { fit: "fill" }).ensureAlpha().raw().toBuffer();
    pixels.catch(() => sizes.delete(key));
    sizes.set(key, pixels);
  }
  return pixels;
}

/**
 * One coverage buffer per instance, zeroed per use: it is only touched synchronously (no await between
 * zeroing and the last read), so concurrent requests cannot share it, and a 4 MB array is not allocated
 * (and collected) per code.
 */
let coverage = new Float32Array(0);

function coverageScratch(length: number): Float32Array {
  if (coverage.length < length) coverage = new Float32Array(length);
  const view = coverage.subarray(0, length);
  view.fill(0);
  return view;
}

/**
 * The designed code as DESIGNED_SIDE-pixel RGBA (opaque; RGBA so a pixel is written as one word), framed
 * when `frame` is given, in a borrowed buffer: give it back with returnPixels once nothing reads it.
 */
export async function drawRaster(matrix: QrMatrix, style: DesignStyle, logo: LogoImage | null, frame: FrameName | null, layout = designLayout(matrix, style, logo)): Promise<Raster> {
  const side = DESIGNED_SIDE;
  const { left, top, scale: k } = codePlacement(layout.total, frame);
  const placed = logo && layout.logo ? { x: Math.round(left + layout.logo.x * k), y: Math.round(top + layout.logo.y * k), w: Math.max(1, Math.round(layout.logo.width * k)), h: Math.max(1, Math.round(layout.logo.height * k)) } : null;
  const [canvas, logoRgba] = await Promise.all([frame ? frameCanvas(frame) : null, logo && placed ? logoPixels(logo, placed.w, placed.h) : null]);

  // The code square (quiet zone included) in pixels, and the dark coverage of each of its pixels.
  const right = left + layout.total * k;
  const bottom = top + layout.total * k;
  const px0 = Math.floor(left);
  const py0 = Math.floor(top);
  const w = Math.min(side, Math.ceil(right)) - px0;
  const h = Math.min(side, Math.ceil(bottom)) - py0;
  const cov = coverageScratch(w * h);
  // Without a frame the code square is (nearly) the whole image: only what it leaves uncovered starts white.
  const covers = !canvas && px0 === 0 && py0 === 0 && w === side && h === side;
  // Borrowed (pixelBuffers.ts): whoever draws gives it back once nothing reads it.
  const rgb = borrowPixels(side * side * 4);
  if (canvas) canvas.copy(rgb);
  else if (!covers) rgb.fill(255);
  const words = new Uint32Array(rgb.buffer, rgb.byteOffset, rgb.length / 4);
  const ox = left + layout.origin * k;
  const oy = top + layout.origin * k;

  // Data modules: four quadrants each, square or a quarter of the disc about the module's centre.
  const [tl, tr, brc, bl] = [TL, TR, BR, BL]; // locals: imported bindings are getters in some module loaders
  const half = k / 2;
  const inside2 = Math.max(0, half - 0.5) ** 2;
  const outside2 = (half + 0.5) ** 2;
  for (const { r, c, rounded } of layout.shapes) {
    const cx = ox + c * k;
    const cy = oy + r * k;
    const mx = cx + half;
    const my = cy + half;
    const xa = Math.floor(cx);
    const xb = Math.min(px0 + w, Math.ceil(cx + k));
    const yb = Math.min(py0 + h, Math.ceil(cy + k));
    for (let y = Math.floor(cy); y < yb; y++) {
      const t = overlap(y, cy, my);
      const b = overlap(y, my, cy + k);
      const dy = y + 0.5 - my;
      const row = (y - py0) * w - px0;
      for (let x = xa; x < xb; x++) {
        const l = overlap(x, cx, mx);
        const rr = overlap(x, mx, cx + k);
        if (!rounded) {
          cov[row + x] += (l + rr) * (t + b);
          continue;
        }
        const dx = x + 0.5 - mx;
        const d2 = dx * dx + dy * dy;
        // Only pixels within half a pixel of the arc need its distance.
        const disc = d2 <= inside2 ? 1 : d2 >= outside2 ? 0 : clamp01(0.5 - (Math.sqrt(d2) - half));
        cov[row + x] += l * t * (rounded & tl ? disc : 1) + rr * t * (rounded & tr ? disc : 1) + rr * b * (rounded & brc ? disc : 1) + l * b * (rounded & bl ? disc : 1);
      }
    }
  }

  // Finder eyes: outer ring dark, middle light, inner dark, by signed distance (module units) to each ring.
  const circle = style.eyeStyle === "circle";
  const [outer, middle, inner] = EYE_RINGS.map(({ half: hs, rounding }) => ({ hs, rad: style.eyeStyle === "rounded" ? rounding : 0 }));
  const ringCoverage = (u: number, v: number, ring: { hs: number; rad: number }) => {
    let d: number;
    if (circle) d = Math.sqrt(u * u + v * v) - ring.hs;
    else {
      const qx = Math.abs(u) - ring.hs + ring.rad;
      const qy = Math.abs(v) - ring.hs + ring.rad;
      const ax = qx > 0 ? qx : 0;
      const ay = qy > 0 ? qy : 0;
      d = Math.sqrt(ax * ax + ay * ay) + Math.min(Math.max(qx, qy), 0) - ring.rad;
    }
    return clamp01(0.5 - d * k);
  };
  for (const [ex, ey] of eyeOrigins(matrix.size)) {
    const ecx = ox + (ex + 3.5) * k;
    const ecy = oy + (ey + 3.5) * k;
    const reach = 3.5 * k + 1;
    const xa = Math.max(px0, Math.floor(ecx - reach));
    const xb = Math.min(px0 + w, Math.ceil(ecx + reach));
    for (let y = Math.max(py0, Math.floor(ecy - reach)); y < Math.min(py0 + h, Math.ceil(ecy + reach)); y++) {
      const v = (y + 0.5 - ecy) / k;
      const row = (y - py0) * w - px0;
      for (let x = xa; x < xb; x++) {
        const u = (x + 0.5 - ecx) / k;
        cov[row + x] += Math.max(0, ringCoverage(u, v, outer) - ringCoverage(u, v, middle)) + ringCoverage(u, v, inner);
      }
    }
  }

  // Background square, then the dark colour by coverage, over the white or framed canvas. Inside the
  // square a coverage quantised to 1/255 picks its colour from a table; its anti-aliased edge is blended.
  const [fr, fg, fb] = rgbOf(style.foreground);
  const [br, bg, bb] = rgbOf(style.background);
  const shadeBytes = Buffer.alloc(256 * 4, 255);
  for (let i = 0; i < 256; i++) [fr, fg, fb].forEach((f, ch) => (shadeBytes[i * 4 + ch] = Math.round([br, bg, bb][ch] + ((f - [br, bg, bb][ch]) * i) / 255)));
  const shade = new Uint32Array(shadeBytes.buffer, shadeBytes.byteOffset, 256);
  const colX = Float32Array.from({ length: w }, (_, i) => overlap(px0 + i, left, right));
  const wholeFrom = colX.indexOf(1);
  const wholeTo = colX.lastIndexOf(1) + 1;
  const blend = (j: number, i: number, a: number) => {
    const o = ((py0 + j) * side + px0 + i) * 4;
    const fc = Math.min(1, cov[j * w + i]);
    const ur = covers ? 255 : rgb[o];
    const ug = covers ? 255 : rgb[o + 1];
    const ub = covers ? 255 : rgb[o + 2];
    const r0 = ur + (br - ur) * a;
    const g0 = ug + (bg - ug) * a;
    const b0 = ub + (bb - ub) * a;
    rgb[o] = Math.round(r0 + (fr - r0) * fc);
    rgb[o + 1] = Math.round(g0 + (fg - g0) * fc);
    rgb[o + 2] = Math.round(b0 + (fb - b0) * fc);
  };
  for (let j = 0; j < h; j++) {
    const rowB = overlap(py0 + j, top, bottom);
    const whole = rowB === 1 && wholeFrom >= 0;
    const from = whole ? wholeFrom : w;
    const to = whole ? wholeTo : w;
    for (let i = 0; i < from; i++) blend(j, i, rowB * colX[i]);
    fillShades(words, cov, shade, (py0 + j) * side + px0 + from, j * w + from, to - from);
    for (let i = to; i < w; i++) blend(j, i, rowB * colX[i]);
  }

  // The logo over its cleared square, with its own alpha.
  if (placed && logoRgba) {
    for (let y = 0; y < placed.h; y++) {
      const ty = placed.y + y;
      if (ty < 0 || ty >= side) continue;
      for (let x = 0; x < placed.w; x++) {
        const tx = placed.x + x;
        if (tx < 0 || tx >= side) continue;
        const s = (y * placed.w + x) * 4;
        const a = logoRgba[s + 3] / 255;
        if (!a) continue;
        const o = (ty * side + tx) * 4;
        for (let ch = 0; ch < 3; ch++) rgb[o + ch] = Math.round(rgb[o + ch] + (logoRgba[s + ch] - rgb[o + ch]) * a);
      }
    }
  }
  return { pixels: rgb, channels: 4, side };
}
