// Decodes PNGs back to their payload: proof that a generated code scans.
import jsQR from "jsqr";
import { PNG } from "pngjs";

export interface DecodedImage {
  payload: string | undefined;
  width: number;
  height: number;
  rgba: Buffer;
}

export function decodePng(png: Buffer): DecodedImage {
  const image = PNG.sync.read(png);
  const result = jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height);
  return { payload: result?.data, width: image.width, height: image.height, rgba: image.data };
}

export async function fetchPng(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  if (res.headers.get("content-type") !== "image/png") throw new Error(`GET ${url}: content-type ${res.headers.get("content-type")}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Rasterises an SVG with sharp (librsvg) at `width` px and decodes it like a PNG. */
export async function decodeSvg(svg: string | Buffer, width = 1024): Promise<DecodedImage> {
  const sharp = (await import("sharp")).default;
  const png = await sharp(Buffer.from(svg), { density: 72 }).resize({ width }).flatten({ background: "#ffffff" }).png().toBuffer();
  return decodePng(png);
}

/** True when an SVG holds only vector elements: no <image>, no data: or external bitmap references. */
export function isVectorOnly(svg: string): boolean {
  return !/<image\b|data:image|\.png\b|\.jpe?g\b|<foreignObject/i.test(svg);
}
