// The guarantee: a designed image is decoded by two independent decoders (ZXing-C++ compiled to WASM, and
// jsQR, a pure-JS port of a different lineage) at three sizes, and must give back exactly the encoded text.
// sharp and both decoders are loaded lazily, only by functions that render designs; the WASM file is read
// from the installed package on disk, never fetched.
import { readFileSync } from "node:fs";
import { designRefused } from "./refusal";

/** Pixel sides the image is checked at: a small on-screen thumbnail, a phone-screen size, a print size. */
export const VERIFY_SIDES = [150, 300, 600] as const;

type Sharp = typeof import("sharp");
type JsQR = typeof import("jsqr").default;
type ZXingReader = typeof import("zxing-wasm/dist/cjs/reader/index");

/* eslint-disable @typescript-eslint/no-require-imports */
export const sharp = (): Sharp => require("sharp") as Sharp;
const jsQR = (): JsQR => require("jsqr") as JsQR;
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

export interface DecodeOutcome {
  side: number;
  zxing: string | null;
  jsqr: string | null;
}

async function decodeRgba(rgba: Buffer, width: number, height: number, side: number): Promise<DecodeOutcome> {
  const pixels = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length);
  // No inversion: light-on-dark designs are refused, and most phone scanners do not try inverted images.
  const js = jsQR()(pixels, width, height, { inversionAttempts: "dontInvert" });
  const reader = await zxingReader();
  const [zx] = await reader.readBarcodes(
    { data: pixels, width, height, colorSpace: "srgb" } as unknown as ImageDataLike,
    { formats: ["QRCode"], tryInvert: false, tryRotate: false, maxNumberOfSymbols: 1 },
  );
  return { side, zxing: zx?.isValid ? zx.text : null, jsqr: js?.data ?? null };
}

type ImageDataLike = Parameters<ZXingReader["readBarcodes"]>[0];

/** Decodes `image` (PNG bytes, or an SVG document) at each side; resolves with what each decoder read. */
export async function decodeAtSides(image: Buffer, kind: "png" | "svg", sides: readonly number[] = VERIFY_SIDES): Promise<DecodeOutcome[]> {
  const outcomes: DecodeOutcome[] = [];
  for (const side of sides) {
    // SVGs are rasterised at the side itself (as a viewer or printer would); PNGs are scaled down.
    const input = kind === "svg" ? sharp()(image, { density: (72 * side) / 1024 }) : sharp()(image);
    const { data, info } = await input
      .resize(side, side, { fit: "fill" })
      .flatten({ background: "#ffffff" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    outcomes.push(await decodeRgba(data, info.width, info.height, side));
  }
  return outcomes;
}

/** Area-average downscale of square RGBA pixels (what a camera or a printer's smaller size sees). */
export function downscale(rgba: Buffer, from: number, to: number): Buffer {
  const out = Buffer.alloc(to * to * 4);
  const f = from / to;
  const spans = Array.from({ length: to }, (_, i) => [Math.floor(i * f), Math.max(Math.floor(i * f) + 1, Math.floor((i + 1) * f))]);
  const sums = new Float64Array(to * 4);
  for (let ty = 0; ty < to; ty++) {
    sums.fill(0);
    const [y0, y1] = spans[ty];
    for (let y = y0; y < y1; y++) {
      const row = y * from * 4;
      for (let tx = 0; tx < to; tx++) {
        const [x0, x1] = spans[tx];
        for (let x = x0; x < x1; x++) {
          const o = row + x * 4;
          sums[tx * 4] += rgba[o];
          sums[tx * 4 + 1] += rgba[o + 1];
          sums[tx * 4 + 2] += rgba[o + 2];
        }
      }
    }
    for (let tx = 0; tx < to; tx++) {
      const count = (y1 - y0) * (spans[tx][1] - spans[tx][0]);
      const o = (ty * to + tx) * 4;
      out[o] = Math.round(sums[tx * 4] / count);
      out[o + 1] = Math.round(sums[tx * 4 + 1] / count);
      out[o + 2] = Math.round(sums[tx * 4 + 2] / count);
      out[o + 3] = 255;
    }
  }
  return out;
}

/** One rasterisation of an SVG document, flattened on white: the PNG's pixels and what the checks decode. */
export async function rasterise(svg: string): Promise<{ rgba: Buffer; side: number }> {
  const { data, info } = await sharp()(Buffer.from(svg)).flatten({ background: "#ffffff" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, side: info.width };
}

/** Lossless PNG of a raster from rasterise(). */
export function encodePng(raster: { rgba: Buffer; side: number }): Promise<Buffer> {
  return sharp()(raster.rgba, { raw: { width: raster.side, height: raster.side, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 6 })
    .toBuffer();
}

function refuseUnlessExact(outcomes: DecodeOutcome[], expected: string, what: string): void {
  const failures = outcomes.flatMap((o) => [
    ...(o.zxing === expected ? [] : [{ decoder: "zxing", side: o.side, read: o.zxing }]),
    ...(o.jsqr === expected ? [] : [{ decoder: "jsqr", side: o.side, read: o.jsqr }]),
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
 * scaled to each of VERIFY_SIDES. The PNG is this raster losslessly encoded, and the SVG is the document
 * it was drawn from, so one check covers both files.
 */
export async function verifyRaster(raster: { rgba: Buffer; side: number }, expected: string, what = "code", sides: readonly number[] = VERIFY_SIDES): Promise<void> {
  const outcomes: DecodeOutcome[] = [];
  for (const side of [...sides].sort((a, b) => b - a)) {
    const pixels = side === raster.side ? raster.rgba : downscale(raster.rgba, raster.side, side);
    const outcome = await decodeRgba(pixels, side, side, side);
    outcomes.push(outcome);
    // Stop at the first failure: the refusal names it, and a refused design should cost little.
    if (outcome.zxing !== expected || outcome.jsqr !== expected) break;
  }
  refuseUnlessExact(outcomes, expected, what);
}
