// GS1 Digital Link QR codes for packaging that checkout scanners read (issue 37, item 4): point-of-sale
// defaults, no choice given: black on white square modules, no logo, no frame, error correction Q (M when
// the URI is too long for Q; never L), a 4-module quiet zone. Every code is decoded by both decoders at
// three sizes (designs/verify.ts) and read back the way a scanner does (pos.ts) before it is returned.
import { AppError } from "../core/errors";
import { qrMatrixBestFit, type ErrorCorrection } from "../qr/matrix";
import { DEFAULT_DESIGN } from "../designs/design";
import { returnPixels } from "../designs/pixelBuffers";
import { drawRaster } from "../designs/raster";
import { designLayout } from "../designs/svg";
import { encodePng, verifyRaster } from "../designs/verify";
import { compressDigitalLink, decompressDigitalLink } from "./grammar";
import { parseDigitalLinkPath, pathOf } from "./keys";
import { posRead, type PosRead } from "./pos";

export const POS_ERROR_CORRECTION: readonly ErrorCorrection[] = ["Q", "M"];
export const POS_QUIET_ZONE_MODULES = 4;
/**
 * Smallest module (X-dimension) for a GS1 QR code scanned at retail point of sale, in millimetres: the
 * minimum of the GS1 General Specifications' symbol specification table (section 5.12.3.1), 0.396 mm (the
 * range is 0.396 to 0.990 mm; GS1 UK, "How big should a QR code powered by GS1 be?"). The code's minimum
 * print side follows from it (docs/gs1-resolver.md).
 */
export const POS_MIN_MODULE_MM = 0.396;

export interface Gs1QrCode {
  png: Buffer;
  /** The exact text the code holds (the URI, or its compressed form). */
  text: string;
  errorCorrection: ErrorCorrection;
  /** Modules per side, without the quiet zone. */
  modules: number;
  /** Smallest printed side, quiet zone included, in millimetres (rounded up to 0.1 mm). */
  minSideMm: number;
  /** What a point-of-sale scanner reads from it. */
  read: PosRead;
}

/** The URI with its path in canonical form (percent-encoding as pathOf writes it), or undefined when it does not parse. */
function canonical(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    const parsed = parseDigitalLinkPath(url.pathname);
    return `${url.origin}${pathOf(parsed.key.ai, parsed.value, parsed.qualifiers)}`;
  } catch {
    return undefined;
  }
}

/** The compressed form, refused when the library cannot make one that decompresses to `uri` exactly. */
function compressedOrRefused(uri: string): string {
  let compressed: string | undefined;
  try {
    compressed = compressDigitalLink(uri);
  } catch {
    compressed = undefined;
  }
  const back = compressed === undefined ? undefined : decompressDigitalLink(compressed);
  if (compressed === undefined || back === undefined || canonical(back) !== canonical(uri)) {
    throw new AppError(
      "VALIDATION_FAILED",
      "This URI has no faithful compressed form: the compression library refuses lot and serial values holding : ; < = > ? and drops the leading zeros of all-digit values",
      { hint: "Use the uncompressed form (compressed=false)." },
    );
  }
  return compressed;
}

/** The checked point-of-sale QR code of a GS1 Digital Link URI (`https://host/01/<GTIN-14>[/10/lot][/21/serial]`). */
export async function gs1QrCode(uri: string, options: { compressed?: boolean } = {}): Promise<Gs1QrCode> {
  const text = options.compressed ? compressedOrRefused(uri) : uri;
  const expected = posRead(uri);
  const read = posRead(text);
  if (!expected) throw new AppError("VALIDATION_FAILED", "Point-of-sale QR codes are made for GTIN Digital Link URIs only (/01/<GTIN>)");
  if (!read || JSON.stringify(read) !== JSON.stringify(expected)) {
    throw new AppError("INTERNAL", "The GS1 code's text does not read back to the same GTIN and qualifiers");
  }
  const matrix = qrMatrixBestFit(text, POS_ERROR_CORRECTION);
  const design = { ...DEFAULT_DESIGN, quietZone: POS_QUIET_ZONE_MODULES };
  const raster = await drawRaster(matrix, design, null, null, designLayout(matrix, design, null));
  try {
    // Both decoders must read exactly `text`, so a scanner's parse of what they read is `read`.
    await verifyRaster(raster, text, "GS1 code");
    return {
      png: await encodePng(raster),
      text,
      errorCorrection: matrix.level,
      modules: matrix.size,
      minSideMm: Math.ceil((matrix.size + 2 * POS_QUIET_ZONE_MODULES) * POS_MIN_MODULE_MM * 10) / 10,
      read,
    };
  } finally {
    returnPixels(raster.pixels);
  }
}
