// QR matrices from the `qrcode` package's encoder, with a faster mask choice. qrcode evaluates the 8
// mask patterns through per-module function calls (~0.7 ms of a ~0.85 ms create for a typical URL);
// here the code is built once with mask 0 and every mask's penalty is computed on typed arrays with
// the same rules, so the result is module-for-module what `QRCode.create` picks (a unit test checks).
import type { QrMatrix } from "./png";
import { AppError } from "../core/errors";

export type ErrorCorrection = "L" | "M" | "Q" | "H";

type QRCodeModule = typeof import("qrcode");
interface FormatInfoModule {
  getEncodedBits(errorCorrectionLevel: unknown, mask: number): number;
}

const qrcode = (): QRCodeModule => require("qrcode") as QRCodeModule;
const formatInfo = (): FormatInfoModule => require("qrcode/lib/core/format-info") as FormatInfoModule;

const MASKS: Array<(i: number, j: number) => boolean> = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

/** Per symbol size: for each mask p, the XOR that turns a mask-0 matrix into a mask-p one. */
const maskDeltas = new Map<number, Uint8Array[]>();

function deltasFor(size: number, reserved: Uint8Array): Uint8Array[] {
  let deltas = maskDeltas.get(size);
  if (!deltas) {
    deltas = MASKS.map((mask) => {
      const delta = new Uint8Array(size * size);
      for (let r = 0; r < size; r++) {
        for (let c = 0; c < size; c++) {
          const k = r * size + c;
          if (!reserved[k]) delta[k] = (MASKS[0](r, c) ? 1 : 0) ^ (mask(r, c) ? 1 : 0);
        }
      }
      return delta;
    });
    maskDeltas.set(size, deltas);
  }
  return deltas;
}

/** Format information placement, as qrcode's setupFormatInfo writes it. */
function setFormatBits(m: Uint8Array, size: number, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const bit = (bits >> i) & 1;
    const vRow = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    m[vRow * size + 8] = bit;
    const hCol = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    m[8 * size + hCol] = bit;
  }
  m[(size - 8) * size + 8] = 1;
}

/** The ISO 18004 mask penalty, computed exactly as qrcode's getPenaltyN1..N4 do. */
export function maskPenalty(m: Uint8Array, size: number): number {
  let n1 = 0;
  let n3 = 0;
  for (let a = 0; a < size; a++) {
    let runRow = 0;
    let runCol = 0;
    let lastRow = -1;
    let lastCol = -1;
    let bitsRow = 0;
    let bitsCol = 0;
    for (let b = 0; b < size; b++) {
      const h = m[a * size + b];
      const v = m[b * size + a];
      if (h === lastRow) runRow++;
      else {
        if (runRow >= 5) n1 += 3 + runRow - 5;
        lastRow = h;
        runRow = 1;
      }
      if (v === lastCol) runCol++;
      else {
        if (runCol >= 5) n1 += 3 + runCol - 5;
        lastCol = v;
        runCol = 1;
      }
      bitsRow = ((bitsRow << 1) & 0x7ff) | h;
      bitsCol = ((bitsCol << 1) & 0x7ff) | v;
      if (b >= 10) {
        if (bitsRow === 0x5d0 || bitsRow === 0x05d) n3++;
        if (bitsCol === 0x5d0 || bitsCol === 0x05d) n3++;
      }
    }
    if (runRow >= 5) n1 += 3 + runRow - 5;
    if (runCol >= 5) n1 += 3 + runCol - 5;
  }
  let n2 = 0;
  let dark = 0;
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const k = r * size + c;
      dark += m[k];
      if (r < size - 1 && c < size - 1) {
        const sum = m[k] + m[k + 1] + m[k + size] + m[k + size + 1];
        if (sum === 0 || sum === 4) n2++;
      }
    }
  }
  const n4 = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  return n1 + n2 * 3 + n3 * 40 + n4 * 10;
}

export function qrMatrix(text: string, errorCorrectionLevel: ErrorCorrection = "M"): QrMatrix {
  const qr = qrcode().create(text, { errorCorrectionLevel, maskPattern: 0 } as import("qrcode").QRCodeOptions);
  const modules = qr.modules as unknown as { size: number; data: Uint8Array; reservedBit: Uint8Array };
  const size = modules.size;
  const deltas = deltasFor(size, modules.reservedBit);
  const level = (qr as unknown as { errorCorrectionLevel: unknown }).errorCorrectionLevel;
  let best = modules.data;
  let bestPenalty = Infinity;
  const candidate = new Uint8Array(size * size);
  for (let p = 0; p < MASKS.length; p++) {
    const delta = deltas[p];
    for (let k = 0; k < candidate.length; k++) candidate[k] = modules.data[k] ^ delta[k];
    setFormatBits(candidate, size, formatInfo().getEncodedBits(level, p));
    const penalty = maskPenalty(candidate, size);
    if (penalty < bestPenalty) {
      bestPenalty = penalty;
      best = candidate.slice();
    }
  }
  return { size, data: best };
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
  // Every level refused: the payload is over the largest code's capacity (2,953 bytes at level L).
  throw new AppError("VALIDATION_FAILED", `Too much data for a QR code: ${Buffer.byteLength(text, "utf8")} bytes`, {
    hint: "Use a shorter URL, or a dynamic code (it encodes a short link).",
    cause: lastError,
  });
}
