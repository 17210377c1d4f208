// What a checkout scanner does with a GS1 Digital Link QR code: it reads the text, decompresses it when it
// is a compressed URI, and takes the GTIN (AI 01) and its qualifiers from the path. Written apart from the
// resolver's parser (keys.ts) on purpose: tests use it as a second opinion on the generated codes.
import { decompressDigitalLink } from "./grammar";

export interface PosRead {
  /** The GTIN-14. */
  gtin: string;
  /** AI 22 (CPV), 10 (lot), 21 (serial), when present. */
  cpv?: string;
  lot?: string;
  serial?: string;
}

const QUALIFIER_FIELDS: Record<string, keyof Omit<PosRead, "gtin">> = { "22": "cpv", "10": "lot", "21": "serial" };

function gtinCheckDigitOk(gtin: string): boolean {
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(gtin[i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(gtin[13]);
}

/** The GTIN and qualifiers a point-of-sale scanner reads from a code's text, or null when it is not a GTIN Digital Link URI. */
export function posRead(text: string): PosRead | null {
  let url: URL;
  try {
    url = new URL(decompressDigitalLink(text) ?? text);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const segments = url.pathname.split("/").slice(1);
  // A custom path prefix may come first: the GTIN is the last /01/ followed by 8 to 14 digits.
  let at = -1;
  for (let i = 0; i + 1 < segments.length; i++) if (segments[i] === "01" && /^\d{8,14}$/.test(segments[i + 1])) at = i;
  if (at < 0) return null;
  const gtin = segments[at + 1].padStart(14, "0");
  if (!gtinCheckDigitOk(gtin)) return null;
  const read: PosRead = { gtin };
  const rest = segments.slice(at + 2);
  if (rest.length % 2 !== 0) return null;
  for (let i = 0; i < rest.length; i += 2) {
    const field = QUALIFIER_FIELDS[rest[i]];
    if (!field) return null;
    try {
      read[field] = decodeURIComponent(rest[i + 1]);
    } catch {
      return null;
    }
  }
  return read;
}
