// The guarantee: a designed image is decoded by two independent decoders (ZXing-C++ compiled to WASM, and
// paulmillr's `qr`, a pure-JS decoder with its own binariser and finder search) at three sizes, and must give
// back exactly the encoded text. sharp and both decoders are loaded lazily, only by functions that render
// designs; the WASM file is read from the installed package on disk, never fetched.
import { readFileSync } from "node:fs";
import { designRefused } from "./refusal";

/** Pixel sides the image is checked at: a small on-screen thumbnail, a phone-screen size, a print size. */
export const VERIFY_SIDES = [150, 300, 600] as const;

type Sharp = typeof import("sharp");
type DecodeQR = typeof import("qr/decode.js").decodeQR;
type ZXingReader = typeof import("zxing-wasm/dist/cjs/reader/index");

/* eslint-disable @typescript-eslint/no-require-imports */
export const sharp = (): Sharp => require("sharp") as Sharp;
// An ES module, loaded with require() (Node 20.19+ and 22 load ES modules synchronously).
const decodeQR = (): DecodeQR => (require("qr/decode.js") as typeof import("qr/decode.js")).decodeQR;
/* eslint-enable @typescript-eslint/no-require-imports */

let zxing: Promise<ZXingReader> | undefined;

function zxingReader(): Promise<ZXingReader> {
  zxing ??= (async () => {
    const reader = require("zxing-wasm/reader") as ZXingReader; // eslint-disable-line @typescript-eslint/no-require-imports
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
 * share. Separable (rows, then columns), so it costs a few passes over the source.
 */
export function downscale(raster: Raster, to: number): Buffer {
  const { pixels, channels, side: from } = raster;
  const f = from / to;
  const taps = Math.ceil(f) + 1;
  const first = new Int32Array(to);
  const weights = new Float32Array(to * taps);
  for (let i = 0; i < to; i++) {
    const lo = i * f;
    const hi = lo + f;
    first[i] = Math.floor(lo);
    for (let t = 0; t < taps; t++) weights[i * taps + t] = Math.max(0, Math.min(first[i] + t + 1, hi) - Math.max(first[i] + t, lo)) / f;
  }
  // Rows: from x from source rows of `to` pixels, 3 channels.
  const rows = new Float32Array(from * to * 3);
  for (let y = 0; y < from; y++) {
    const src = y * from * channels;
    const dst = y * to * 3;
    for (let i = 0; i < to; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let t = 0; t < taps; t++) {
        const wt = weights[i * taps + t];
        if (!wt) continue;
        const o = src + (first[i] + t) * channels;
        r += pixels[o] * wt;
        g += pixels[o + 1] * wt;
        b += pixels[o + 2] * wt;
      }
      rows[dst + i * 3] = r;
      rows[dst + i * 3 + 1] = g;
      rows[dst + i * 3 + 2] = b;
    }
  }
  const out = Buffer.alloc(to * to * 4, 255);
  const acc = new Float32Array(to * 3);
  for (let j = 0; j < to; j++) {
    acc.fill(0);
    for (let t = 0; t < taps; t++) {
      const wt = weights[j * taps + t];
      if (!wt) continue;
      const src = (first[j] + t) * to * 3;
      for (let k = 0; k < to * 3; k++) acc[k] += rows[src + k] * wt;
    }
    for (let i = 0; i < to; i++) {
      const o = (j * to + i) * 4;
      out[o] = Math.round(acc[i * 3]);
      out[o + 1] = Math.round(acc[i * 3 + 1]);
      out[o + 2] = Math.round(acc[i * 3 + 2]);
    }
  }
  return out;
}

/** An SVG document rasterised by librsvg at `side` pixels, flattened on white (as a viewer shows it). */
export async function rasteriseSvg(svg: string, side: number): Promise<Raster> {
  const pixels = await sharp()(Buffer.from(svg), { density: (72 * side) / 1024 })
    .resize(side, side, { fit: "fill" })
    .flatten({ background: "#ffffff" })
    .removeAlpha()
    .raw()
    .toBuffer();
  return { pixels, channels: 3, side };
}

/** Lossless PNG of a raster. */
export function encodePng(raster: Raster): Promise<Buffer> {
  const image = sharp()(raster.pixels, { raw: { width: raster.side, height: raster.side, channels: raster.channels } });
  return (raster.channels === 4 ? image.removeAlpha() : image).png({ compressionLevel: 6 }).toBuffer();
}

function refuseUnlessExact(outcomes: DecodeOutcome[], expected: string, what: string): void {
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
 * Throws DESIGN_REFUSED (does-not-decode) unless both decoders read exactly `expected` from the raster
 * scaled to each of `sides` (largest first, each from the one before: area averages compose).
 */
export async function verifyRaster(raster: Raster, expected: string, what = "code", sides: readonly number[] = VERIFY_SIDES): Promise<void> {
  const outcomes: DecodeOutcome[] = [];
  let current = raster;
  for (const side of [...sides].sort((a, b) => b - a)) {
    const rgba = side === current.side && current.channels === 4 ? current.pixels : downscale(current, side);
    current = { pixels: rgba, channels: 4, side };
    const outcome = await decodeRgba(rgba, side);
    outcomes.push(outcome);
    // Stop at the first failure: the refusal names it, and a refused design should cost little.
    if (outcome.zxing !== expected || outcome.qr !== expected) break;
  }
  refuseUnlessExact(outcomes, expected, what);
}
