// GS1 primary keys and key qualifiers as a GS1 Digital Link URI path carries them (GS1 Digital Link: URI
// Syntax), with check digits checked here so that a refusal can say what is wrong. The whole URI is also
// checked against GS1's grammar by digital-link.js (gs1/grammar.ts) where it matters; this table gives the
// clear messages and the canonical form (GTIN-8/12/13 padded to 14 digits).

/** GS1 AI encodable character set 82 (GS1 General Specifications, figure 7.11-1). */
const CSET82 = "[!\"%&'()*+,\\-./0-9:;<=>?A-Z_a-z]";
/** GS1 AI encodable character set 39. */
const CSET39 = "[#\\-/0-9A-Z]";

const cset82 = (max: number) => new RegExp(`^${CSET82}{1,${max}}$`);
const digits = (n: number) => new RegExp(`^[0-9]{${n}}$`);
const upToDigits = (max: number) => new RegExp(`^[0-9]{1,${max}}$`);

export interface QualifierDef {
  ai: string;
  name: string;
  pattern: RegExp;
  /** How the value looks, for error messages. */
  shape: string;
}

export interface PrimaryKeyDef {
  ai: string;
  /** GS1 short name (gtin, gln, sscc...). */
  name: string;
  title: string;
  pattern: RegExp;
  shape: string;
  /** The digits covered by the mod-10 check digit: [start, end) of the value, the check digit at end - 1. */
  check?: { start: number; end: number };
  /** Qualifiers in the order the path must give them (each optional, none repeated). */
  qualifiers: QualifierDef[];
}

const LOT: QualifierDef = { ai: "10", name: "lot", pattern: cset82(20), shape: "1 to 20 characters of GS1 set 82" };
const SERIAL: QualifierDef = { ai: "21", name: "ser", pattern: cset82(20), shape: "1 to 20 characters of GS1 set 82" };
const CPV: QualifierDef = { ai: "22", name: "cpv", pattern: cset82(20), shape: "1 to 20 characters of GS1 set 82" };

const n13 = (ai: string, name: string, title: string, qualifiers: QualifierDef[] = []): PrimaryKeyDef => ({
  ai, name, title, pattern: digits(13), shape: "13 digits", check: { start: 0, end: 13 }, qualifiers,
});

/**
 * The primary keys GS1 Digital Link URI Syntax 1.x defines and the resolver description declares
 * (the description file schema's enum, less 8013, whose check pair is not a mod-10 digit).
 */
export const PRIMARY_KEYS: readonly PrimaryKeyDef[] = [
  // GTIN-8, -12 and -13 are accepted and padded to 14 digits (canonicalKeyValue).
  { ai: "01", name: "gtin", title: "GTIN", pattern: /^([0-9]{8}|[0-9]{12,14})$/, shape: "8, 12, 13 or 14 digits", check: { start: 0, end: 14 }, qualifiers: [CPV, LOT, SERIAL] },
  { ai: "8006", name: "itip", title: "ITIP", pattern: digits(18), shape: "18 digits", check: { start: 0, end: 14 }, qualifiers: [CPV, LOT, SERIAL] },
  { ai: "8010", name: "cpid", title: "CPID", pattern: new RegExp(`^${CSET39}{1,30}$`), shape: "1 to 30 characters of GS1 set 39", qualifiers: [{ ai: "8011", name: "cpsn", pattern: upToDigits(12), shape: "1 to 12 digits" }] },
  n13("414", "gln", "GLN", [{ ai: "254", name: "glnx", pattern: cset82(20), shape: "1 to 20 characters of GS1 set 82" }]),
  n13("415", "payTo", "Pay-to GLN", [{ ai: "8020", name: "refNo", pattern: cset82(25), shape: "1 to 25 characters of GS1 set 82" }]),
  n13("417", "partyGln", "Party GLN"),
  n13("410", "shipTo", "Ship-to GLN"),
  n13("411", "billTo", "Bill-to GLN"),
  n13("412", "purchasedFrom", "Purchased-from GLN"),
  n13("413", "shipFor", "Ship-for GLN"),
  { ai: "8017", name: "gsrnp", title: "GSRN (provider)", pattern: digits(18), shape: "18 digits", check: { start: 0, end: 18 }, qualifiers: [{ ai: "8019", name: "srin", pattern: upToDigits(10), shape: "1 to 10 digits" }] },
  { ai: "8018", name: "gsrn", title: "GSRN (recipient)", pattern: digits(18), shape: "18 digits", check: { start: 0, end: 18 }, qualifiers: [{ ai: "8019", name: "srin", pattern: upToDigits(10), shape: "1 to 10 digits" }] },
  { ai: "255", name: "gcn", title: "GCN", pattern: /^[0-9]{13}[0-9]{0,12}$/, shape: "13 digits and up to 12 more", check: { start: 0, end: 13 }, qualifiers: [] },
  { ai: "00", name: "sscc", title: "SSCC", pattern: digits(18), shape: "18 digits", check: { start: 0, end: 18 }, qualifiers: [] },
  { ai: "253", name: "gdti", title: "GDTI", pattern: new RegExp(`^[0-9]{13}${CSET82}{0,17}$`), shape: "13 digits and up to 17 characters of GS1 set 82", check: { start: 0, end: 13 }, qualifiers: [] },
  { ai: "401", name: "ginc", title: "GINC", pattern: cset82(30), shape: "1 to 30 characters of GS1 set 82", qualifiers: [] },
  { ai: "402", name: "gsin", title: "GSIN", pattern: digits(17), shape: "17 digits", check: { start: 0, end: 17 }, qualifiers: [] },
  { ai: "8003", name: "grai", title: "GRAI", pattern: new RegExp(`^0[0-9]{13}${CSET82}{0,16}$`), shape: "0, 13 digits and up to 16 characters of GS1 set 82", check: { start: 1, end: 14 }, qualifiers: [] },
  { ai: "8004", name: "giai", title: "GIAI", pattern: cset82(30), shape: "1 to 30 characters of GS1 set 82", qualifiers: [] },
];

const BY_AI = new Map(PRIMARY_KEYS.map((k) => [k.ai, k]));
const BY_NAME = new Map(PRIMARY_KEYS.map((k) => [k.name.toLowerCase(), k]));

export const SUPPORTED_PRIMARY_KEYS: readonly string[] = PRIMARY_KEYS.map((k) => k.ai);

/** A primary key by AI ("01") or short name ("gtin"). */
export function primaryKeyDef(aiOrName: string): PrimaryKeyDef | undefined {
  return BY_AI.get(aiOrName) ?? BY_NAME.get(aiOrName.toLowerCase());
}

/** The GS1 mod-10 check digit of `body` (the digits before it). */
export function checkDigitOf(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = body.charCodeAt(body.length - 1 - i) - 48;
    sum += d * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

export class Gs1SyntaxError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
    this.name = "Gs1SyntaxError";
  }
}

/** The canonical value: a GTIN padded to 14 digits; every other key as given. */
export function canonicalKeyValue(def: PrimaryKeyDef, value: string): string {
  return def.ai === "01" ? value.padStart(14, "0") : value;
}

/** Checks a primary key's value (format and check digit) and returns its canonical form, or throws a Gs1SyntaxError. */
export function checkKeyValue(def: PrimaryKeyDef, raw: string): string {
  if (!def.pattern.test(raw)) throw new Gs1SyntaxError(`${def.title} (AI ${def.ai}) must be ${def.shape}; got "${truncate(raw)}"`, "key");
  const value = canonicalKeyValue(def, raw);
  if (def.check) {
    const { start, end } = def.check;
    const body = value.slice(start, end - 1);
    const given = Number(value[end - 1]);
    const expected = checkDigitOf(body);
    if (given !== expected) {
      throw new Gs1SyntaxError(`${def.title} ${raw} has a wrong check digit: ${given}, expected ${expected}`, "key");
    }
  }
  return value;
}

export interface Qualifier {
  ai: string;
  value: string;
}

/** Checks qualifiers against the key's list: known, allowed values, in the standard's order, none twice. */
export function checkQualifiers(def: PrimaryKeyDef, qualifiers: readonly Qualifier[]): Qualifier[] {
  let last = -1;
  return qualifiers.map((q) => {
    const index = def.qualifiers.findIndex((d) => d.ai === q.ai);
    if (index < 0) {
      const allowed = def.qualifiers.map((d) => `${d.ai} (${d.name})`).join(", ") || "none";
      throw new Gs1SyntaxError(`AI ${q.ai} is not a key qualifier of ${def.title} (AI ${def.ai}); allowed: ${allowed}`, "qualifiers");
    }
    if (index <= last) {
      throw new Gs1SyntaxError(`Key qualifiers of ${def.title} must come in the order ${def.qualifiers.map((d) => d.ai).join(", ")}, each at most once`, "qualifiers");
    }
    last = index;
    const qd = def.qualifiers[index];
    if (!qd.pattern.test(q.value)) throw new Gs1SyntaxError(`AI ${q.ai} (${qd.name}) must be ${qd.shape}; got "${truncate(q.value)}"`, "qualifiers");
    return { ai: q.ai, value: q.value };
  });
}

export interface ParsedPath {
  key: PrimaryKeyDef;
  /** Canonical value (GTIN padded to 14). */
  value: string;
  qualifiers: Qualifier[];
  /** Whether the path ended with a slash (tolerated). */
  trailingSlash: boolean;
}

/** Percent-decodes one path segment, refusing a malformed escape. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Gs1SyntaxError(`Malformed percent-encoding in "${truncate(segment)}"`);
  }
}

/**
 * Parses the path of a GS1 Digital Link URI (`/01/09506000134352/10/ABC`), tolerating one trailing slash.
 * Only the uncompressed form without a custom path prefix: the resolver serves keys at the host's root.
 */
export function parseDigitalLinkPath(path: string): ParsedPath {
  const trailingSlash = path.length > 1 && path.endsWith("/");
  const trimmed = trailingSlash ? path.slice(0, -1) : path;
  if (!trimmed.startsWith("/")) throw new Gs1SyntaxError("The path must start with /");
  const segments = trimmed.slice(1).split("/");
  if (segments.some((s) => s === "")) throw new Gs1SyntaxError("The path has an empty segment");
  if (segments.length % 2 !== 0) throw new Gs1SyntaxError("A GS1 Digital Link path is pairs of /AI/value: a value is missing");
  const [ai, rawValue, ...rest] = segments.map(decodeSegment);
  const key = primaryKeyDef(ai);
  if (!key || !/^[0-9]+$/.test(ai)) {
    throw new Gs1SyntaxError(`"${truncate(ai)}" is not a GS1 primary key this resolver supports (${SUPPORTED_PRIMARY_KEYS.join(", ")})`);
  }
  const value = checkKeyValue(key, rawValue);
  const pairs: Qualifier[] = [];
  for (let i = 0; i < rest.length; i += 2) pairs.push({ ai: rest[i], value: rest[i + 1] });
  return { key, value, qualifiers: checkQualifiers(key, pairs), trailingSlash };
}

/** GS1 Digital Link path segments are percent-encoded: everything outside unreserved characters. */
const encodeValue = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The canonical path of a key and its qualifiers (`/01/09506000134352/10/ABC`). */
export function pathOf(ai: string, value: string, qualifiers: readonly Qualifier[] = []): string {
  return [`/${ai}/${encodeValue(value)}`, ...qualifiers.map((q) => `/${q.ai}/${encodeValue(q.value)}`)].join("");
}

/** The paths from the most specific to the primary key alone: /01/X/10/L/21/S, /01/X/10/L, /01/X. */
export function levelPathsOf(ai: string, value: string, qualifiers: readonly Qualifier[]): string[] {
  const paths: string[] = [];
  for (let n = qualifiers.length; n >= 0; n--) paths.push(pathOf(ai, value, qualifiers.slice(0, n)));
  return paths;
}

function truncate(s: string, max = 40): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
