// QR matrices from the `qrcode` package (its encoder only; PNG writing is ours, see png.ts).
import type { QrMatrix } from "./png";

export type ErrorCorrection = "L" | "M" | "Q" | "H";

export function qrMatrix(text: string, errorCorrectionLevel: ErrorCorrection = "M"): QrMatrix {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const QRCode = require("qrcode") as typeof import("qrcode");
  const qr = QRCode.create(text, { errorCorrectionLevel });
  return { size: qr.modules.size, data: qr.modules.data as unknown as Uint8Array };
}
