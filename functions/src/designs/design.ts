// Brand designs: resolving what a caller sent (a preset by name, overrides, a logo) into the design stored
// on the code, and drawing it. Every designed image is decoded before it is returned or stored; a design
// that fails is refused with a named reason, never altered. Plain codes never come here (qr/render.ts).
import { sha256 } from "../core/hash";
import { AppError } from "../core/errors";
import type { DesignInput } from "./fields";
import type { FrameName } from "../qr/frames";
import { qrMatrixBestFit, type ErrorCorrection } from "../qr/matrix";
import type { QrMatrix } from "../qr/png";
import { readBrandPreset } from "../store/brandPresets";
import type { StoredDesign } from "../store/designRecord";
import { assertContrast } from "./contrast";
import { loadLogo, normalizeLogo, storeLogo } from "./logo";
import { designRefused } from "./refusal";
import { returnPixels } from "./pixelBuffers";
import { drawRaster } from "./raster";
import { designedSvg, designLayout, type LogoImage } from "./svg";
import { decodeSvgBeside } from "./svgCheck";
import { decodeSvg, encodePng, refuseUnlessExact, verifyRaster } from "./verify";

/** The design stored on a code or a preset; its shape lives with the records (store/designRecord.ts). */
export type { StoredDesign } from "../store/designRecord";

export const DEFAULT_DESIGN: StoredDesign = {
  foreground: "#000000",
  background: "#FFFFFF",
  moduleStyle: "square",
  eyeStyle: "square",
  quietZone: 4,
  logo: null,
  preset: null,
};

/** With a logo the centre is covered, so H (30%) is required; without, styled modules get Q like frames. */
const LOGO_ERROR_CORRECTION: readonly ErrorCorrection[] = ["H"];
const STYLED_ERROR_CORRECTION: readonly ErrorCorrection[] = ["Q", "M", "L"];

const upper = (hex: string | undefined) => hex?.toUpperCase();

/**
 * The design a code stores: the named preset (if any), then the fields given. Colours are checked
 * first (cheap), then the logo is re-encoded and stored with the workspace.
 */
export async function resolveDesign(merchantId: string, input: DesignInput): Promise<StoredDesign> {
  let base = DEFAULT_DESIGN;
  if (input.preset) {
    const preset = await readBrandPreset(merchantId, input.preset);
    if (!preset) throw new AppError("NOT_FOUND", `No brand preset named "${input.preset}" in this workspace`, { hint: "Save it first in the console (Settings, Brand presets), or omit preset." });
    base = { ...preset.design, preset: preset.name };
  }
  const design: StoredDesign = {
    foreground: upper(input.foreground) ?? base.foreground,
    background: upper(input.background) ?? base.background,
    moduleStyle: input.moduleStyle ?? base.moduleStyle,
    eyeStyle: input.eyeStyle ?? base.eyeStyle,
    quietZone: input.quietZone ?? base.quietZone,
    logo: base.logo,
    preset: base.preset,
  };
  assertContrast(design.foreground, design.background);
  if (input.logo) design.logo = await storeLogo(merchantId, await normalizeLogo(input.logo.data, input.logo.mediaType));
  return design;
}

/** Colours only, no storage: what the keyless sandbox accepts. */
export function colourDesign(input: { foreground?: string; background?: string }): StoredDesign {
  const design = { ...DEFAULT_DESIGN, foreground: upper(input.foreground) ?? DEFAULT_DESIGN.foreground, background: upper(input.background) ?? DEFAULT_DESIGN.background };
  assertContrast(design.foreground, design.background);
  return design;
}

export function designMatrix(payload: string, design: StoredDesign): QrMatrix {
  try {
    return qrMatrixBestFit(payload, design.logo ? LOGO_ERROR_CORRECTION : STYLED_ERROR_CORRECTION);
  } catch (error) {
    if (!design.logo) throw error;
    throw designRefused("too-long-for-logo", `The encoded text (${Buffer.byteLength(payload)} bytes) does not fit a QR code at error correction H, which a logo needs`, "Use a dynamic code (it encodes a short link), a shorter URL, or no logo.");
  }
}

/** Draws a design with its logo's pixels at hand (no storage); contrast is checked again, as stored designs may predate a rule. */
export function drawDesign(payload: string, design: StoredDesign, logo: LogoImage | null, frame: FrameName | null): string {
  assertContrast(design.foreground, design.background);
  return designedSvg(designMatrix(payload, design), design, logo, frame);
}

async function drawSvg(payload: string, design: StoredDesign, frame: FrameName | null): Promise<string> {
  return drawDesign(payload, design, await designLogo(design), frame);
}

/** The logo's pixels of a stored design, or null. */
export async function designLogo(design: StoredDesign): Promise<LogoImage | null> {
  return design.logo ? loadLogo(design.logo) : null;
}

/** Hashes of SVG documents this instance has decoded already: drawing is deterministic, checking once is enough. */
const verifiedSvgs = new Set<string>();
const VERIFIED_MAX = 10_000;

const svgHash = (svg: string) => sha256(svg, "hex");

function rememberVerified(hash: string): void {
  if (verifiedSvgs.size >= VERIFIED_MAX) verifiedSvgs.clear();
  verifiedSvgs.add(hash);
}

/** Both files of a design, each decoded by both decoders at three sizes before either is returned. */
export async function renderDesignedFiles(payload: string, design: StoredDesign, frame: FrameName | null): Promise<{ png: Buffer; svg: string }> {
  return checkedFiles(payload, design, await designLogo(design), frame);
}

/**
 * The PNG is a 1024 px raster drawn straight from the design's layout (designs/raster.ts), decoded at
 * three sizes and returned losslessly encoded: the checked pixels. The SVG is written from the same layout
 * and checked on its own rendering (librsvg at 600 px), so a code whose SVG would be refused when served
 * is never made. That check runs in a worker thread (svgCheck.ts), and sharp encodes on libvips' threads,
 * while the PNG's pixels are drawn and decoded here.
 */
export async function checkedFiles(payload: string, design: StoredDesign, logo: LogoImage | null, frame: FrameName | null): Promise<{ png: Buffer; svg: string }> {
  assertContrast(design.foreground, design.background);
  const matrix = designMatrix(payload, design);
  const layout = designLayout(matrix, design, logo);
  const svg = designedSvg(matrix, design, logo, frame, layout);
  const hash = svgHash(svg);
  const svgOutcomes = verifiedSvgs.has(hash) ? null : decodeSvgBeside(svg, payload);
  svgOutcomes?.catch(() => undefined); // awaited below unless the PNG is refused first
  const raster = await drawRaster(matrix, design, logo, frame, layout);
  const png = encodePng(raster);
  const checked = verifyRaster(raster, payload);
  // The raster's buffer goes back to the pool only once both the encoder and the decoders are done with it.
  void Promise.allSettled([png, checked]).then(() => returnPixels(raster.pixels));
  await checked;
  if (svgOutcomes) {
    refuseUnlessExact(await svgOutcomes, payload, "SVG");
    rememberVerified(hash);
  }
  return { png: await png, svg };
}

/** Decodes a drawn SVG document as a viewer shows it (librsvg at 600 px, then 300 and 150), once per instance per document. */
export async function checkedSvg(svg: string, payload: string): Promise<string> {
  const hash = svgHash(svg);
  if (!verifiedSvgs.has(hash)) {
    refuseUnlessExact(await decodeSvg(svg, payload), payload, "SVG");
    rememberVerified(hash);
  }
  return svg;
}

/** The designed SVG, decoded before it is returned. */
export async function renderDesignedSvg(payload: string, design: StoredDesign, frame: FrameName | null): Promise<string> {
  return checkedSvg(await drawSvg(payload, design, frame), payload);
}
