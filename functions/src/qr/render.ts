// Turns a payload into a PNG: plain codes through the direct 1-bit encoder, framed codes by writing the
// code's pixels as palette indices into a frame canvas that sharp (loaded only here) draws once per instance.
import { qrMatrixBestFit, type ErrorCorrection } from "./matrix";
import { encodeIndexedPng, encodeQrPng, grayPixels } from "./png";
import { FRAME_SIDE, frameSpec, type FrameName } from "./frames";

/** Plain codes: M (15%), the usual print default; L only when a very long URL does not fit at M. */
export const PLAIN_ERROR_CORRECTION: readonly ErrorCorrection[] = ["M", "L"];
/**
 * Framed codes go on signage and stickers that get scuffed: Q (25%) where the payload fits, else M.
 * Frames never cover modules, so no correction capacity is spent on the frame itself.
 */
export const FRAMED_ERROR_CORRECTION: readonly ErrorCorrection[] = ["Q", "M", "L"];

export const PLAIN_SIDE = 512;

export function renderPlainPng(payload: string, side = PLAIN_SIDE): Buffer {
  return encodeQrPng(qrMatrixBestFit(payload, PLAIN_ERROR_CORRECTION), side);
}

/**
 * A frame drawn once per instance and reduced to a palette: index 0 is white and 1 is black (the code's
 * colours), then the frame's most frequent colours; rare anti-aliasing shades map to their nearest entry.
 * Each render then only writes code pixels as indices and deflates 1 MB of indices.
 */
interface FrameCanvas {
  palette: Buffer;
  /** FRAME_SIDE rows of (filter byte 0 + FRAME_SIDE indices). */
  rows: Buffer;
  box: { left: number; top: number; side: number };
}

const ROW_BYTES = FRAME_SIDE + 1;
const WHITE = 0;
const BLACK = 1;

const canvases = new Map<FrameName, Promise<FrameCanvas>>();

type Sharp = typeof import("sharp");
const sharp = (): Sharp => require("sharp") as Sharp;

export function quantize(rgb: Buffer, width: number, height: number): { palette: Buffer; rows: Buffer } {
  const counts = new Map<number, number>();
  for (let i = 0; i < rgb.length; i += 3) {
    const key = (rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const colours = [0xffffff, 0x000000];
  for (const [key] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (colours.length >= 256) break;
    if (key !== 0xffffff && key !== 0x000000) colours.push(key);
  }
  const indexOf = new Map<number, number>(colours.map((c, i) => [c, i]));
  const nearest = (key: number): number => {
    let best = 0;
    let bestDistance = Infinity;
    colours.forEach((c, i) => {
      const d = ((c >> 16) - (key >> 16)) ** 2 + (((c >> 8) & 255) - ((key >> 8) & 255)) ** 2 + ((c & 255) - (key & 255)) ** 2;
      if (d < bestDistance) [best, bestDistance] = [i, d];
    });
    indexOf.set(key, best);
    return best;
  };
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const key = (rgb[o] << 16) | (rgb[o + 1] << 8) | rgb[o + 2];
      rows[y * (width + 1) + 1 + x] = indexOf.get(key) ?? nearest(key);
    }
  }
  const palette = Buffer.alloc(colours.length * 3);
  colours.forEach((c, i) => palette.writeUIntBE(c, i * 3, 3));
  return { palette, rows };
}

function frameCanvas(name: FrameName): Promise<FrameCanvas> {
  let canvas = canvases.get(name);
  if (!canvas) {
    const spec = frameSpec(name);
    canvas = sharp()(Buffer.from(spec.svg))
      .flatten({ background: "#ffffff" })
      .removeAlpha()
      .raw()
      .toBuffer()
      .then((rgb) => ({ ...quantize(rgb, FRAME_SIDE, FRAME_SIDE), box: spec.box }));
    canvas.catch(() => canvases.delete(name));
    canvases.set(name, canvas);
  }
  return canvas;
}

export async function renderFramedPng(payload: string, frame: FrameName): Promise<Buffer> {
  const { palette, rows, box } = await frameCanvas(frame);
  const matrix = qrMatrixBestFit(payload, FRAMED_ERROR_CORRECTION);
  const code = grayPixels(matrix, box.side);
  if (code.side > box.side) throw new Error(`payload too long for the ${frame} frame`);
  const out = Buffer.from(rows);
  const inset = Math.floor((box.side - code.side) / 2);
  for (let y = 0; y < box.side; y++) {
    const rowOut = (box.top + y) * ROW_BYTES + 1 + box.left;
    out.fill(WHITE, rowOut, rowOut + box.side);
    const cy = y - inset;
    if (cy < 0 || cy >= code.side) continue;
    const src = cy * code.side;
    for (let x = 0; x < code.side; x++) {
      if (code.pixels[src + x] === 0) out[rowOut + inset + x] = BLACK;
    }
  }
  return encodeIndexedPng(FRAME_SIDE, FRAME_SIDE, palette, out);
}

/** Warms the frame canvases (first use of a frame otherwise pays its SVG rendering and quantization). */
export function warmFrames(names: readonly FrameName[]): Promise<unknown> {
  return Promise.all(names.map(frameCanvas));
}
