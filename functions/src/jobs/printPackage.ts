// A print package: one ZIP holding each code's SVG and PDF, a manifest (CSV) saying what each file encodes
// and whether it was decoded back, and optionally imposed label sheets. No HTTP and no storage here: the
// caller pages codes in (an async iterable, e.g. Firestore pages) and hands a Writable (e.g. a Cloud Storage
// write stream).
//
// Streaming: codes are drawn one at a time; each file goes into fflate's streaming Zip as it is made and its
// compressed bytes are written to `out` before the next code is drawn, waiting for 'drain' when `out` is
// full. What stays in memory for the whole run grows with the count, by about 3 KB per code: the ZIP's
// central directory (written last, as the format requires; fflate's Zip keeps ~1.4 KB per entry, two
// entries per code), the manifest (deflated as it is written, ~30-60 bytes per code: a ZIP entry's bytes
// must be contiguous, so it cannot be written while the code files are) and the code ids seen (duplicate
// check). Beyond this module: zxing-wasm 3.1.4's readBarcodes never deletes its result vector, so every
// decode keeps its results (~0.8 KB of buffers and their objects; one ZXing decode per file, the SVG's in the
// check worker where there is one) for the life of the instance, until designs/verify.ts works around it.
// Label sheets are pdf-lib documents, which hold a whole document until saved: they are bounded by
// writing them as separate files (`sheets-001.pdf`, ...) of at most `pagesPerFile` pages (and about
// SHEET_FILE_BYTES_MAX of code drawings), each written into the ZIP as soon as it is full.
//
// What the manifest's flags mean (true only when checked, never assumed):
// - svgDecoded: the SVG rendered by librsvg at CHECK_SIDE (300 px), read by both decoders (ZXing-C++ and
//   `qr`) as exactly the code's payload. One size, not the three a new design is checked at: a designed
//   code's SVG has passed those when it is drawn (renderCodeSvg), and at 300 px a plain code's densest
//   symbol still has over 4 px per module; this check is about the file as written, at a cost that lets a
//   10,000-code package finish in minutes (docs/performance.md).
// - pdfDecoded: the same check on the PDF as drawn. No PDF renderer (pdfium, poppler) is installed in
//   functions, so the PDF's page is read back from its own bytes by a small interpreter of the operators
//   pdf-lib writes (fills of paths in device colours, and images), turned into SVG and rendered by librsvg.
//   A page using anything else (text, strokes, clipping, transparency, shadings, forms...) is not guessed
//   at: it is reported as not decoded, with the reason in the note column. It reads what the file says
//   to paint; it is not a printer's RIP.
// Designed codes whose design is refused when drawn (DESIGN_REFUSED) get no files and a note; codes whose
// PDF did not decode are left off the label sheets (a label that does not scan should not be printed).
import { crc32 } from "node:zlib";
import type { Deflate, Zip, ZipInputFile } from "fflate";
import type { PDFDocument, PDFEmbeddedPage, PDFFont, PDFPage } from "pdf-lib";
import type { QrCode } from "../codes/model";
import { encodedPayload, renderCodeSvg } from "../codes/service";
import { AppError } from "../core/errors";
import type { DecodeOutcome } from "../designs/verify";
import { PDF_MM_MAX, PDF_MM_MIN, renderPdf } from "../codes/print";

/** Heavy modules are loaded only when a package is made (cold starts of the functions that import this stay light). */
const fflate = () => require("fflate") as typeof import("fflate");
const pdfLib = () => require("pdf-lib") as typeof import("pdf-lib");
const verify = () => require("../designs/verify") as typeof import("../designs/verify");
const svgCheck = () => require("../designs/svgCheck") as typeof import("../designs/svgCheck");

export type Paper = "a4" | "letter";

export interface SheetOptions {
  paper: Paper;
  /** Side of each code on the sheet, whole millimetres; default: the package's sideMm. */
  labelMm?: number;
  /** Pages per sheets file (default SHEET_PAGES_DEFAULT, at most SHEET_PAGES_MAX): bounds the memory a sheets file takes. */
  pagesPerFile?: number;
}

export interface PrintPackageOptions {
  /** Side of each code's PDF, whole millimetres within PDF_MM_MIN..PDF_MM_MAX. */
  sideMm: number;
  /** Imposed label sheets, when asked. */
  sheets?: SheetOptions;
  /** Codes drawn and checked at once (1 to PIPELINE_DEPTH_MAX; default PIPELINE_DEPTH). */
  pipelineDepth?: number;
}

export interface PrintPackageResult {
  /** Entries in the ZIP (code files, sheets files and the manifest). */
  files: number;
  codes: number;
  /** Codes whose SVG or PDF was not decoded back to exactly its payload (or that have no files). */
  undecoded: number;
  /** Pages of label sheets over all sheets files (0 when sheets were not asked). */
  sheetPages: number;
  /** Bytes written to `out`. */
  bytes: number;
}

/** A ZIP without ZIP64 (fflate writes none) holds at most 65,535 entries: two per code, plus sheets and the manifest. */
export const PACKAGE_CODES_MAX = 20_000;
export const SHEET_PAGES_DEFAULT = 20;
export const SHEET_PAGES_MAX = 100;
/** A sheets file is closed at the next page once the code drawings embedded in it reach this. */
export const SHEET_FILE_BYTES_MAX = 32 * 1024 * 1024;
/** Offsets and sizes in a ZIP without ZIP64 are 32-bit; room is kept for the central directory and the manifest. */
const ZIP_BYTES_MAX = 0xffff_ffff - 16 * 1024 * 1024;
/** Code ids name the files: letters, digits, _ and - only, so no entry can land outside the folder it is unzipped into. */
const CODE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * fflate's streaming deflate sizes its hash table for the worst case (mem 8: 2 MiB per stream) when not
 * told: allocated and zeroed for every SVG, and held by the manifest's stream for the whole run. 128 KiB
 * (mem 4) loses nothing measurable on files of a few kilobytes or on the manifest's repetitive rows.
 */
const DEFLATE = { level: 6, mem: 4 } as const;

export const MANIFEST_COLUMNS = ["codeId", "uniqueQRCodeID", "scanUrl", "title", "svgDecoded", "pdfDecoded", "note"] as const;

// ---- options --------------------------------------------------------------------------------------------

const PAPER_MM: Record<Paper, readonly [number, number]> = { a4: [210, 297], letter: [215.9, 279.4] };
const MM_TO_PT = 72 / 25.4;
/** From the page edge to the nearest label; the crop marks reach MARK_OFFSET + MARK_LENGTH into it. */
const SHEET_MARGIN_MM = 10;
/** Between labels: room for both labels' crop marks with 2 mm clear between them. */
const GUTTER_MM = 10;
const MARK_OFFSET_MM = 1;
const MARK_LENGTH_MM = 3;
const MARK_WIDTH_PT = 0.25;
/** Helvetica's cap height, in em. */
const CAP_HEIGHT_EM = 0.718;

export interface SheetLayout {
  paper: Paper;
  pageMm: readonly [number, number];
  labelMm: number;
  /** The code plus its caption band (the short id): what is cut out. */
  labelHeightMm: number;
  /** Cap height of the short id under each code. */
  captionMm: number;
  columns: number;
  rows: number;
  perPage: number;
  /** Top left of the first label, from the page's top left (the grid is centred on the page). */
  leftMm: number;
  topMm: number;
}

/** Where labels of `labelMm` go on a page of `paper`: columns and rows with room for crop marks, centred. */
export function sheetLayout(paper: Paper, labelMm: number): SheetLayout {
  const [pw, ph] = PAPER_MM[paper];
  const captionMm = Math.min(8, Math.max(2.5, labelMm * 0.1));
  const labelHeightMm = labelMm + captionMm * 1.8;
  const columns = Math.max(0, Math.floor((pw - 2 * SHEET_MARGIN_MM + GUTTER_MM) / (labelMm + GUTTER_MM)));
  const rows = Math.max(0, Math.floor((ph - 2 * SHEET_MARGIN_MM + GUTTER_MM) / (labelHeightMm + GUTTER_MM)));
  const gridW = columns * labelMm + Math.max(0, columns - 1) * GUTTER_MM;
  const gridH = rows * labelHeightMm + Math.max(0, rows - 1) * GUTTER_MM;
  return { paper, pageMm: [pw, ph], labelMm, labelHeightMm, captionMm, columns, rows, perPage: columns * rows, leftMm: (pw - gridW) / 2, topMm: (ph - gridH) / 2 };
}

/** The largest whole-millimetre label that fits one to a page of `paper`. */
function largestLabelMm(paper: Paper): number {
  let mm = PDF_MM_MIN;
  while (sheetLayout(paper, mm + 1).perPage > 0) mm++;
  return mm;
}

function invalid(message: string, details: Record<string, unknown>): never {
  throw new AppError("VALIDATION_FAILED", message, { details });
}

interface Checked {
  sideMm: number;
  sheets: { layout: SheetLayout; pagesPerFile: number } | null;
}

/** Throws VALIDATION_FAILED, naming the field, unless the options describe a package that can be made. */
export function checkPrintPackageOptions(options: PrintPackageOptions): Checked {
  const { sideMm, sheets } = options ?? ({} as PrintPackageOptions);
  if (typeof sideMm !== "number" || !Number.isInteger(sideMm) || sideMm < PDF_MM_MIN || sideMm > PDF_MM_MAX) {
    invalid(`sideMm must be a whole number of millimetres from ${PDF_MM_MIN} to ${PDF_MM_MAX}`, { field: "sideMm", value: sideMm });
  }
  if (sheets === undefined || sheets === null) return { sideMm, sheets: null };
  if (typeof sheets !== "object") invalid("sheets must be an object with paper (a4 or letter)", { field: "sheets" });
  if (sheets.paper !== "a4" && sheets.paper !== "letter") invalid('sheets.paper must be "a4" or "letter"', { field: "sheets.paper", value: sheets.paper });
  const labelMm = sheets.labelMm ?? sideMm;
  if (typeof labelMm !== "number" || !Number.isInteger(labelMm) || labelMm < PDF_MM_MIN) {
    invalid(`sheets.labelMm must be a whole number of millimetres, at least ${PDF_MM_MIN}`, { field: "sheets.labelMm", value: labelMm });
  }
  const layout = sheetLayout(sheets.paper, labelMm);
  if (layout.perPage === 0) {
    const largest = largestLabelMm(sheets.paper);
    const defaulted = sheets.labelMm === undefined ? " (labels are sideMm unless sheets.labelMm is given)" : "";
    invalid(`A ${labelMm} mm label (with its short id and crop marks) does not fit on ${sheets.paper === "a4" ? "A4" : "Letter"} paper: at most ${largest} mm${defaulted}`, {
      field: sheets.labelMm === undefined ? "sideMm" : "sheets.labelMm",
      value: labelMm,
      largestLabelMm: largest,
    });
  }
  const pagesPerFile = sheets.pagesPerFile ?? SHEET_PAGES_DEFAULT;
  if (typeof pagesPerFile !== "number" || !Number.isInteger(pagesPerFile) || pagesPerFile < 1 || pagesPerFile > SHEET_PAGES_MAX) {
    invalid(`sheets.pagesPerFile must be a whole number from 1 to ${SHEET_PAGES_MAX}`, { field: "sheets.pagesPerFile", value: pagesPerFile });
  }
  return { sideMm, sheets: { layout, pagesPerFile } };
}

// ---- manifest -------------------------------------------------------------------------------------------

/**
 * One CSV cell: text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
 * return) gets a leading single quote, then the cell is quoted as RFC 4180 asks when it holds a quote,
 * a comma or a line break (quotes doubled).
 */
export function csvCell(value: string | boolean): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvRow = (cells: ReadonlyArray<string | boolean>): string => `${cells.map(csvCell).join(",")}\r\n`;

/** Text deflated as it is written (the manifest), then added to the ZIP as one already-compressed entry. */
class DeflatedText {
  private readonly chunks: Uint8Array[] = [];
  private readonly deflate: Deflate;
  private crc = 0;
  private size = 0;

  constructor() {
    this.deflate = new (fflate().Deflate)(DEFLATE, (chunk) => {
      if (chunk.length) this.chunks.push(chunk);
    });
  }

  write(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    this.deflate.push(bytes);
  }

  /** Adds the text to `zip` as `filename`, already deflated (fflate writes the header from size and crc). */
  addTo(zip: Zip, filename: string, mtime: Date): void {
    this.deflate.push(new Uint8Array(0), true);
    const entry: ZipInputFile = { filename, size: this.size, crc: this.crc, compression: 8, mtime };
    zip.add(entry);
    const chunks = this.chunks.length ? this.chunks : [new Uint8Array([3, 0])]; // an empty final block
    chunks.forEach((chunk, i) => entry.ondata!(null, chunk as Uint8Array<ArrayBuffer>, i === chunks.length - 1));
    this.chunks.length = 0;
  }
}

// ---- ZIP output with backpressure -----------------------------------------------------------------------

/** ZIP timestamps are DOS dates; fflate writes 1980 to 2099, anything else is written as 1980-01-01. */
function zipTime(date: Date | undefined): Date {
  const year = date?.getFullYear();
  return date && year !== undefined && year >= 1980 && year <= 2099 ? date : new Date(1980, 0, 1);
}

class ZipSink {
  readonly zip: Zip;
  entries = 0;
  bytes = 0;
  private readonly queue: Uint8Array[] = [];
  private failure: Error | null = null;
  private readonly onError = (error: Error) => {
    this.failure ??= error;
  };

  constructor(private readonly out: NodeJS.WritableStream) {
    this.zip = new (fflate().Zip)((error, chunk) => {
      if (error) this.failure ??= error;
      else if (chunk.length) this.queue.push(chunk);
    });
    out.on("error", this.onError);
  }

  /** Adds one whole file: deflated (text) or stored as is (PDFs, already compressed). */
  async add(filename: string, data: Uint8Array, compress: boolean, mtime: Date): Promise<void> {
    if (this.entries >= 0xffff) invalid("A print package holds at most 65,535 files", { files: this.entries });
    if (this.bytes + data.length + 1024 > ZIP_BYTES_MAX) {
      invalid("The print package would pass 4 GB, the most one ZIP file holds here: package fewer codes at a time, or a smaller size", { bytes: this.bytes });
    }
    const { ZipDeflate, ZipPassThrough } = fflate();
    const file = compress ? new ZipDeflate(filename, DEFLATE) : new ZipPassThrough(filename);
    file.mtime = mtime;
    this.zip.add(file);
    this.entries++;
    file.push(data as Uint8Array<ArrayBuffer>, true);
    await this.flush();
  }

  async addDeflated(text: DeflatedText, filename: string, mtime: Date): Promise<void> {
    text.addTo(this.zip, filename, mtime);
    this.entries++;
    await this.flush();
  }

  /** Writes what the Zip has produced to `out`, one chunk at a time, waiting for 'drain' when `out` asks. */
  async flush(): Promise<void> {
    while (this.queue.length) {
      this.check();
      const chunk = this.queue.shift()!;
      this.bytes += chunk.length;
      if (!this.out.write(chunk)) await this.drained();
    }
    this.check();
  }

  /** The central directory, then the end of `out`; resolves when `out` has finished. */
  async end(): Promise<void> {
    this.zip.end();
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        this.out.off("error", fail);
        resolve();
      };
      const fail = (error: Error) => {
        this.out.off("finish", done);
        reject(error);
      };
      this.out.once("finish", done);
      this.out.once("error", fail);
      this.out.end();
    });
    this.out.off("error", this.onError);
  }

  /** On failure a partial package is never finalised: `out` is destroyed (a Cloud Storage upload is abandoned). */
  abort(error: unknown): void {
    this.zip.terminate();
    this.queue.length = 0;
    const destroyable = this.out as NodeJS.WritableStream & { destroy?: (error?: Error) => void };
    destroyable.destroy?.(error instanceof Error ? error : new Error(String(error)));
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if ((this.out as { destroyed?: boolean }).destroyed) throw new Error("the output stream was closed before the print package was written");
  }

  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        this.out.off("drain", onDrain);
        this.out.off("error", onFail);
        this.out.off("close", onClose);
      };
      const onDrain = () => {
        cleanup();
        resolve();
      };
      const onFail = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onClose = () => onFail(new Error("the output stream was closed before the print package was written"));
      this.out.on("drain", onDrain);
      this.out.on("error", onFail);
      this.out.on("close", onClose);
    });
  }
}

// ---- decode checks --------------------------------------------------------------------------------------

/** The side each file is rendered at and decoded by both decoders (see the top of this file). */
const CHECK_SIDE = 300;
export const CHECK_SIDES = [CHECK_SIDE] as const;
/** Codes drawn and checked at once (their files still go into the ZIP in order): overlaps one code's JS with another's rasterising and the worker's SVG checks. */
export const PIPELINE_DEPTH = 4;
const PIPELINE_DEPTH_MAX = 16;

export interface DecodeCheck {
  ok: boolean;
  /** Why not, for the manifest's note. */
  why?: string;
}

function judge(outcomes: DecodeOutcome[], expected: string, what: string): DecodeCheck {
  const sides = CHECK_SIDES;
  for (const o of outcomes) {
    for (const [decoder, read] of [["zxing", o.zxing], ["qr", o.qr]] as const) {
      if (read !== expected) return { ok: false, why: `${what}: ${decoder} ${read === null ? "read nothing" : "read other text"} at ${o.side} px` };
    }
  }
  if (outcomes.length !== sides.length) return { ok: false, why: `${what}: not decoded at every size` };
  return { ok: true };
}

/** Both decoders on the SVG as librsvg draws it (in the SVG check worker where there is a second core). */
async function checkSvg(svg: string, payload: string): Promise<DecodeCheck> {
  return judge(await svgCheck().decodeSvgBeside(svg, payload, CHECK_SIDES), payload, "SVG");
}

/**
 * Both decoders on a one-page PDF as it paints, read back from the file (see pdfPageSvg) and drawn by
 * librsvg: `ok` only when both read exactly `payload` at CHECK_SIDE; a page with anything the reader
 * does not interpret is not ok, with the reason in `why`.
 */
export async function checkPdfDecodes(pdf: Uint8Array, payload: string): Promise<DecodeCheck> {
  const page = await pdfPageSvg(pdf).catch((error: unknown) => ({ unsupported: `unreadable (${error instanceof Error ? error.message : String(error)})` }));
  if ("unsupported" in page) return { ok: false, why: `PDF not checked: ${page.unsupported}` };
  const { sharp, decodeDownscales } = verify();
  const pixels = await sharp()(Buffer.from(page.svg), { density: (72 * CHECK_SIDE) / page.sidePt })
    .resize(CHECK_SIDE, CHECK_SIDE, { fit: "fill" })
    .flatten({ background: "#ffffff" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return judge(await decodeDownscales({ pixels, channels: 4, side: CHECK_SIDE }, payload, CHECK_SIDES), payload, "PDF");
}

type Ctm = [number, number, number, number, number, number];

const multiply = (m: Ctm, n: Ctm): Ctm => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/** Operators that set state no fill depends on (line style, stroke colour, rendering intent, flatness). */
const IGNORED = new Set(["w", "J", "j", "M", "d", "ri", "i", "RG", "G", "K", "CS", "SC", "SCN"]);
const ARITY: Record<string, number> = { q: 0, Q: 0, cm: 6, rg: 3, g: 1, m: 2, l: 2, c: 6, v: 4, y: 4, h: 0, re: 4, f: 0, F: 0, "f*": 0, n: 0 };

/**
 * The single page of a PDF as an SVG document (points, y down), from the page's own content: path
 * construction, fills (nonzero and even-odd), `cm`, `q`/`Q`, `rg`/`g` fill colours and image XObjects
 * (8-bit DeviceRGB or DeviceGray, with an optional soft mask), which is what pdf-lib writes for a code's PDF.
 * Anything else that could change what is painted makes the page unsupported, never approximated.
 */
async function pdfPageSvg(pdf: Uint8Array): Promise<{ svg: string; sidePt: number } | { unsupported: string }> {
  const { PDFArray, PDFDocument, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream } = pdfLib();
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  if (doc.getPageCount() !== 1) return { unsupported: `${doc.getPageCount()} pages` };
  const page = doc.getPage(0);
  const box = page.getMediaBox();
  if (box.x !== 0 || box.y !== 0 || Math.abs(box.width - box.height) > 1e-6 || page.getRotation().angle % 360 !== 0) return { unsupported: "the page is not an unrotated square" };
  const H = box.height;
  const contents = page.node.Contents();
  const streams = contents === undefined ? [] : contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
  if (!streams.every((s) => s instanceof PDFRawStream)) return { unsupported: "unreadable page contents" };
  const text = streams.map((s) => Buffer.from(decodePDFRawStream(s as Parameters<typeof decodePDFRawStream>[0]).decode()).toString("latin1")).join("\n");
  if (/[(<%{]/.test(text)) return { unsupported: "text, strings, inline images or dictionaries in the page" };
  const xobjects = page.node.Resources()?.lookup(PDFName.of("XObject"));

  const stream = (name: string) => (xobjects && "lookup" in xobjects ? (xobjects as { lookup(n: unknown): unknown }).lookup(PDFName.of(name)) : undefined);
  const num = (dict: { lookup(n: unknown): unknown }, key: string) => {
    const v = dict.lookup(PDFName.of(key));
    return v instanceof PDFNumber ? v.asNumber() : undefined;
  };
  /** An image XObject as a PNG data URI, or why not. */
  const image = async (name: string): Promise<string | { unsupported: string }> => {
    const s = stream(name);
    if (!(s instanceof PDFRawStream) || s.dict.lookup(PDFName.of("Subtype")) !== PDFName.of("Image")) return { unsupported: `XObject ${name} is not an image` };
    const width = num(s.dict, "Width");
    const height = num(s.dict, "Height");
    const space = s.dict.lookup(PDFName.of("ColorSpace"));
    const channels = space === PDFName.of("DeviceRGB") ? 3 : space === PDFName.of("DeviceGray") ? 1 : 0;
    if (!width || !height || !channels || num(s.dict, "BitsPerComponent") !== 8 || s.dict.lookup(PDFName.of("Decode")) || s.dict.lookup(PDFName.of("Mask"))) {
      return { unsupported: `image ${name} is not 8-bit RGB or grey` };
    }
    const pixels = Buffer.from(decodePDFRawStream(s).decode());
    if (pixels.length !== width * height * channels) return { unsupported: `image ${name} has the wrong length` };
    const sharp = verify().sharp();
    let png: Buffer;
    const mask = s.dict.lookup(PDFName.of("SMask"));
    if (mask === undefined) {
      png = await sharp(pixels, { raw: { width, height, channels: channels as 1 | 3 } }).png({ compressionLevel: 1 }).toBuffer();
    } else {
      if (!(mask instanceof PDFRawStream) || num(mask.dict, "Width") !== width || num(mask.dict, "Height") !== height || num(mask.dict, "BitsPerComponent") !== 8) return { unsupported: `image ${name} has an unusual mask` };
      const alpha = Buffer.from(decodePDFRawStream(mask).decode());
      if (alpha.length !== width * height) return { unsupported: `image ${name}'s mask has the wrong length` };
      const rgba = Buffer.allocUnsafe(width * height * 4);
      for (let p = 0; p < width * height; p++) {
        const src = p * channels;
        rgba[p * 4] = pixels[src];
        rgba[p * 4 + 1] = pixels[src + (channels === 3 ? 1 : 0)];
        rgba[p * 4 + 2] = pixels[src + (channels === 3 ? 2 : 0)];
        rgba[p * 4 + 3] = alpha[p];
      }
      png = await sharp(rgba, { raw: { width, height, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer();
    }
    return `data:image/png;base64,${png.toString("base64")}`;
  };

  const tokens = text.match(/\/[^\s/[\]()<>{}%]+|[+-]?(?:\d+\.?\d*|\.\d+)|[A-Za-z*'"]+|[[\]]/g) ?? [];
  const out: string[] = [];
  let ctm: Ctm = [1, 0, 0, 1, 0, 0];
  let fill = "#000000";
  const stack: Array<{ ctm: Ctm; fill: string }> = [];
  let path = "";
  let current: [number, number] = [0, 0];
  let operands: string[] = [];
  const f4 = (v: number) => +v.toFixed(4);
  const at = (x: number, y: number): string => {
    current = [x, y];
    return `${f4(ctm[0] * x + ctm[2] * y + ctm[4])} ${f4(H - (ctm[1] * x + ctm[3] * y + ctm[5]))}`;
  };
  const n = (i: number) => Number(operands[i]);
  const hex = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 255).toString(16).padStart(2, "0");
  for (const token of tokens) {
    if (token === "[" || token === "]") continue; // only in a dash array (`d`), which is ignored
    if (token.startsWith("/") || /^[+-]?[\d.]/.test(token)) {
      operands.push(token);
      continue;
    }
    if (IGNORED.has(token)) {
      operands = [];
      continue;
    }
    if (token !== "Do" && (ARITY[token] === undefined || operands.length !== ARITY[token] || operands.some((o) => o.startsWith("/")))) {
      return { unsupported: ARITY[token] === undefined ? `the operator ${token}` : `malformed ${token}` };
    }
    switch (token) {
      case "q":
        stack.push({ ctm, fill });
        break;
      case "Q":
        if (!stack.length) return { unsupported: "unbalanced Q" };
        ({ ctm, fill } = stack.pop()!);
        break;
      case "cm":
        ctm = multiply([n(0), n(1), n(2), n(3), n(4), n(5)], ctm);
        break;
      case "rg":
        fill = `#${hex(n(0))}${hex(n(1))}${hex(n(2))}`;
        break;
      case "g":
        fill = `#${hex(n(0)).repeat(3)}`;
        break;
      case "m":
        path += `M${at(n(0), n(1))}`;
        break;
      case "l":
        path += `L${at(n(0), n(1))}`;
        break;
      case "c":
        path += `C${at(n(0), n(1))} ${at(n(2), n(3))} ${at(n(4), n(5))}`;
        break;
      case "v": {
        const [x0, y0] = current;
        path += `C${at(x0, y0)} ${at(n(0), n(1))} ${at(n(2), n(3))}`;
        break;
      }
      case "y":
        path += `C${at(n(0), n(1))} ${at(n(2), n(3))} ${at(n(2), n(3))}`;
        break;
      case "h":
        path += "Z";
        break;
      case "re": {
        const [x, y, w, h] = [n(0), n(1), n(2), n(3)];
        path += `M${at(x, y)}L${at(x + w, y)}L${at(x + w, y + h)}L${at(x, y + h)}Z`;
        current = [x, y];
        break;
      }
      case "f":
      case "F":
      case "f*":
        if (path) out.push(`<path d="${path}" fill="${fill}"${token === "f*" ? ' fill-rule="evenodd"' : ""}/>`);
        path = "";
        break;
      case "n":
        path = "";
        break;
      case "Do": {
        if (operands.length !== 1 || !operands[0].startsWith("/")) return { unsupported: "malformed Do" };
        const name = operands[0].slice(1);
        const [a, b, c, d, e, f] = ctm;
        if (b !== 0 || c !== 0 || a <= 0 || d <= 0) return { unsupported: `image ${name} is rotated or flipped` };
        const href = await image(name);
        if (typeof href !== "string") return href;
        out.push(`<image x="${f4(e)}" y="${f4(H - (f + d))}" width="${f4(a)}" height="${f4(d)}" preserveAspectRatio="none" href="${href}"/>`);
        break;
      }
    }
    operands = [];
  }
  const W = box.width;
  return { svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}"><rect width="${W}" height="${H}" fill="#ffffff"/>${out.join("")}</svg>`, sidePt: W };
}

// ---- label sheets ---------------------------------------------------------------------------------------

/** The short id printed under a label: the first 8 characters of uniqueQRCodeID. */
export const shortIdOf = (code: Pick<QrCode, "uniqueQRCodeID">): string => code.uniqueQRCodeID.slice(0, 8);

/** Label sheets written as files of at most `pagesPerFile` pages: pdf-lib holds a document until it is saved. */
class SheetWriter {
  pages = 0;
  private files = 0;
  private doc: PDFDocument | null = null;
  private font: PDFFont | null = null;
  private page: PDFPage | null = null;
  private slot = 0;
  private pagesInFile = 0;
  private bytesInFile = 0;

  constructor(
    private readonly layout: SheetLayout,
    private readonly pagesPerFile: number,
  ) {}

  /** Places one code's PDF on the next label; returns a sheets file that had to be closed first, if any. */
  async add(pdf: Uint8Array, shortId: string): Promise<{ name: string; data: Uint8Array } | null> {
    let closed: { name: string; data: Uint8Array } | null = null;
    if (!this.page || this.slot === this.layout.perPage) {
      if (this.doc && (this.pagesInFile >= this.pagesPerFile || this.bytesInFile >= SHEET_FILE_BYTES_MAX)) closed = await this.close();
      if (!this.doc) await this.open();
      const [pw, ph] = this.layout.pageMm;
      this.page = this.doc!.addPage([pw * MM_TO_PT, ph * MM_TO_PT]);
      this.slot = 0;
      this.pagesInFile++;
      this.pages++;
    }
    const [embedded] = await this.doc!.embedPdf(pdf, [0]);
    this.bytesInFile += pdf.length;
    this.drawLabel(this.page, embedded, shortId);
    this.slot++;
    return closed;
  }

  /** The last sheets file, if any labels are waiting. */
  async close(): Promise<{ name: string; data: Uint8Array } | null> {
    if (!this.doc) return null;
    const data = await this.doc.save();
    this.doc = this.font = this.page = null;
    this.pagesInFile = this.bytesInFile = 0;
    return { name: `sheets-${String(this.files).padStart(3, "0")}.pdf`, data };
  }

  private async open(): Promise<void> {
    const { PDFDocument, StandardFonts } = pdfLib();
    this.files++;
    // No dates in the file: the same codes give the same bytes.
    this.doc = await PDFDocument.create({ updateMetadata: false });
    this.doc.setTitle(`Label sheets ${this.files}`);
    this.doc.setProducer("svc");
    this.font = await this.doc.embedFont(StandardFonts.Helvetica);
  }

  private drawLabel(page: PDFPage, code: PDFEmbeddedPage, shortId: string): void {
    const { rgb } = pdfLib();
    const L = this.layout;
    const column = this.slot % L.columns;
    const row = Math.floor(this.slot / L.columns);
    const pt = (mm: number) => mm * MM_TO_PT;
    const left = pt(L.leftMm + column * (L.labelMm + GUTTER_MM));
    const top = pt(L.pageMm[1] - L.topMm - row * (L.labelHeightMm + GUTTER_MM));
    const side = pt(L.labelMm);
    const bottom = top - pt(L.labelHeightMm);
    const right = left + side;
    page.drawPage(code, { x: left, y: top - side, width: side, height: side });

    // The short id, centred under the code; smaller when a narrow label needs it.
    const font = this.font!;
    const text = shortId.replace(/[^\x20-\x7e]/g, "?");
    let size = pt(L.captionMm) / CAP_HEIGHT_EM;
    size = Math.min(size, (side * 0.9) / Math.max(1e-6, font.widthOfTextAtSize(text, 1)));
    const band = pt(L.labelHeightMm - L.labelMm);
    page.drawText(text, { x: left + (side - font.widthOfTextAtSize(text, size)) / 2, y: bottom + (band - size * CAP_HEIGHT_EM) / 2, size, font, color: rgb(0, 0, 0) });

    // Crop marks outside each corner, along the cut lines.
    const off = pt(MARK_OFFSET_MM);
    const len = pt(MARK_LENGTH_MM);
    const black = rgb(0, 0, 0);
    const line = (x1: number, y1: number, x2: number, y2: number) => page.drawLine({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 }, thickness: MARK_WIDTH_PT, color: black });
    for (const y of [top, bottom]) {
      line(left - off, y, left - off - len, y);
      line(right + off, y, right + off + len, y);
    }
    for (const x of [left, right]) {
      line(x, top + off, x, top + off + len);
      line(x, bottom - off, x, bottom - off - len);
    }
  }
}

// ---- the package ----------------------------------------------------------------------------------------

/** What the package keeps of a code once its files are drawn (a part stores this, not the whole code). */
export type PackagedCode = Pick<QrCode, "codeId" | "uniqueQRCodeID" | "title" | "updatedAt">;

/** One code's files and their checks, or why it has none. */
export type CodeFiles =
  | { code: PackagedCode; payload: string; svg: Buffer; pdf: Buffer; svgCheck: DecodeCheck; pdfCheck: DecodeCheck }
  | { code: PackagedCode; payload: string; refused: string };

async function drawAndCheck(code: QrCode, sideMm: number): Promise<CodeFiles> {
  const payload = encodedPayload(code);
  let svg: string;
  let pdf: Buffer;
  const kept: PackagedCode = { codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, title: code.title, updatedAt: code.updatedAt };
  try {
    // A designed code's SVG is decoded by renderCodeSvg (and renderPdf) before it is returned: a refused
    // design has no files, as the service never hands out a designed file that does not decode.
    svg = await renderCodeSvg(code);
    pdf = await renderPdf(code, sideMm, code.title);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "DESIGN_REFUSED") throw error;
    return { code: kept, payload, refused: error.message };
  }
  // The SVG is checked in the worker (where there is one) while the PDF is read back and checked here.
  const [svgCheck, pdfCheck] = await Promise.all([checkSvg(svg, payload), checkPdfDecodes(pdf, payload)]);
  return { code: kept, payload, svg: Buffer.from(svg, "utf8"), pdf, svgCheck, pdfCheck };
}

function pipelineDepth(options: PrintPackageOptions): number {
  const depth = options.pipelineDepth ?? PIPELINE_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > PIPELINE_DEPTH_MAX) invalid(`pipelineDepth is a whole number from 1 to ${PIPELINE_DEPTH_MAX}`, { pipelineDepth: depth });
  return depth;
}

/** A code taken in, its files still drawing (or already drawn, when read back from a part). */
interface Drawing {
  code: PackagedCode;
  files: Promise<CodeFiles>;
}

/** Starts each code's drawing as it is taken; ids are checked first (they name files). */
async function* startDrawings(codes: AsyncIterable<QrCode> | Iterable<QrCode>, sideMm: number): AsyncGenerator<Drawing> {
  for await (const code of codes) {
    if (typeof code?.codeId !== "string" || !CODE_ID.test(code.codeId)) invalid("Each code needs a codeId of letters, digits, _ or - (it names the files)", { codeId: code?.codeId });
    const files = drawAndCheck(code, sideMm);
    files.catch(() => undefined); // awaited in turn by inOrder; a failure meanwhile is not an unhandled rejection
    yield { code: { codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, title: code.title, updatedAt: code.updatedAt }, files };
  }
}

/**
 * The drawings' files in the order the codes came, `depth` taken in ahead of the one handed out (so at most
 * `depth` codes draw at once, and none while the caller is busy with one). `intake` sees each code as it
 * is taken. Stopping early waits for the codes still drawing, so nothing runs on once the caller has moved on.
 */
async function* inOrder(drawings: AsyncIterable<Drawing>, depth: number, intake: (code: PackagedCode) => void = () => undefined): AsyncGenerator<CodeFiles> {
  const waiting: Drawing[] = [];
  try {
    for await (const drawing of drawings) {
      waiting.push(drawing); // before intake, which may refuse it: its drawing is then awaited below too
      intake(drawing.code);
      if (waiting.length >= depth) yield await waiting.shift()!.files;
    }
    while (waiting.length) yield await waiting.shift()!.files;
  } finally {
    await Promise.allSettled(waiting.map((w) => w.files));
  }
}

/**
 * Writes a ZIP to `out`: for each code `<codeId>.svg` and `<codeId>.pdf` (sideMm square), label sheets
 * as `sheets-001.pdf`, ... when asked (each written as soon as it is full, so they sit among the code
 * files), then `manifest.csv` (MANIFEST_COLUMNS; UTF-8 with a byte-order mark, CRLF, formula-safe).
 * Up to PIPELINE_DEPTH codes are drawn and checked at once; their files go into the ZIP in the order the
 * codes came. Ends `out` and resolves once it has finished; on failure destroys it (a partial package is
 * never finalised) and rethrows. Invalid options throw VALIDATION_FAILED before anything is written.
 */
export async function writePrintPackage(codes: AsyncIterable<QrCode> | Iterable<QrCode>, options: PrintPackageOptions, out: NodeJS.WritableStream): Promise<PrintPackageResult> {
  const { sideMm } = checkPrintPackageOptions(options);
  pipelineDepth(options); // refused before anything is drawn
  return assemble(startDrawings(codes, sideMm), options, out);
}

async function* alreadyDrawn(drawn: AsyncIterable<CodeFiles>): AsyncGenerator<Drawing> {
  for await (const files of drawn) yield { code: files.code, files: Promise.resolve(files) };
}

/**
 * The package's ZIP from codes already drawn (writePrintPackage's, or parts written by writePackagePart
 * and read back by readPackagePart): the same bytes either way. A sheets file's time is the latest of the
 * codes taken in so far, `depth` ahead of the one written, as when drawing and writing were one loop.
 */
export async function assemblePrintPackage(drawn: AsyncIterable<CodeFiles>, options: PrintPackageOptions, out: NodeJS.WritableStream): Promise<PrintPackageResult> {
  return assemble(alreadyDrawn(drawn), options, out);
}

async function assemble(drawings: AsyncIterable<Drawing>, options: PrintPackageOptions, out: NodeJS.WritableStream): Promise<PrintPackageResult> {
  const { sheets: sheetOptions } = checkPrintPackageOptions(options);
  const depth = pipelineDepth(options);
  const sink = new ZipSink(out);
  const sheets = sheetOptions ? new SheetWriter(sheetOptions.layout, sheetOptions.pagesPerFile) : null;
  const manifest = new DeflatedText();
  manifest.write(`\ufeff${csvRow(MANIFEST_COLUMNS)}`);
  const seen = new Set<string>();
  let count = 0;
  let undecoded = 0;
  let latest: Date | undefined;
  const row = (code: PackagedCode, payload: string, svg: DecodeCheck, pdf: DecodeCheck, note: string) => {
    if (!svg.ok || !pdf.ok) undecoded++;
    manifest.write(csvRow([code.codeId, code.uniqueQRCodeID, payload, code.title, svg.ok, pdf.ok, note]));
  };
  const emit = async (drawn: CodeFiles) => {
    const { code, payload } = drawn;
    if ("refused" in drawn) return row(code, payload, { ok: false }, { ok: false }, `no files: ${drawn.refused}`);
    const mtime = zipTime(code.updatedAt);
    await sink.add(`${code.codeId}.svg`, drawn.svg, true, mtime);
    await sink.add(`${code.codeId}.pdf`, drawn.pdf, false, mtime);
    const notes = [drawn.svgCheck.why, drawn.pdfCheck.why].filter(Boolean);
    if (sheets && drawn.pdfCheck.ok) {
      const closed = await sheets.add(drawn.pdf, shortIdOf(code));
      if (closed) await sink.add(closed.name, closed.data, false, zipTime(latest));
    } else if (sheets) notes.push("left off the label sheets");
    row(code, payload, drawn.svgCheck, drawn.pdfCheck, notes.join("; "));
  };
  const intake = (code: PackagedCode) => {
    if (++count > PACKAGE_CODES_MAX) invalid(`A print package holds at most ${PACKAGE_CODES_MAX} codes`, { max: PACKAGE_CODES_MAX });
    if (typeof code?.codeId !== "string" || !CODE_ID.test(code.codeId)) invalid("Each code needs a codeId of letters, digits, _ or - (it names the files)", { codeId: code?.codeId });
    if (seen.has(code.codeId)) invalid(`Code ${code.codeId} is in the package twice`, { codeId: code.codeId });
    seen.add(code.codeId);
    const mtime = zipTime(code.updatedAt);
    if (!latest || mtime > latest) latest = mtime;
  };
  try {
    for await (const files of inOrder(drawings, depth, intake)) await emit(files);
    const last = await sheets?.close();
    if (last) await sink.add(last.name, last.data, false, zipTime(latest));
    await sink.addDeflated(manifest, "manifest.csv", zipTime(latest));
    const files = sink.entries;
    await sink.end();
    return { files, codes: count, undecoded, sheetPages: sheets?.pages ?? 0, bytes: sink.bytes };
  } catch (error) {
    sink.abort(error);
    throw error;
  }
}

// ---- a package in parts ---------------------------------------------------------------------------------
//
// A big package is drawn a slice at a time (jobs/service.ts): each slice's codes are drawn and checked and
// their files written as one part (a ZIP: `<n>.svg`, `<n>.pdf` per code and `codes.json`, what the
// manifest and the sheets need of each), and the package is assembled from the parts at the end, with no
// drawing or decoding left to do. Sheets and the manifest are made only then, so they span slices as if
// the package had been drawn in one go.

/** When a slice stops taking codes (the first limit reached): codes in it, time drawing, bytes written. */
export interface SliceLimits {
  codes: number;
  budgetMs: number;
  bytes: number;
}

interface PartEntry {
  codeId: string;
  uniqueQRCodeID: string;
  title: string;
  updatedAt: string | null;
  payload: string;
  refused?: string;
  svgCheck?: DecodeCheck;
  pdfCheck?: DecodeCheck;
}

const PART_TIME = new Date(1980, 0, 1);

/**
 * Draws codes from `codes` into one part written to `out`, until `codes` ends or a limit of `limits` is
 * reached. Answers how many codes it holds, the last one's id and whether `codes` was used up; the codes
 * drawn past the last limit are dropped (the next slice starts after `lastCodeId`).
 */
export async function writePackagePart(
  codes: AsyncIterable<QrCode> | Iterable<QrCode>,
  options: PrintPackageOptions,
  out: NodeJS.WritableStream,
  limits: SliceLimits,
  clock: () => number = Date.now,
): Promise<{ codes: number; lastCodeId: string | null; exhausted: boolean; bytes: number }> {
  const { sideMm } = checkPrintPackageOptions(options);
  const sink = new ZipSink(out);
  const entries: PartEntry[] = [];
  const started = clock();
  let exhausted = true;
  try {
    for await (const files of inOrder(startDrawings(codes, sideMm), pipelineDepth(options))) {
      const { code, payload } = files;
      const entry: PartEntry = { codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, title: code.title, updatedAt: Number.isFinite(code.updatedAt?.getTime()) ? code.updatedAt.toISOString() : null, payload };
      if ("refused" in files) entry.refused = files.refused;
      else {
        Object.assign(entry, { svgCheck: files.svgCheck, pdfCheck: files.pdfCheck });
        await sink.add(`${entries.length}.svg`, files.svg, true, PART_TIME);
        await sink.add(`${entries.length}.pdf`, files.pdf, false, PART_TIME);
      }
      entries.push(entry);
      if (entries.length >= limits.codes || sink.bytes >= limits.bytes || clock() - started >= limits.budgetMs) {
        exhausted = false;
        break;
      }
    }
    await sink.add("codes.json", Buffer.from(JSON.stringify(entries), "utf8"), true, PART_TIME);
    const bytes = sink.bytes;
    await sink.end();
    return { codes: entries.length, lastCodeId: entries.at(-1)?.codeId ?? null, exhausted, bytes };
  } catch (error) {
    sink.abort(error);
    throw error;
  }
}

/** A part's codes with their files and checks, in the order they were drawn. */
export function readPackagePart(zip: Uint8Array): CodeFiles[] {
  const { unzipSync, strFromU8 } = fflate();
  const files = unzipSync(zip);
  if (!files["codes.json"]) throw new Error("a package part without codes.json");
  const entries = JSON.parse(strFromU8(files["codes.json"])) as PartEntry[];
  return entries.map((e, i): CodeFiles => {
    const code: PackagedCode = { codeId: e.codeId, uniqueQRCodeID: e.uniqueQRCodeID, title: e.title, updatedAt: e.updatedAt ? new Date(e.updatedAt) : (undefined as unknown as Date) };
    if (e.refused !== undefined) return { code, payload: e.payload, refused: e.refused };
    const svg = files[`${i}.svg`];
    const pdf = files[`${i}.pdf`];
    if (!svg || !pdf || !e.svgCheck || !e.pdfCheck) throw new Error(`a package part without the files of its code ${i}`);
    return { code, payload: e.payload, svg: Buffer.from(svg), pdf: Buffer.from(pdf), svgCheck: e.svgCheck, pdfCheck: e.pdfCheck };
  });
}
