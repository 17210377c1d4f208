// The guarantee: a designed image is decoded by two independent decoders (ZXing-C++ compiled to WASM, and
// paulmillr's `qr`, a pure-JS decoder with its own binariser and finder search) at three sizes, and must give
// back exactly the encoded text. sharp and both decoders are loaded lazily, only by functions that render
// designs; the WASM file is read from the installed package on disk, never fetched.
import { readFileSync } from "node:fs";
import { borrowPixels, returnPixels } from "./pixelBuffers";
import { designRefused } from "./refusal";

/** Pixel sides the image is checked at: a small on-screen thumbnail, a phone-screen size, a print size. */
export const VERIFY_SIDES = [150, 300, 600] as const;

type Sharp = typeof import("sharp");
type DecodeQR = typeof import("qr/decode.js").decodeQR;
type ZXingReader = typeof import("zxing-wasm/dist/cjs/reader/index");

export const sharp = (): Sharp => require("sharp") as Sharp;
// An ES module, loaded with require() (Node 20.19+ and 22 load ES modules synchronously).
const decodeQR = (): DecodeQR => (require("qr/decode.js") as typeof import("qr/decode.js")).decodeQR;

let zxing: Promise<ZXingReader> | undefined;

function zxingReader(): Promise<ZXingReader> {
  zxing ??= (async () => {
    const reader = require("zxing-wasm/reader") as ZXingReader;
    const wasmBinary = readFileSync(require.resolve("zxing-wasm/reader/zxing_reader.wasm"));
    // wasmBinary replaces the package's default locateFile, which points at a CDN.
    await reader.prepareZXingModule({ overrides: { wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) }, fireImmediately: true });
    return reader;
  })();
  zxing.catch(() => (zxing = undefined));
  return zxing;
}

/** Square pixels, RGB or RGBA, row by row. */
export interface Raster {
  pixels: Buffer;
  channels: 3 | 4;
  side: number;
}

export interface DecodeOutcome {
  side: number;
  zxing: string | null;
  qr: string | null;
}

function readQr(rgba: Buffer, side: number): string | null {
  try {
    // effort 1 and no time limit: the mandatory pass only, so the outcome never depends on the machine's load.
    return decodeQR()({ width: side, height: side, data: rgba }, { format: "RGBA", effort: 1, timeLimit: Infinity });
  } catch {
    return null; // no code found, or it did not correct
  }
}

async function decodeRgba(rgba: Buffer, side: number): Promise<DecodeOutcome> {
  const pixels = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length);
  const reader = await zxingReader();
  // No inversion: light-on-dark designs are refused, and most phone scanners do not try inverted images.
  const [zx] = await reader.readBarcodes(
    { data: pixels, width: side, height: side, colorSpace: "srgb" } as unknown as ImageDataLike,
    { formats: ["QRCode"], tryInvert: false, tryRotate: false, maxNumberOfSymbols: 1 },
  );
  return { side, zxing: zx?.isValid ? zx.text : null, qr: readQr(rgba, side) };
}

type ImageDataLike = Parameters<ZXingReader["readBarcodes"]>[0];

/** Decodes `image` (PNG bytes, or an SVG document) at each side with sharp's own resampling; for tests. */
export async function decodeAtSides(image: Buffer, kind: "png" | "svg", sides: readonly number[] = VERIFY_SIDES): Promise<DecodeOutcome[]> {
  const outcomes: DecodeOutcome[] = [];
  for (const side of sides) {
    // SVGs are rasterised at the side itself (as a viewer or printer would); PNGs are scaled down.
    const input = kind === "svg" ? sharp()(image, { density: (72 * side) / 1024 }) : sharp()(image);
    const data = await input.resize(side, side, { fit: "fill" }).flatten({ background: "#ffffff" }).ensureAlpha().raw().toBuffer();
    outcomes.push(await decodeRgba(data, side));
  }
  return outcomes;
}

/**
 * Area-average downscale of a square raster to RGBA (what a camera or a printer's smaller size sees):
 * each output pixel is the mean of the source area it covers, partial source pixels weighted by their
 * share. Whole-number ratios (600 to 300) are exact box means; others are separable (rows, then columns)
 * in fixed point, within one level of the exact mean and exact on flat colour.
 */
export function downscale(raster: Raster, to: number, out: Buffer = Buffer.allocUnsafe(to * to * 4)): Buffer {
  if (to === raster.side) return asRgba(raster, out);
  if (raster.side % to === 0) return boxDownscale(raster, raster.side / to, out);
  return areaDownscale(raster, to, out);
}

/** The same pixels as opaque RGBA. */
function asRgba({ pixels, channels }: Raster, out: Buffer): Buffer {
  if (channels === 4) {
    pixels.copy(out);
    return out;
  }
  for (let s = 0, o = 0; s < pixels.length; s += 3, o += 4) {
    out[o] = pixels[s];
    out[o + 1] = pixels[s + 1];
    out[o + 2] = pixels[s + 2];
    out[o + 3] = 255;
  }
  return out;
}

/** Mean of each n-by-n block, rounded half up. */
function boxDownscale({ pixels, channels, side }: Raster, n: number, out: Buffer): Buffer {
  const to = side / n;
  const cells = n * n;
  const half = cells >> 1;
  const sums = new Int32Array(to * 3);
  for (let j = 0; j < to; j++) {
    sums.fill(0);
    for (let y = j * n, yEnd = y + n; y < yEnd; y++) {
      let s = y * side * channels;
      for (let i = 0, d = 0; i < to; i++, d += 3) {
        for (let t = 0; t < n; t++, s += channels) {
          sums[d] += pixels[s];
          sums[d + 1] += pixels[s + 1];
          sums[d + 2] += pixels[s + 2];
        }
      }
    }
    for (let d = 0, o = j * to * 4; d < sums.length; d += 3, o += 4) {
      out[o] = ((sums[d] + half) / cells) | 0;
      out[o + 1] = ((sums[d + 1] + half) / cells) | 0;
      out[o + 2] = ((sums[d + 2] + half) / cells) | 0;
      out[o + 3] = 255;
    }
  }
  return out;
}

/** Weights in 1/2048ths: a row pass and a column pass of 8-bit values stay within 32-bit integers. */
const WEIGHT_BITS = 11;
const WEIGHT_ONE = 1 << WEIGHT_BITS;

/** Per output index: its first source index, how many source pixels it touches, and their weights (summing to WEIGHT_ONE). */
function areaTaps(from: number, to: number) {
  const f = from / to;
  const taps = Math.ceil(f) + 1;
  const first = new Int32Array(to);
  const count = new Int32Array(to);
  const weights = new Int32Array(to * taps);
  for (let i = 0; i < to; i++) {
    const lo = i * f;
    const hi = lo + f;
    first[i] = Math.floor(lo);
    count[i] = Math.min(Math.ceil(hi), from) - first[i];
    let total = 0;
    let largest = 0;
    for (let t = 0; t < count[i]; t++) {
      const w = Math.round(((Math.min(first[i] + t + 1, hi) - Math.max(first[i] + t, lo)) / f) * WEIGHT_ONE);
      weights[i * taps + t] = w;
      total += w;
      if (w > weights[i * taps + largest]) largest = t;
    }
    weights[i * taps + largest] += WEIGHT_ONE - total; // rounding never shifts a flat colour
  }
  return { taps, first, count, weights };
}

function areaDownscale({ pixels, channels, side: from }: Raster, to: number, out: Buffer): Buffer {
  const { taps, first, count, weights } = areaTaps(from, to);
  // Source rows reduced across (RGB, `to` wide), kept in a ring while the output rows that need them are made.
  const width = to * 3;
  const ring = new Int32Array(taps * width);
  let reduced = 0;
  // RGBA reads one word per pixel where the buffer allows it (little-endian: red is the low byte).
  const words = channels === 4 && pixels.byteOffset % 4 === 0 ? new Uint32Array(pixels.buffer, pixels.byteOffset, pixels.length / 4) : null;
  const reduceWords = (y: number, src: Uint32Array) => {
    const row = y * from;
    let dst = (y % taps) * width;
    for (let i = 0; i < to; i++, dst += 3) {
      let r = 0;
      let g = 0;
      let b = 0;
      let o = row + first[i];
      for (let t = i * taps, end = t + count[i]; t < end; t++, o++) {
        const wt = weights[t];
        const px = src[o];
        r += (px & 255) * wt;
        g += ((px >>> 8) & 255) * wt;
        b += ((px >>> 16) & 255) * wt;
      }
      ring[dst] = r;
      ring[dst + 1] = g;
      ring[dst + 2] = b;
    }
  };
  const reduceRow = (y: number) => {
    if (words) return reduceWords(y, words);
    const src = y * from * channels;
    let dst = (y % taps) * width;
    for (let i = 0; i < to; i++, dst += 3) {
      let r = 0;
      let g = 0;
      let b = 0;
      let o = src + first[i] * channels;
      for (let t = i * taps, end = t + count[i]; t < end; t++, o += channels) {
        const wt = weights[t];
        r += pixels[o] * wt;
        g += pixels[o + 1] * wt;
        b += pixels[o + 2] * wt;
      }
      ring[dst] = r;
      ring[dst + 1] = g;
      ring[dst + 2] = b;
    }
  };
  const acc = new Int32Array(width);
  const round = 1 << (2 * WEIGHT_BITS - 1);
  for (let j = 0; j < to; j++) {
    while (reduced < first[j] + count[j]) reduceRow(reduced++);
    acc.fill(0);
    for (let t = 0; t < count[j]; t++) {
      const wt = weights[j * taps + t];
      const src = ((first[j] + t) % taps) * width;
      for (let k = 0; k < width; k++) acc[k] += ring[src + k] * wt;
    }
    for (let k = 0, o = j * to * 4; k < width; k += 3, o += 4) {
      out[o] = (acc[k] + round) >> (2 * WEIGHT_BITS);
      out[o + 1] = (acc[k + 1] + round) >> (2 * WEIGHT_BITS);
      out[o + 2] = (acc[k + 2] + round) >> (2 * WEIGHT_BITS);
      out[o + 3] = 255;
    }
  }
  return out;
}

/** An SVG document rasterised by librsvg at `side` pixels, flattened on white (as a viewer shows it). */
export async function rasteriseSvg(svg: string, side: number): Promise<Raster> {
  const pixels = await sharp()(Buffer.from(svg), { density: (72 * side) / 1024 })
    .resize(side, side, { fit: "fill" })
    .flatten({ background: "#ffffff" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return { pixels, channels: 4, side };
}

/** Lossless PNG of a raster. Level 3: a 1024 px design is ~10% larger than at 6 for ~30% less encoding time. */
export function encodePng(raster: Raster): Promise<Buffer> {
  const image = sharp()(raster.pixels, { raw: { width: raster.side, height: raster.side, channels: raster.channels } });
  return (raster.channels === 4 ? image.removeAlpha() : image).png({ compressionLevel: 3 }).toBuffer();
}

/** Throws DESIGN_REFUSED (does-not-decode) unless every outcome is exactly `expected` from both decoders. */
export function refuseUnlessExact(outcomes: DecodeOutcome[], expected: string, what: string): void {
  const failures = outcomes.flatMap((o) => [
    ...(o.zxing === expected ? [] : [{ decoder: "zxing", side: o.side, read: o.zxing }]),
    ...(o.qr === expected ? [] : [{ decoder: "qr", side: o.side, read: o.qr }]),
  ]);
  if (failures.length) {
    const first = failures[0];
    throw designRefused(
      "does-not-decode",
      `The designed ${what} did not decode exactly with ${first.decoder} at ${first.side} px${first.read === null ? "" : " (it read other text)"}`,
      "Use square modules or eyes, a larger quiet zone (4), stronger contrast, or no logo.",
      { failures },
    );
  }
}

/**
 * What both decoders read from the raster scaled to each of `sides` (largest first, each from the one
 * before: area averages compose), stopping at the first size where either misses `expected`: a refusal
 * names it, and a refused design should cost little.
 */
export async function decodeDownscales(raster: Raster, expected: string, sides: readonly number[] = VERIFY_SIDES): Promise<DecodeOutcome[]> {
  const outcomes: DecodeOutcome[] = [];
  const borrowed: Buffer[] = [];
  try {
    let current = raster;
    for (const side of [...sides].sort((a, b) => b - a)) {
      let rgba = current.pixels;
      if (side !== current.side || current.channels !== 4) {
        rgba = downscale(current, side, borrowPixels(side * side * 4));
        borrowed.push(rgba);
      }
      current = { pixels: rgba, channels: 4, side };
      const outcome = await decodeRgba(rgba, side);
      outcomes.push(outcome);
      if (outcome.zxing !== expected || outcome.qr !== expected) break;
    }
  } finally {
    borrowed.forEach(returnPixels);
  }
  return outcomes;
}

/** Throws DESIGN_REFUSED (does-not-decode) unless both decoders read exactly `expected` at each of `sides`. */
export async function verifyRaster(raster: Raster, expected: string, what = "code", sides: readonly number[] = VERIFY_SIDES): Promise<void> {
  refuseUnlessExact(await decodeDownscales(raster, expected, sides), expected, what);
}

/** An SVG document as a viewer shows it (librsvg at the largest side), decoded down the sizes; no verdict. */
export async function decodeSvg(svg: string, expected: string, sides: readonly number[] = VERIFY_SIDES): Promise<DecodeOutcome[]> {
  return decodeDownscales(await rasteriseSvg(svg, Math.max(...sides)), expected, sides);
}
