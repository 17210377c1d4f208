// Sample brand assets for design tests.
import sharp from "sharp";

/** A square-ish brand mark as a PNG: coloured shapes with an alpha edge, like a real logo file. */
export async function sampleLogo(width = 240, height = 200, colour = "#DC2626"): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="8" y="8" width="${width - 16}" height="${height - 16}" rx="30" fill="${colour}"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#ffffff"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
