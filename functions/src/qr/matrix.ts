// QR matrices from the `qrcode` package (its encoder only; PNG writing is ours, see png.ts).
import type { QrMatrix } from "./png";

export type ErrorCorrection = "L" | "M" | "Q" | "H";

export function qrMatrix(text: string, errorCorrectionLevel: ErrorCorrection = "M"): QrMatrix {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const QRCode = require("qrcode") as typeof import("qrcode");
  const qr = QRCode.create(text, { errorCorrectionLevel });
  return { size: qr.modules.size, data: qr.modules.data as unknown as Uint8Array };
}

/** The first level in `preferred` (strongest first) whose capacity holds `text`. */
export function qrMatrixBestFit(text: string, preferred: readonly ErrorCorrection[]): QrMatrix & { level: ErrorCorrection } {
  let lastError: unknown;
  for (const level of preferred) {
    try {
      return { ...qrMatrix(text, level), level };
    } catch (error) {
      lastError = error; // too much data for this level: try a weaker one
    }
  }
  throw lastError;
}
