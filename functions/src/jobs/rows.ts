// The rows of a job: an uploaded JSON array or CSV file becomes up to JOB_MAX_ROWS validated
// code-creation rows, each with its 1-based row number, plus a list of per-row errors. Pure: no I/O, no
// Firestore; the job engine stores what this returns and creates one code per row.
//
// Two kinds of problem:
//   - The file as a whole (empty, too big, binary, not UTF-8, malformed CSV, no URL column, too many rows,
//     a bad mapping): thrown as AppError VALIDATION_FAILED with a hint and `details.problem`.
//   - One row (invalid or non-http URL, too-long field, duplicate external reference, a CSV cell a spreadsheet would run as a formula):
//     returned in `errors`; a row with any error is never in `rows`. Nothing is altered to make it pass.
//
// CSV columns are found by header name: case, spaces, underscores and punctuation do not matter, and common
// synonyms are known (HEADER_SYNONYMS). The console's spreadsheet import headers (title, url, campaign,
// tags; console/csv.ts) map as before. An explicit `mapping` (header -> field) overrides the guess. The
// separator is detected from the header line among "," ";" and tab (Excel's `sep=;` first line is
// honoured), and reported back as `delimiter`.
//
// Exports of other link services are recognised by their headers (or forced with `source`), and their
// short link becomes the row's externalRef (scheme and trailing "/" removed: "bit.ly/AbC123",
// "dub.sh/launch"), so importing the same export twice never creates a code twice:
//   - Dub.co, Links > Export (CSV headers are the column labels of dub's exportLinksColumns,
//     apps/web/lib/zod/schemas/links.ts): "Short link", "Destination URL", "Clicks", "Leads",
//     "Conversions", "Revenue", "Created at", "Link ID", "Updated at", "Tags" (joined with ", "),
//     "Archived". Default export: Short link, Destination URL, Clicks, Created at. Dub exports no title,
//     so the title is made from the URL. Used: Short link (or Link ID when the file has no Short link)
//     -> externalRef, Destination URL -> destinationUrl, Tags -> tags. The column ids of the same list
//     (link, url, createdAt, clicks...) are recognised as well.
//   - Bitly, Links > Export (dashboard CSV): "Link", "Custom Link", "Date created", "Title",
//     "Destination URL", "Engagements", "Status", and "Tags" when present. Bitly's API field names
//     (id / link / bitlink, long_url, title, tags, created_at) are recognised too. Used: Link (else
//     bitlink, else id) -> externalRef, Destination URL / long_url -> destinationUrl, Title -> title,
//     Tags -> tags.
//   Other columns of those exports (clicks, dates, status...) are reported in `unmapped` and ignored.
//
// csv-parse is loaded on first use (require inside the function) so cold starts of functions that import
// this module without parsing CSV stay small.
import type { InfoRecord, Options as CsvOptions } from "csv-parse/sync";
import { z } from "zod";
import { AppError } from "../core/errors";
import { formatIssues, text } from "../core/validation";
import { hasLoneSurrogate } from "../core/rules";
import { BOOST_FRAMES, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";
import { newCodeShape, titleFromUrl, uniqueTags } from "../codes/fields";

import { JOB_MAX_ROWS } from "../core/limits";
export { JOB_MAX_ROWS };
/**
 * Largest job file, in bytes. 10,000 rows of a typical export (a tracked URL of 300 to 600 bytes, a title,
 * tags and the extra columns of a Bitly or Dub export) take 3 to 6 MB; 8 MiB leaves room for that while
 * keeping one parse (buffer, string and records) well inside a 512 MiB function, and about a second of
 * CPU. A file of longest-possible rows does not fit: it is refused with a hint to split it.
 */
export const JOB_MAX_INPUT_BYTES = 8 * 1024 * 1024;
/** An external reference, in characters after trimming. */
export const EXTERNAL_REF_MAX = 200;
/** One CSV record, in bytes: far above any valid row; a longer one is almost always an unclosed quote. */
export const CSV_MAX_RECORD_BYTES = 64 * 1024;
/** Data rows previewMapping shows. */
export const PREVIEW_ROWS = 5;

const formulaStart = /^[=+\-@]/;
const leadingTabOrCr = /^[\t\r]/;
const lineBreakOrTab = /[\t\n\r]/;

/** An id of the row in the caller's own system; the job engine never creates two codes for one. */
export const externalRefSchema = text(EXTERNAL_REF_MAX)
  .refine((value) => !lineBreakOrTab.test(value), "Must be printable: no tabs or line breaks")
  .describe(`Your id for the row (SKU, key, short link...), at most ${EXTERNAL_REF_MAX} characters; unique within the file`);

/**
 * One row of a job: the fields of a new code (codes/fields.ts), without a design (a job has one design
 * for every row, like the console import), with an optional title (made from the URL when absent) and an
 * optional external reference. Strict: an unknown field is a row error.
 */
export const JobRowSchema = z
  .object(newCodeShape)
  .omit({ design: true })
  .extend({
    title: newCodeShape.title.optional(),
    externalRef: externalRefSchema.nullable().optional(),
  })
  .strict();

type JobRowParsed = z.output<typeof JobRowSchema>;
/** A validated row, ready for svc.qr.create: the title is always set, externalRef null when not given. */
export type JobRow = Omit<JobRowParsed, "externalRef" | "title"> & { externalRef: string | null; title: string };
export type JobField = keyof z.input<typeof JobRowSchema>;
export const JOB_FIELDS = ["destinationUrl", "title", "campaign", "tags", "dynamic", "externalRef", "template", "scanBeepSound", "boostFrame", "domainId"] as const satisfies readonly JobField[];

export type JobFormat = "json" | "csv" | "dub" | "bitly";
export type CsvSource = "auto" | "generic" | "dub" | "bitly";
export type Delimiter = "," | ";" | "\t";

export interface RowError {
  /** 1-based data row: the first row after the header (CSV) or items[0] (JSON) is row 1. */
  row: number;
  /** CSV only: the line of the file the row starts on (the header is line 1 unless blank lines precede it). */
  line?: number;
  /** The column as the caller named it: the CSV header, or the JSON field. */
  column?: string;
  field?: JobField;
  message: string;
}

export interface ParsedJobInput {
  format: JobFormat;
  /** CSV: the separator found in the header line. */
  delimiter: Delimiter | null;
  rows: Array<{ row: number; line?: number; value: JobRow }>;
  errors: RowError[];
  /** CSV: source header -> field, for every column used. JSON: empty. */
  mapping: Record<string, JobField>;
  /** CSV: headers not used (unknown, ignored by the mapping, or a second candidate for a field). */
  unmapped: string[];
  /** Things worth showing beside the mapping (a column passed over in favour of another...). */
  warnings: string[];
  /** Data rows read (valid and refused). */
  total: number;
}

export type JobInput =
  | { format: "json"; items: unknown }
  | { format: "csv"; text: string | Uint8Array; mapping?: Record<string, string>; source?: CsvSource };

export interface MappingPreview {
  format: Exclude<JobFormat, "json">;
  delimiter: Delimiter;
  headers: string[];
  mapping: Record<string, JobField>;
  unmapped: string[];
  /** Required fields no column maps to (only destinationUrl is required). */
  missing: JobField[];
  warnings: string[];
  /** The first PREVIEW_ROWS data rows, cell by header, as in the file. */
  sample: Array<{ row: number; line: number; cells: Record<string, string> }>;
  /** What a column may be mapped to. */
  fields: readonly JobField[];
}

// ---------------------------------------------------------------------------------------------- errors

type FileProblem =
  | "invalid_input"
  | "empty"
  | "too_large"
  | "binary"
  | "encoding"
  | "malformed_csv"
  | "no_rows"
  | "too_many_rows"
  | "no_url_column"
  | "duplicate_column"
  | "mapping";

const SAVE_AS_CSV = 'Save the sheet as "CSV UTF-8 (comma delimited)" (Excel: File > Save As; Google Sheets: File > Download > CSV) and upload that file.';

function fileError(problem: FileProblem, message: string, hint: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("VALIDATION_FAILED", message, { hint, details: { problem, ...details } });
}

const count = (n: number) => n.toLocaleString("en-US");

// ---------------------------------------------------------------------------------------------- columns

const normalizeHeader = (header: string): string => header.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * Header names each field is found under (normalised: lower case, letters and digits only), most specific
 * first: when two columns both match a field, the one earlier in its list is used and the other reported.
 */
export const HEADER_SYNONYMS: Record<JobField, readonly string[]> = {
  destinationUrl: ["destinationurl", "url", "longurl", "targeturl", "originalurl", "redirecturl", "weburl", "destination", "target", "link", "href", "website"],
  title: ["title", "name", "label", "codetitle", "codename"],
  campaign: ["campaign", "campaignname"],
  tags: ["tags", "tag"],
  dynamic: ["dynamic", "isdynamic"],
  externalRef: ["externalref", "externalreference", "externalid", "extref", "extid", "reference", "ref", "id", "key", "sku", "rowid", "itemid", "productid"],
  template: ["template"],
  scanBeepSound: ["scanbeepsound", "beepsound", "beep"],
  boostFrame: ["boostframe"],
  // Not "domain": link-shortener exports use it for their own host.
  domainId: ["domainid"],
};

type Profile = ReadonlyArray<readonly [string, JobField]>;

const GENERIC_PROFILE: Profile = JOB_FIELDS.flatMap((field) => HEADER_SYNONYMS[field].map((h) => [h, field] as const));

const DUB_PROFILE: Profile = [
  ["shortlink", "externalRef"],
  ["link", "externalRef"],
  ["linkid", "externalRef"],
  ["destinationurl", "destinationUrl"],
  ["url", "destinationUrl"],
  ["title", "title"],
  ["tags", "tags"],
];

const BITLY_PROFILE: Profile = [
  ["link", "externalRef"],
  ["bitlink", "externalRef"],
  ["id", "externalRef"],
  ["customlink", "externalRef"],
  ["destinationurl", "destinationUrl"],
  ["longurl", "destinationUrl"],
  ["title", "title"],
  ["tags", "tags"],
];

/** Which export a header row is, or null for a generic spreadsheet. */
function detectSource(normalized: readonly string[]): "dub" | "bitly" | null {
  const has = (h: string) => normalized.includes(h);
  if (has("customlink") && has("destinationurl")) return "bitly";
  if (has("longurl") && (has("link") || has("bitlink") || has("id"))) return "bitly";
  if (has("bitlink") && has("destinationurl")) return "bitly";
  if (has("shortlink") && has("destinationurl")) return "dub";
  if (has("link") && has("url") && (has("createdat") || has("clicks")) && !has("longurl")) return "dub";
  return null;
}

const IGNORE = new Set(["", "ignore", "skip", "none", "-"]);

function fieldNamed(value: string): JobField | null {
  const n = normalizeHeader(value);
  return JOB_FIELDS.find((f) => f.toLowerCase() === n) ?? null;
}

const displayHeader = (headers: readonly string[], i: number) => headers[i] || `(column ${i + 1})`;

interface ResolvedColumns {
  columns: Array<{ index: number; header: string; field: JobField }>;
  mapping: Record<string, JobField>;
  unmapped: string[];
  warnings: string[];
}

function resolveColumns(headers: string[], profile: Profile, explicit: Record<string, string> | undefined, warn: boolean): ResolvedColumns {
  const normalized = headers.map(normalizeHeader);
  const assigned = new Map<number, JobField>();
  const ignored = new Set<number>();
  const claimedBy = new Map<JobField, { index: number; explicit: boolean }>();
  const warnings: string[] = [];
  const list = headers.map((_, i) => `"${displayHeader(headers, i)}"`).join(", ");

  for (const [key, value] of Object.entries(explicit ?? {})) {
    let index = headers.indexOf(key);
    if (index === -1) index = headers.findIndex((h) => h.trim() === key.trim());
    if (index === -1) {
      const matches = normalized.flatMap((n, i) => (n && n === normalizeHeader(key) ? [i] : []));
      if (matches.length === 1) index = matches[0];
    }
    if (index === -1) {
      throw fileError("mapping", `The mapping names a column "${key}" that the file does not have; its columns are ${list}.`, "Map the file's own header names, exactly as in its first row.", { column: key });
    }
    if (typeof value !== "string") throw fileError("mapping", `The mapping for "${key}" must be a field name.`, `Map each column to one of ${JOB_FIELDS.join(", ")}, or to "ignore".`);
    if (IGNORE.has(value.trim().toLowerCase())) {
      ignored.add(index);
      continue;
    }
    const field = fieldNamed(value);
    if (!field) {
      throw fileError("mapping", `The mapping sends "${key}" to "${value}", which is not a field.`, `Map each column to one of ${JOB_FIELDS.join(", ")}, or to "ignore".`, { column: key });
    }
    const earlier = claimedBy.get(field);
    if (earlier && earlier.index !== index) {
      throw fileError("mapping", `The mapping sends both "${displayHeader(headers, earlier.index)}" and "${key}" to ${field}.`, "Map one column to each field; map the other to \"ignore\".", { field });
    }
    assigned.set(index, field);
    claimedBy.set(field, { index, explicit: true });
  }

  for (const [name, field] of profile) {
    const indexes = normalized.flatMap((n, i) => (n === name && !assigned.has(i) && !ignored.has(i) ? [i] : []));
    if (!indexes.length) continue;
    const claim = claimedBy.get(field);
    if (claim) {
      if (warn && !claim.explicit) {
        for (const i of indexes) warnings.push(`Column "${displayHeader(headers, i)}" also looks like ${field}; "${displayHeader(headers, claim.index)}" is used. Give a mapping to choose the other.`);
      }
      continue;
    }
    if (indexes.length > 1) {
      throw fileError(
        "duplicate_column",
        `The header names ${field} more than once: ${indexes.map((i) => `"${displayHeader(headers, i)}" (column ${i + 1})`).join(" and ")}.`,
        "Rename or delete one of the columns, or give a mapping that ignores one of them.",
        { field },
      );
    }
    assigned.set(indexes[0], field);
    claimedBy.set(field, { index: indexes[0], explicit: false });
  }

  const columns = [...assigned].sort((a, b) => a[0] - b[0]).map(([index, field]) => ({ index, field, header: displayHeader(headers, index) }));
  const mapping: Record<string, JobField> = {};
  for (const c of columns) mapping[c.header] = c.field;
  const unmapped = headers.flatMap((_, i) => (assigned.has(i) ? [] : [displayHeader(headers, i)]));
  return { columns, mapping, unmapped, warnings };
}

// ---------------------------------------------------------------------------------------------- decoding

/** Input bytes or text to a string without BOM, refusing what is too large, binary or not UTF-8 text. */
function decode(input: string | Uint8Array): string {
  if (typeof input === "string") {
    if (input.length > JOB_MAX_INPUT_BYTES) throw tooLarge(input.length);
    const bytes = Buffer.byteLength(input, "utf8");
    if (bytes > JOB_MAX_INPUT_BYTES) throw tooLarge(bytes);
    refuseJunk(input);
    // A lone surrogate has no UTF-8 form: CSV parsing would turn it into U+FFFD, silently.
    if (hasLoneSurrogate(input)) {
      const line = input.split(/\r\n|\n|\r/).findIndex(hasLoneSurrogate) + 1;
      throw fileError("encoding", `Line ${line} is not valid Unicode text (a lone UTF-16 surrogate).`, SAVE_AS_CSV, { line });
    }
    return input.replace(/^\uFEFF/, "");
  }
  if (input.byteLength > JOB_MAX_INPUT_BYTES) throw tooLarge(input.byteLength);
  const b = input;
  const magic = magicKind(b);
  if (magic) throw magic;
  let decoded: string;
  if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) {
    // Excel's "Unicode Text" export: UTF-16 with a byte order mark (and tabs between cells).
    try {
      decoded = new TextDecoder(b[0] === 0xff ? "utf-16le" : "utf-16be", { fatal: true }).decode(b.subarray(2));
    } catch {
      throw fileError("encoding", "The file starts as UTF-16 text but does not decode as UTF-16.", SAVE_AS_CSV);
    }
  } else {
    if (b.indexOf(0) !== -1) throw binary("it contains NUL bytes");
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(b);
    } catch {
      const loose = new TextDecoder("utf-8").decode(b);
      throw notUtf8(loose);
    }
  }
  refuseJunk(decoded);
  return decoded.replace(/^\uFEFF/, "");
}

function tooLarge(bytes: number): AppError {
  return fileError(
    "too_large",
    `The file is ${(bytes / 1024 / 1024).toFixed(1)} MB; a job takes at most ${JOB_MAX_INPUT_BYTES / 1024 / 1024} MB.`,
    `Split it into files of at most ${count(JOB_MAX_ROWS)} rows and ${JOB_MAX_INPUT_BYTES / 1024 / 1024} MB, and start one job per file.`,
    { maxBytes: JOB_MAX_INPUT_BYTES },
  );
}

function binary(why: string): AppError {
  return fileError("binary", `The file is not a text CSV file: ${why}.`, SAVE_AS_CSV);
}

function lineOfIndex(textValue: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) {
    const c = textValue.charCodeAt(i);
    if (c === 10 || (c === 13 && textValue.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

function notUtf8(textValue: string): AppError {
  const at = textValue.indexOf("\uFFFD");
  const line = at === -1 ? null : lineOfIndex(textValue, at);
  return fileError(
    "encoding",
    `The file is not UTF-8 text${line ? `: line ${line} has characters that do not decode` : ""}. It was probably saved in another encoding (such as Windows-1252 or Mac Roman).`,
    SAVE_AS_CSV,
    line ? { line } : {},
  );
}

function magicKind(b: Uint8Array): AppError | null {
  const starts = (...bytes: number[]) => bytes.every((v, i) => b[i] === v);
  if (starts(0x50, 0x4b, 0x03, 0x04)) return binary("it is a ZIP archive or an Excel workbook (.xlsx)");
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return binary("it is an old Excel workbook (.xls)");
  if (starts(0x25, 0x50, 0x44, 0x46)) return binary("it is a PDF document");
  if (starts(0x1f, 0x8b)) return binary("it is a gzip archive");
  if (starts(0x89, 0x50, 0x4e, 0x47) || starts(0xff, 0xd8, 0xff) || starts(0x47, 0x49, 0x46, 0x38)) return binary("it is an image");
  return null;
}

const SNIFF_CHARS = 64 * 1024;

function refuseJunk(value: string): void {
  if (value.startsWith("PK\u0003\u0004")) throw binary("it is a ZIP archive or an Excel workbook (.xlsx)");
  if (value.startsWith("%PDF-")) throw binary("it is a PDF document");
  if (value.includes("\u0000")) throw binary("it contains NUL characters (a binary file, or UTF-16 text read as UTF-8)");
  const sample = value.slice(0, SNIFF_CHARS);
  let controls = 0;
  let undecodable = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) controls++;
    else if (c === 0xfffd) undecodable++;
  }
  if (controls + undecodable > Math.max(8, sample.length / 100)) throw binary("it is mostly control or undecodable characters");
  if (value.includes("\uFFFD")) throw notUtf8(value);
}

// ---------------------------------------------------------------------------------------------- CSV

const DELIMITERS: readonly Delimiter[] = [",", ";", "\t"];

/** The separator (from Excel's `sep=` line, else the most frequent of , ; tab in the header line) and the text without a `sep=` line. */
function detectDelimiter(value: string): { text: string; delimiter: Delimiter } {
  const sep = /^sep=(.)[ \t]*(?=\r\n|\n|\r|$)/i.exec(value);
  if (sep) {
    const delimiter = DELIMITERS.find((d) => d === sep[1]);
    if (!delimiter) {
      throw fileError("malformed_csv", `The file's first line asks for "${sep[1]}" as the separator; a job file uses a comma, a semicolon or a tab.`, SAVE_AS_CSV);
    }
    // The directive line becomes blank (skipped), so line numbers stay those of the file.
    return { text: value.slice(sep[0].length), delimiter };
  }
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let i = 0;
  while (i < value.length && (value[i] === "\n" || value[i] === "\r")) i++;
  let quoted = false;
  for (const end = Math.min(value.length, i + SNIFF_CHARS); i < end; i++) {
    const c = value[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best: Delimiter = ",";
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return { text: value, delimiter: best };
}

interface CsvRecord {
  cells: string[];
  line: number;
}

/** Line number (1-based) of byte offsets in increasing order, skipping the line breaks at the offset. */
function lineCounter(buf: Buffer): (offset: number) => number {
  let pos = 0;
  let line = 1;
  return (offset: number) => {
    let at = offset;
    while (at < buf.length && (buf[at] === 10 || buf[at] === 13)) at++;
    if (at < pos) {
      pos = 0;
      line = 1;
    }
    for (; pos < at; pos++) {
      const b = buf[pos];
      if (b === 10 || (b === 13 && buf[pos + 1] !== 10)) line++;
    }
    return line;
  };
}

const isBlank = (cells: readonly string[]) => cells.every((c) => c.trim() === "");

/** Non-blank records, at most `limit`, each with the line it starts on. */
function readCsv(value: string, delimiter: Delimiter, limit: number): CsvRecord[] {
  const { parse } = require("csv-parse/sync") as typeof import("csv-parse/sync");
  const buf = Buffer.from(value, "utf8");
  const lineAt = lineCounter(buf);
  let lastEnd = 0;
  const options: CsvOptions<CsvRecord, string[]> = {
    delimiter,
    // Any of the three line endings, even mixed in one file (csv-parse would otherwise keep the first).
    record_delimiter: ["\r\n", "\n", "\r"],
    // A quote inside an unquoted value is a character (5" screen); an unclosed quoted value is an error.
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: CSV_MAX_RECORD_BYTES,
    to: limit,
    on_record: (cells: string[], context: InfoRecord) => {
      const start = lastEnd;
      lastEnd = context.bytes_records;
      return isBlank(cells) ? null : { cells, line: lineAt(start) };
    },
  };
  try {
    return parse(buf, options as unknown as CsvOptions) as unknown as CsvRecord[];
  } catch (error) {
    throw csvError(error, lineAt(lastEnd));
  }
}

function csvError(error: unknown, line: number): AppError {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const quoteHint = 'Look for a " on that line: either close the quoted value, or quote the whole value and double every " inside it ("").';
  if (code === "CSV_QUOTE_NOT_CLOSED") {
    return fileError("malformed_csv", `Line ${line}: a quoted value starts there and is never closed (unbalanced ").`, quoteHint, { line, csvCode: code });
  }
  if (code === "CSV_MAX_RECORD_SIZE") {
    return fileError(
      "malformed_csv",
      `Line ${line}: the row starting there runs past ${CSV_MAX_RECORD_BYTES / 1024} KB, which usually means a quote (") opened there is never closed.`,
      quoteHint,
      { line, csvCode: code },
    );
  }
  if (code === "CSV_INVALID_CLOSING_QUOTE" || code === "INVALID_OPENING_QUOTE" || code === "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE") {
    return fileError("malformed_csv", `Line ${line}: a quoted value is followed by other characters before the next separator.`, quoteHint, { line, csvCode: code });
  }
  return fileError("malformed_csv", `Line ${line}: the file could not be read as CSV${code ? ` (${code})` : ""}.`, SAVE_AS_CSV, { line, ...(code ? { csvCode: code } : {}) });
}

interface PreparedCsv {
  format: Exclude<JobFormat, "json">;
  delimiter: Delimiter;
  headers: string[];
  records: CsvRecord[];
  resolved: ResolvedColumns;
}

function prepareCsv(input: string | Uint8Array, limit: number, mapping: Record<string, string> | undefined, source: CsvSource): PreparedCsv {
  if (typeof input !== "string" && !(input instanceof Uint8Array)) throw fileError("invalid_input", "The CSV file must be given as text.", "Send the file's content as a string (UTF-8).");
  if (mapping !== undefined && (typeof mapping !== "object" || mapping === null || Array.isArray(mapping))) {
    throw fileError("mapping", "The mapping must be an object of column name to field name.", `For example {"Long URL": "destinationUrl", "Name": "title"}.`);
  }
  if (!["auto", "generic", "dub", "bitly"].includes(source)) throw fileError("invalid_input", `Unknown source "${String(source)}".`, "Use auto, generic, dub or bitly.");
  const decoded = decode(input);
  if (decoded.trim() === "") throw fileError("empty", "The file is empty.", "Upload a CSV file whose first row names the columns (at least a url column) and one row per code.");
  const { text: body, delimiter } = detectDelimiter(decoded);
  const records = readCsv(body, delimiter, limit);
  if (!records.length) throw fileError("empty", "The file is empty.", "Upload a CSV file whose first row names the columns (at least a url column) and one row per code.");
  const headers = records[0].cells.map((h) => h.trim());
  const normalized = headers.map(normalizeHeader);
  const detected = source === "auto" ? detectSource(normalized) : source === "generic" ? null : source;
  const profile = detected === "dub" ? DUB_PROFILE : detected === "bitly" ? BITLY_PROFILE : GENERIC_PROFILE;
  // A known export's second candidate (Dub's Link ID beside Short link...) is expected, not worth a warning.
  const resolved = resolveColumns(headers, profile, mapping, !detected);
  return { format: detected ?? "csv", delimiter, headers, records, resolved };
}

function noUrlColumn(headers: string[], delimiter: Delimiter): AppError {
  const names = headers.map((_, i) => `"${displayHeader(headers, i)}"`).join(", ");
  const oneCell = headers.length === 1 && /[|:]/.test(headers[0]);
  return fileError(
    "no_url_column",
    `No column holds the destination URL. The header row names ${names}${headers.length === 1 ? ` (one column, separated by "${delimiter === "\t" ? "tab" : delimiter}")` : ""}.`,
    oneCell
      ? "The file seems to use a separator other than a comma, a semicolon or a tab: save it as CSV UTF-8 (comma delimited)."
      : `Name the column of URLs "url" (or link, destination, long url), or give a mapping such as {"${headers[0] || "Column"}": "destinationUrl"}.`,
    { headers },
  );
}

// ---------------------------------------------------------------------------------------------- rows

const TRUE_WORDS = new Set(["true", "yes", "y", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "0"]);
const ENUMS: Partial<Record<JobField, readonly string[]>> = { template: TEMPLATES, scanBeepSound: SCAN_BEEP_SOUNDS, boostFrame: BOOST_FRAMES };

/** Why a title, campaign or tag would run as a spreadsheet formula, or null. */
function formulaProblem(raw: string): string | null {
  if (!raw.trim()) return null; // a blank cell is no value at all
  if (leadingTabOrCr.test(raw)) return `starts with a ${raw[0] === "\t" ? "tab" : "carriage return"}`;
  const trimmed = raw.trim();
  if (formulaStart.test(trimmed)) return `starts with "${trimmed[0]}"`;
  return null;
}

const formulaMessage = (what: string) =>
  `${what}, which spreadsheet programs run as a formula (formula injection). The row is refused rather than altered: remove the leading character, or reword the value.`;

/** The short link of an export as an id: no scheme, no trailing slash ("https://bit.ly/x/" -> "bit.ly/x"). */
const shortLinkRef = (value: string) => value.trim().replace(/^https?:\/\//i, "").replace(/\/+$/, "");

interface Collected {
  errors: RowError[];
  rows: ParsedJobInput["rows"];
  refs: Map<string, number>;
}

/** Validates one row's values (already split and typed) and files it under rows or errors. */
function finishRow(
  out: Collected,
  row: number,
  line: number | undefined,
  value: Record<string, unknown>,
  preErrors: Array<{ field?: JobField; message: string }>,
  label: (field: JobField | undefined, path: string) => string | undefined,
): void {
  const errors: RowError[] = [];
  const add = (field: JobField | undefined, column: string | undefined, message: string) =>
    errors.push({ row, ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}), ...(field ? { field } : {}), message: column ? `${column}: ${message}` : message });
  for (const e of preErrors) add(e.field, label(e.field, e.field ?? ""), e.message);

  const ref = value.externalRef;
  if (typeof ref === "string" && ref.trim()) {
    const key = ref.trim();
    const first = out.refs.get(key);
    if (first !== undefined) add("externalRef", label("externalRef", "externalRef"), `"${key.length > 60 ? `${key.slice(0, 60)}…` : key}" is already the external reference of row ${first}; each row needs its own`);
    else out.refs.set(key, row);
  }

  const result = JobRowSchema.safeParse(value);
  if (!result.success) {
    for (const issue of formatIssues(result.error)) {
      const [top, index] = issue.path.split(".");
      const field = (JOB_FIELDS as readonly string[]).includes(top) ? (top as JobField) : undefined;
      let message = issue.message;
      if (field === "tags" && index !== undefined && Array.isArray(value.tags)) {
        const tag = String(value.tags[Number(index)] ?? "");
        message = `tag ${Number(index) + 1} ("${tag.length > 20 ? `${tag.slice(0, 20)}…` : tag}"): ${message}`;
      }
      add(field, label(field, issue.path), message);
    }
  }
  if (errors.length || !result.success) {
    out.errors.push(...errors);
    return;
  }
  const data = result.data;
  const { externalRef, title, tags, ...rest } = data;
  const jobRow: JobRow = {
    ...rest,
    externalRef: externalRef ?? null,
    title: title ?? titleFromUrl(data.destinationUrl),
    ...(tags ? { tags: uniqueTags(tags) } : {}),
  };
  out.rows.push({ row, ...(line !== undefined ? { line } : {}), value: jobRow });
}

function csvRows(prepared: PreparedCsv): ParsedJobInput {
  const { records, resolved, format } = prepared;
  const out: Collected = { errors: [], rows: [], refs: new Map() };
  const headerCount = records[0].cells.length;
  const headerOf = new Map(resolved.columns.map((c) => [c.field, c.header] as const));
  const label = (field: JobField | undefined, path: string) => (field ? (headerOf.get(field) ?? field) : path || undefined);
  const isExport = format === "dub" || format === "bitly";

  records.slice(1).forEach((record, i) => {
    const row = i + 1;
    const value: Record<string, unknown> = {};
    const pre: Array<{ field?: JobField; message: string }> = [];
    if (record.cells.length > headerCount) {
      pre.push({ message: `The row has ${record.cells.length} cells; the header names ${headerCount} columns (quote values that contain the separator)` });
    }
    for (const { index, field } of resolved.columns) {
      const raw = record.cells[index] ?? "";
      const trimmed = raw.trim();
      if (field === "title" || field === "campaign" || field === "tags") {
        const problem = formulaProblem(raw);
        if (problem) pre.push({ field, message: formulaMessage(`The value ${problem}`) });
      }
      if (field === "destinationUrl") {
        value.destinationUrl = raw;
        continue;
      }
      if (!trimmed) continue;
      switch (field) {
        case "tags": {
          // The cell's start was checked above; a later tag can start a formula too once split off.
          const pieces = raw.split(/[,;|]/).map((t) => t.trim());
          pieces.forEach((tag, n) => {
            if (n > 0 && formulaStart.test(tag)) pre.push({ field, message: formulaMessage(`Tag ${n + 1} starts with "${tag[0]}"`) });
          });
          // Repeated tags count once, as in the console's import.
          const list = uniqueTags(pieces.filter(Boolean));
          if (list.length) value.tags = list;
          break;
        }
        case "dynamic": {
          const word = trimmed.toLowerCase();
          if (TRUE_WORDS.has(word)) value.dynamic = true;
          else if (FALSE_WORDS.has(word)) value.dynamic = false;
          else pre.push({ field, message: `Must be true or false (yes/no, 1/0); got "${trimmed.slice(0, 20)}"` });
          break;
        }
        case "externalRef":
          value.externalRef = isExport ? shortLinkRef(raw) : raw;
          break;
        case "template":
        case "scanBeepSound":
        case "boostFrame":
          value[field] = ENUMS[field]!.find((v) => v.toLowerCase() === trimmed.toLowerCase()) ?? trimmed;
          break;
        default:
          value[field] = raw;
      }
    }
    finishRow(out, row, record.line, value, pre, label);
  });

  return {
    format,
    delimiter: prepared.delimiter,
    rows: out.rows,
    errors: out.errors,
    mapping: resolved.mapping,
    unmapped: resolved.unmapped,
    warnings: resolved.warnings,
    total: records.length - 1,
  };
}

function jsonRows(items: unknown): ParsedJobInput {
  if (!Array.isArray(items)) {
    throw fileError("invalid_input", "items must be an array of rows.", 'Send {"format": "json", "items": [{"destinationUrl": "https://...", "title": "..."}, ...]}.');
  }
  if (!items.length) throw fileError("no_rows", "items is empty: a job needs at least one row.", "Add one object per code to create.");
  if (items.length > JOB_MAX_ROWS) {
    throw fileError("too_many_rows", `items has ${count(items.length)} rows; a job takes at most ${count(JOB_MAX_ROWS)}.`, `Split the rows into jobs of at most ${count(JOB_MAX_ROWS)}.`, { maxRows: JOB_MAX_ROWS, rows: items.length });
  }
  const out: Collected = { errors: [], rows: [], refs: new Map() };
  const label = (field: JobField | undefined, path: string) => (field ?? (path || undefined));
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    const row = i + 1;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      const what = item === null ? "null" : item === undefined ? "missing" : Array.isArray(item) ? "an array" : `a ${typeof item}`;
      out.errors.push({ row, message: `Each row must be an object with at least destinationUrl; row ${row} is ${what}` });
      continue;
    }
    const value = item as Record<string, unknown>;
    // JSON rows are not spreadsheet cells: "-20% off" is a title like any other here. Files the service
    // writes (manifests, exports) neutralise such values as they write them.
    finishRow(out, row, undefined, value, [], label);
  }
  return { format: "json", delimiter: null, rows: out.rows, errors: out.errors, mapping: {}, unmapped: [], warnings: [], total: items.length };
}

// ---------------------------------------------------------------------------------------------- API

/**
 * A job's input as validated rows and per-row errors. Throws AppError VALIDATION_FAILED (with a hint and
 * `details.problem`) when the input as a whole cannot be used; never any other error.
 */
export function parseJobInput(input: JobInput): ParsedJobInput {
  if (typeof input !== "object" || input === null) throw fileError("invalid_input", "The job input must be an object with a format.", 'Send {"format": "csv", "text": "..."} or {"format": "json", "items": [...]}.');
  if (input.format === "json") return jsonRows(input.items);
  if (input.format !== "csv") {
    throw fileError("invalid_input", `Unknown input format "${String((input as { format?: unknown }).format)}".`, 'Use "csv" (with text) or "json" (with items).');
  }
  // Header, up to JOB_MAX_ROWS data rows and one more: that one is enough to refuse the file without
  // reading (and holding) the rest of it.
  const prepared = prepareCsv(input.text, JOB_MAX_ROWS + 2, input.mapping, input.source ?? "auto");
  const { records, resolved, headers, delimiter } = prepared;
  if (!resolved.columns.some((c) => c.field === "destinationUrl")) throw noUrlColumn(headers, delimiter);
  if (records.length < 2) {
    throw fileError("no_rows", "The file has a header row but no data rows.", "Add one row per code under the header row.");
  }
  if (records.length - 1 > JOB_MAX_ROWS) {
    throw fileError(
      "too_many_rows",
      `The file has more than ${count(JOB_MAX_ROWS)} rows; a job takes at most ${count(JOB_MAX_ROWS)}.`,
      `Split it into files of at most ${count(JOB_MAX_ROWS)} rows and start one job per file.`,
      { maxRows: JOB_MAX_ROWS },
    );
  }
  return csvRows(prepared);
}

/**
 * What parseJobInput would make of a CSV file's columns, for the console's mapping step: the headers, the
 * field each maps to, what is left over and the first rows. Refuses the same files as a whole (empty,
 * binary, malformed start...), but reports a missing URL column in `missing` instead of throwing, so the
 * person can map it.
 */
export function previewMapping(csvText: string | Uint8Array, options: { mapping?: Record<string, string>; source?: CsvSource } = {}): MappingPreview {
  const prepared = prepareCsv(csvText, 1 + PREVIEW_ROWS, options.mapping, options.source ?? "auto");
  const { records, resolved, headers } = prepared;
  const width = Math.max(headers.length, ...records.map((r) => r.cells.length));
  const names = Array.from({ length: width }, (_, i) => displayHeader(headers, i));
  return {
    format: prepared.format,
    delimiter: prepared.delimiter,
    headers: names.slice(0, headers.length),
    mapping: resolved.mapping,
    unmapped: resolved.unmapped,
    missing: resolved.columns.some((c) => c.field === "destinationUrl") ? [] : ["destinationUrl"],
    warnings: resolved.warnings,
    sample: records.slice(1).map((r, i) => ({
      row: i + 1,
      line: r.line,
      cells: Object.fromEntries(r.cells.map((cell, c) => [names[c], cell])),
    })),
    fields: JOB_FIELDS,
  };
}
