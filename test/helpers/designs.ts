// Sample brand assets for design tests.
import sharp from "sharp";
import { createMerchant, type TestMerchant } from "./merchants";

/** A square-ish brand mark as a PNG: coloured shapes with an alpha edge, like a real logo file. */
export async function sampleLogo(width = 240, height = 200, colour = "#DC2626"): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="8" y="8" width="${width - 16}" height="${height - 16}" rx="30" fill="${colour}"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#ffffff"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Whether the PNG's pixels include a colour (the design's colours are really drawn). */
export async function hasColour(png: Buffer, hex: string): Promise<boolean> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  for (let o = 0; o < data.length; o += info.channels) if (data[o] === want[0] && data[o + 1] === want[1] && data[o + 2] === want[2]) return true;
  return false;
}

/** A logo file of about `bytes` bytes (incompressible noise), to test the size limits. */
export async function noiseLogo(bytes: number): Promise<Buffer> {
  const side = Math.floor(Math.sqrt(bytes / 3));
  const pixels = Buffer.alloc(side * side * 3);
  let seed = 7;
  for (let i = 0; i < pixels.length; i++) pixels[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16;
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

/** Mocha hook: a fresh merchant and the sample logo as base64, filled in before the suite's tests run. */
export function merchantWithLogo(): { merchant: TestMerchant; logo: string } {
  const setup = {} as { merchant: TestMerchant; logo: string };
  before(async () => {
    setup.merchant = await createMerchant();
    setup.logo = (await sampleLogo()).toString("base64");
  });
  return setup;
}
