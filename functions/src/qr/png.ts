// Direct PNG encoding of QR matrices. qrcode's own PNG path spends ~24 ms per 512 px image in per-row
// filter selection; a QR image is two colours and axis-aligned, so 1-bit grayscale rows with filter 0,
// each built once per module row and repeated, deflate to a few KB in well under a millisecond.
import { crc32, deflateSync } from "node:zlib";

export interface QrMatrix {
  /** Modules per side. */
  size: number;
  /** size*size entries, 1 = dark. */
  data: Uint8Array;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, payload: Buffer): Buffer {
  const out = Buffer.alloc(12 + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.write(type, 4, "ascii");
  payload.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + payload.length)), 8 + payload.length);
  return out;
}

export const QUIET_ZONE_MODULES = 4;

export interface Layout {
  /** Pixels per module. */
  scale: number;
  /** White pixels before the first module (quiet zone plus centring remainder). */
  offset: number;
  /** Image side in pixels. */
  side: number;
}

/** Integer module scale that fits the code plus a 4-module quiet zone into `side` pixels, centred. */
export function layoutFor(size: number, side: number): Layout {
  const total = size + 2 * QUIET_ZONE_MODULES;
  const scale = Math.max(1, Math.floor(side / total));
  const actualSide = Math.max(side, total * scale);
  const offset = Math.floor((actualSide - size * scale) / 2);
  return { scale, offset, side: actualSide };
}

/** Grayscale pixel rows (0 = black, 255 = white) of the code, for compositing into framed images. */
export function grayPixels(matrix: QrMatrix, side: number): { pixels: Buffer; side: number } {
  const { scale, offset, side: s } = layoutFor(matrix.size, side);
  const pixels = Buffer.alloc(s * s, 255);
  for (let my = 0; my < matrix.size; my++) {
    const rowStart = (offset + my * scale) * s;
    for (let mx = 0; mx < matrix.size; mx++) {
      if (!matrix.data[my * matrix.size + mx]) continue;
      pixels.fill(0, rowStart + offset + mx * scale, rowStart + offset + (mx + 1) * scale);
    }
    for (let k = 1; k < scale; k++) pixels.copyWithin(rowStart + k * s, rowStart, rowStart + s);
  }
  return { pixels, side: s };
}

/** IHDR + IDAT + IEND around already-filtered rows (each row starts with its filter byte). */
function assemblePng(width: number, height: number, bitDepth: number, colorType: number, rows: Buffer, level: number, palette?: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = colorType;
  // compression, filter method and interlace stay 0 (deflate, adaptive filtering with filter 0 rows, none).
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    ...(palette ? [chunk("PLTE", palette)] : []),
    chunk("IDAT", deflateSync(rows, { level })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** An 8-bit indexed PNG; `rows` holds height rows of (1 filter byte + width palette indices). */
export function encodeIndexedPng(width: number, height: number, palette: Buffer, rows: Buffer): Buffer {
  // Level 3: frames are mostly flat colour, so faster levels lose little size (measured in docs/performance.md).
  return assemblePng(width, height, 8, 3, rows, 3, palette);
}

/** A 1-bit grayscale PNG of the code, white background, at least a 4-module quiet zone, `side` px square. */
export function encodeQrPng(matrix: QrMatrix, side = 512): Buffer {
  const { scale, offset, side: s } = layoutFor(matrix.size, side);
  const rowBytes = 1 + Math.ceil(s / 8); // filter byte + packed bits
  const raw = Buffer.alloc(rowBytes * s, 0);
  const whiteRow = Buffer.alloc(rowBytes, 0xff);
  whiteRow[0] = 0;
  // 1 bit per pixel, 1 = white. Start from an all-white row, clear the dark module spans.
  for (let y = 0; y < s; y++) whiteRow.copy(raw, y * rowBytes);
  const row = Buffer.alloc(rowBytes);
  for (let my = 0; my < matrix.size; my++) {
    whiteRow.copy(row);
    for (let mx = 0; mx < matrix.size; mx++) {
      if (!matrix.data[my * matrix.size + mx]) continue;
      const x0 = offset + mx * scale;
      for (let x = x0; x < x0 + scale; x++) row[1 + (x >> 3)] &= ~(0x80 >> (x & 7));
    }
    const y0 = offset + my * scale;
    for (let k = 0; k < scale; k++) row.copy(raw, (y0 + k) * rowBytes);
  }
  return assemblePng(s, s, 1, 0, raw, 6);
}
