// Reads a one-page PDF back into an SVG (fills and images, the operators the service's PDFs use), so a
// test can rasterise and decode what a printer would draw. No PDF renderer is installed on these machines;
// this interpreter draws exactly the page's own paths, colours and embedded images.
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream } from "pdf-lib";
import sharp from "sharp";

type Matrix = [number, number, number, number, number, number];

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

export interface PdfPage {
  widthPt: number;
  heightPt: number;
  svg: string;
  /** Embedded images drawn on the page, with their pixel sizes and where they sit (points, from the top left). */
  images: Array<{ name: string; width: number; height: number; x: number; y: number; w: number; h: number }>;
  /** Filled paths on the page (vector drawing). */
  fills: number;
}

function streamBytes(stream: unknown): Uint8Array {
  return decodePDFRawStream(stream as PDFRawStream).decode();
}

async function imageHref(doc: PDFDocument, stream: PDFRawStream): Promise<{ href: string; width: number; height: number }> {
  const dict = stream.dict;
  const width = (dict.lookup(PDFName.of("Width")) as PDFNumber).asNumber();
  const height = (dict.lookup(PDFName.of("Height")) as PDFNumber).asNumber();
  const colourSpace = dict.lookup(PDFName.of("ColorSpace"));
  const channels = colourSpace === PDFName.of("DeviceGray") ? 1 : 3;
  const pixels = Buffer.from(streamBytes(stream));
  let image = sharp(pixels, { raw: { width, height, channels } });
  const mask = dict.lookup(PDFName.of("SMask"));
  if (mask instanceof PDFRawStream) {
    const alpha = Buffer.from(streamBytes(mask));
    image = sharp(await image.toColourspace("srgb").ensureAlpha().raw().toBuffer(), { raw: { width, height, channels: 4 } });
    const rgba = await image.raw().toBuffer();
    for (let i = 0; i < width * height; i++) rgba[i * 4 + 3] = alpha[i];
    image = sharp(rgba, { raw: { width, height, channels: 4 } });
  }
  void doc;
  return { href: `data:image/png;base64,${(await image.png().toBuffer()).toString("base64")}`, width, height };
}

/** The first page of `pdf` as an SVG document in points (y down), with what it draws. */
export async function pdfToSvg(pdf: Buffer): Promise<PdfPage> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(0);
  const { width: W, height: H } = page.getSize();
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
  const text = streams.map((s) => Buffer.from(streamBytes(s)).toString("latin1")).join("\n");
  const xobjects = page.node.Resources()?.lookup(PDFName.of("XObject")) as PDFDict | undefined;

  const tokens = text.match(/\/[^\s/[\]()<>]+|-?\d*\.?\d+(?:e-?\d+)?|[A-Za-z*'"]+/g) ?? [];
  const out: string[] = [];
  const images: PdfPage["images"] = [];
  let fills = 0;
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let fill = "#000000";
  const stack: Array<{ ctm: Matrix; fill: string }> = [];
  let path = "";
  let operands: string[] = [];
  const point = (x: number, y: number) => {
    const px = ctm[0] * x + ctm[2] * y + ctm[4];
    const py = ctm[1] * x + ctm[3] * y + ctm[5];
    return `${+px.toFixed(4)} ${+(H - py).toFixed(4)}`;
  };
  const num = (i: number) => Number(operands[i]);
  const hex = (v: number) => Math.round(v * 255).toString(16).padStart(2, "0");
  for (const token of tokens) {
    if (/^(-?\d|\/|-?\.)/.test(token)) {
      operands.push(token);
      continue;
    }
    switch (token) {
      case "q":
        stack.push({ ctm, fill });
        break;
      case "Q":
        ({ ctm, fill } = stack.pop()!);
        break;
      case "cm":
        ctm = multiply([num(0), num(1), num(2), num(3), num(4), num(5)], ctm);
        break;
      case "rg":
        fill = `#${hex(num(0))}${hex(num(1))}${hex(num(2))}`;
        break;
      case "g":
        fill = `#${hex(num(0)).repeat(3)}`;
        break;
      case "m":
        path += `M${point(num(0), num(1))}`;
        break;
      case "l":
        path += `L${point(num(0), num(1))}`;
        break;
      case "c":
        path += `C${point(num(0), num(1))} ${point(num(2), num(3))} ${point(num(4), num(5))}`;
        break;
      case "h":
        path += "Z";
        break;
      case "re": {
        const [x, y, w, h] = [num(0), num(1), num(2), num(3)];
        path += `M${point(x, y)}L${point(x + w, y)}L${point(x + w, y + h)}L${point(x, y + h)}Z`;
        break;
      }
      case "f":
      case "F":
      case "f*":
        out.push(`<path d="${path}" fill="${fill}"${token === "f*" ? ' fill-rule="evenodd"' : ""}/>`);
        fills++;
        path = "";
        break;
      case "n":
      case "S":
        path = "";
        break;
      case "Do": {
        const name = operands[0].slice(1);
        const stream = xobjects?.lookup(PDFName.of(name));
        if (stream instanceof PDFRawStream) {
          const { href, width, height } = await imageHref(doc, stream);
          const [a, , , d, e, f] = ctm;
          const placed = { name, width, height, x: e, y: H - (f + d), w: a, h: d };
          images.push(placed);
          out.push(`<image x="${placed.x}" y="${placed.y}" width="${placed.w}" height="${placed.h}" preserveAspectRatio="none" href="${href}"/>`);
        }
        break;
      }
      default:
        break; // graphics state, line width, dashes: nothing a fill depends on
    }
    operands = [];
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}"><rect width="${W}" height="${H}" fill="#ffffff"/>${out.join("")}</svg>`;
  return { widthPt: W, heightPt: H, svg, images, fills };
}

export const ptToMm = (pt: number) => (pt * 25.4) / 72;
