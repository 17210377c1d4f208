// Print files of a code, drawn from its record: a PNG at a chosen pixel size, a PDF at a chosen physical
// size, and the print hint (the smallest size that scans from a given distance). No HTTP here.
// A designed code's files are checked like its PNG and SVG: the sized PNG is decoded by both decoders,
// and the PDF paints the same layout as the SVG, which is decoded before the PDF is drawn.
import type { PDFPage } from "pdf-lib";
import { encodedPayload, frameOf, renderCodeSvg, type Drawn } from "./service";
import { FRAME_SIDE, frameSpec, type FrameName } from "../qr/frames";
import { qrMatrixBestFit } from "../qr/matrix";
import { QUIET_ZONE_MODULES, type QrMatrix } from "../qr/png";
import { FRAMED_ERROR_CORRECTION, PLAIN_ERROR_CORRECTION, renderPlainPng } from "../qr/render";
import type { DesignStyle, LogoImage } from "../designs/svg";

const designs = () => require("../designs/design") as typeof import("../designs/design");
const designSvg = () => require("../designs/svg") as typeof import("../designs/svg");
const verify = () => require("../designs/verify") as typeof import("../designs/verify");
/** pdf-lib is loaded only where a PDF is made. */
const pdfLib = () => require("pdf-lib") as typeof import("pdf-lib");

export const PNG_PX_MIN = 150;
/** Largest side a sized PNG is decoded at (besides the usual check sizes below it). */
const CHECK_SIDE_MAX = 1024;
export const PNG_PX_MAX = 4096;
/**
 * The pixel sizes a sized PNG is drawn at. A few fixed sizes, so a cache in front holds a handful of files
 * per code and a caller cannot make every request a fresh render by varying the size; any other value in
 * range is redirected to the nearest of these (print routes), never refused.
 */
export const PNG_PX_SIZES: readonly number[] = [150, 300, 512, 600, 1024, 2048, 4096];

/** The allowed size nearest to `px` (the larger one on a tie). */
export function nearestPngPx(px: number): number {
  return PNG_PX_SIZES.reduce((best, size) => (Math.abs(size - px) <= Math.abs(best - px) ? size : best));
}

export const PDF_MM_MIN = 10;
export const PDF_MM_MAX = 2000;
export const DISTANCE_M_MIN = 0.1;
export const DISTANCE_M_MAX = 100;
/** qrPdfUrl without a size or distance: the smallest size that scans from this far (a counter or a wall). */
export const DEFAULT_PRINT_DISTANCE_M = 1;

/**
 * The print hint's rule of thumb: a code scans from about ten times its width. It holds for codes of
 * about 25 modules a side (the shortest URLs); what a camera resolves is the module, so the rule is kept
 * as a module at least distance / 250, and denser codes grow with their module count.
 */
const DISTANCE_TO_WIDTH = 10;
const REFERENCE_MODULES = 25;
/** Below 20 mm a symbol is hard to aim at, whatever the distance. */
export const MIN_SYMBOL_MM = 20;

/** What a print file draws: the matrix, its style (plain codes are black on white, square), logo and frame. */
interface PrintModel {
  payload: string;
  matrix: QrMatrix;
  style: DesignStyle;
  logo: LogoImage | null;
  frame: FrameName | null;
  designed: boolean;
}

const PLAIN_STYLE: DesignStyle = { foreground: "#000000", background: "#FFFFFF", moduleStyle: "square", eyeStyle: "square", quietZone: QUIET_ZONE_MODULES };

export async function printModel(code: Drawn): Promise<PrintModel> {
  const payload = encodedPayload(code);
  const frame = frameOf(code);
  if (code.design) {
    const design = code.design;
    return { payload, matrix: designs().designMatrix(payload, design), style: design, logo: await designs().designLogo(design), frame, designed: true };
  }
  return { payload, matrix: qrMatrixBestFit(payload, frame ? FRAMED_ERROR_CORRECTION : PLAIN_ERROR_CORRECTION), style: PLAIN_STYLE, logo: null, frame, designed: false };
}

interface PrintHint {
  distanceM: number;
  /** Side of the printed file (the code, its quiet zone and any frame), rounded up to a whole millimetre. */
  sideMm: number;
  /** Side of the symbol itself, without quiet zone or frame. */
  symbolMm: number;
  moduleMm: number;
  modules: number;
  rule: string;
}

const PRINT_RULE = `Rule of thumb: the code (without its margin) is at least distance / ${DISTANCE_TO_WIDTH} for a ${REFERENCE_MODULES}-module code (a module of distance / ${DISTANCE_TO_WIDTH * REFERENCE_MODULES}), larger in proportion for denser codes, and never under ${MIN_SYMBOL_MM} mm.`;

/** The smallest print that scans from `distanceM` metres (docs/decisions.md, "Print files"). */
export function printHint(model: Pick<PrintModel, "matrix" | "style" | "frame">, distanceM: number): PrintHint {
  const size = model.matrix.size;
  const moduleMm = Math.max((distanceM * 1000) / (DISTANCE_TO_WIDTH * REFERENCE_MODULES), MIN_SYMBOL_MM / size);
  const codeMm = moduleMm * (size + 2 * model.style.quietZone);
  const fileMm = model.frame ? (codeMm * FRAME_SIDE) / frameSpec(model.frame).box.side : codeMm;
  const round = (v: number) => Math.round(v * 100) / 100;
  return { distanceM, sideMm: Math.ceil(fileMm), symbolMm: round(moduleMm * size), moduleMm: round(moduleMm), modules: size, rule: PRINT_RULE };
}

/** The designed SVG, decoded before any file drawn from the same layout goes out. */
async function checkDesign(code: Drawn): Promise<void> {
  if (code.design) await renderCodeSvg(code);
}

/**
 * The code as a PNG of `px` pixels a side. Plain codes use the direct 1-bit encoder (whole pixels per
 * module); framed and designed codes are their SVG rasterised at that size, and designed ones are decoded
 * by both decoders at that size and the check sizes below it before they are returned.
 */
export async function renderSizedPng(code: Drawn, px: number): Promise<Buffer> {
  const frame = frameOf(code);
  if (!code.design && !frame) return renderPlainPng(encodedPayload(code), px);
  const svg = await renderCodeSvg(code);
  const { sharp, verifyRaster, encodePng, VERIFY_SIDES } = verify();
  const data = await sharp()(Buffer.from(svg), { density: (72 * px) / FRAME_SIDE })
    .resize(px, px, { fit: "fill" })
    .flatten({ background: "#ffffff" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  const raster = { pixels: data, channels: 4 as const, side: px };
  if (code.design) {
    // Large files are checked from a 1024 px reduction (libvips box-averages whole factors): the same
    // pixels a camera gets from a big print, at a fraction of the cost of averaging 16 M pixels per size.
    const checked = px <= CHECK_SIDE_MAX ? raster : { channels: 4 as const, pixels: await sharp()(data, { raw: { width: px, height: px, channels: 4 } }).resize(CHECK_SIDE_MAX, CHECK_SIDE_MAX, { fit: "fill" }).raw().toBuffer(), side: CHECK_SIDE_MAX };
    await verifyRaster(checked, encodedPayload(code), `PNG at ${px} px`, [...new Set([...VERIFY_SIDES.filter((s) => s < px), Math.min(px, CHECK_SIDE_MAX)])]);
  }
  return encodePng(raster);
}

const MM_TO_PT = 72 / 25.4;
/**
 * Frames are artwork with gradients and strokes: embedded as a 300 dpi raster (at most 3000 px, so
 * 250 mm at full resolution; larger signs are seen from further away); the code on them stays vector.
 */
const FRAME_DPI = 300;
const FRAME_PX_MAX = 3000;

function colour(hex: string) {
  const { rgb } = pdfLib();
  return rgb(Number.parseInt(hex.slice(1, 3), 16) / 255, Number.parseInt(hex.slice(3, 5), 16) / 255, Number.parseInt(hex.slice(5, 7), 16) / 255);
}

/** Paints the code (quiet zone included) as vector paths into the square whose top left is (left, top) in PDF points. */
async function paintCode(page: PDFPage, model: PrintModel, left: number, top: number, side: number): Promise<void> {
  const layout = designSvg().designLayout(model.matrix, model.style, model.logo);
  const unit = side / layout.total;
  const fg = colour(model.style.foreground);
  const bg = colour(model.style.background);
  page.drawRectangle({ x: left, y: top - side, width: side, height: side, color: bg });
  // drawSvgPath puts the path's (0,0) at (x, y) and flips y, so module units map straight onto the page.
  const at = { x: left + layout.origin * unit, y: top - layout.origin * unit, scale: unit };
  if (layout.modules) page.drawSvgPath(layout.modules, { ...at, color: fg });
  // The eyes' rings painted dark, light, dark: the same look as the SVG's even-odd fill.
  layout.eyeLayers.forEach((rings, i) => page.drawSvgPath(rings, { ...at, color: i === 1 ? bg : fg }));
  if (model.logo && layout.logo) {
    const image = await page.doc.embedPng(model.logo.png);
    const { x, y, width, height } = layout.logo;
    page.drawImage(image, { x: left + x * unit, y: top - (y + height) * unit, width: width * unit, height: height * unit });
  }
}

/** The code as a one-page PDF, `sideMm` millimetres square: vector modules and eyes, the logo as its PNG. */
export async function renderPdf(code: Drawn, sideMm: number, title: string): Promise<Buffer> {
  await checkDesign(code);
  const model = await printModel(code);
  const { PDFDocument } = pdfLib();
  // No dates in the file: the same code and size give the same bytes.
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(title);
  doc.setProducer("svc");
  const side = sideMm * MM_TO_PT;
  const page = doc.addPage([side, side]);
  if (model.frame) {
    const spec = frameSpec(model.frame);
    const px = Math.min(FRAME_PX_MAX, Math.ceil((sideMm / 25.4) * FRAME_DPI));
    const art = await verify()
      .sharp()(Buffer.from(spec.svg), { density: (72 * px) / FRAME_SIDE })
      .resize(px, px, { fit: "fill" })
      .png()
      .toBuffer();
    page.drawImage(await doc.embedPng(art), { x: 0, y: 0, width: side, height: side });
    const k = side / FRAME_SIDE;
    await paintCode(page, model, spec.box.left * k, side - spec.box.top * k, spec.box.side * k);
  } else {
    await paintCode(page, model, 0, side, side);
  }
  return Buffer.from(await doc.save());
}
