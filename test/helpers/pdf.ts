// Reads a PDF the way a printer would, with an independent renderer: Debian's poppler-utils (pdfinfo,
// pdftoppm, pdfimages, pdftotext; .ci/run installs them). Not a copy of the product's own PDF reading, so a
// bug the product and its tests shared could not hide. Tests decode the QR from the rendering (jsQR) and
// check colours on it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PdfPage {
  widthPt: number;
  heightPt: number;
  /** The page rendered by poppler to a PNG `widthPx` wide. */
  png: Buffer;
  /** Raster images drawn on the page (not their soft masks), with their pixel sizes, as pdfimages lists them. */
  images: Array<{ width: number; height: number }>;
}

/** Runs `fn` with the PDF written to a file of a fresh temporary folder, removed afterwards. */
async function withFile<T>(pdf: Uint8Array, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pdf-"));
  try {
    const file = path.join(dir, "in.pdf");
    writeFileSync(file, pdf);
    return await fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Page `page` (1-based) of `pdf`: its size in points, its rendering, and its images. */
export function renderPdfPage(pdf: Uint8Array, widthPx = 900, page = 1): Promise<PdfPage> {
  return withFile(pdf, async (file, dir) => {
    const info = (await run("pdfinfo", ["-f", String(page), "-l", String(page), file])).stdout;
    const size = new RegExp(`^Page\\s+${page} size:\\s+([\\d.]+) x ([\\d.]+) pts`, "m").exec(info);
    if (!size) throw new Error(`pdfinfo gave no size for page ${page}:\n${info}`);
    await run("pdftoppm", ["-png", "-singlefile", "-f", String(page), "-l", String(page), "-scale-to-x", String(widthPx), "-scale-to-y", "-1", file, path.join(dir, "page")]);
    const listed = (await run("pdfimages", ["-list", "-f", String(page), "-l", String(page), file])).stdout.split("\n").slice(2);
    const images = listed
      .map((line) => line.trim().split(/\s+/))
      .filter((cells) => cells[2] === "image")
      .map((cells) => ({ width: Number(cells[3]), height: Number(cells[4]) }));
    return { widthPt: Number(size[1]), heightPt: Number(size[2]), png: readFileSync(path.join(dir, "page.png")), images };
  });
}

/** The text poppler extracts from the PDF, page by page (pages split on form feeds). */
export function pdfText(pdf: Uint8Array): Promise<string[]> {
  return withFile(pdf, async (file) => (await run("pdftotext", ["-layout", file, "-"])).stdout.split("\f").slice(0, -1));
}

export const ptToMm = (pt: number) => (pt * 25.4) / 72;
