// Spreadsheet rows for the import: parsed with papaparse, columns found by their header name (in whatever
// order; `title` and `url` required, `campaign` and `tags` optional), checked with the same field rules the
// server applies, so every bad row is shown with its reason before anything is created.
import Papa from "papaparse";
import { CAMPAIGN_MAX, IMPORT_MAX_ROWS, TAG_MAX, TAGS_MAX, TITLE_MAX } from "../functions/src/core/limits";
import { textProblem, urlProblem } from "../functions/src/core/rules";

export { IMPORT_MAX_ROWS };
export const HEADER = ["title", "url", "campaign", "tags"];
const REQUIRED = ["title", "url"];

export interface CheckedRow {
  line: number;
  input: { title: string; destinationUrl: string; campaign?: string; tags?: string[] };
  errors: string[];
}

/** Parsed records, each with the spreadsheet line it starts on (1-based; a quoted cell may span lines). */
function records(text: string): Array<{ cells: string[]; line: number }> {
  const src = text.replace(/^\uFEFF/, "");
  const out: Array<{ cells: string[]; line: number }> = [];
  let line = 1;
  let from = 0;
  Papa.parse<string[]>(src, {
    step: (result) => {
      const to = result.meta.cursor;
      const cells = result.data;
      if (cells.some((c) => c.trim() !== "")) out.push({ cells, line });
      for (let i = from; i < to; i++) if (src[i] === "\n") line++;
      from = to;
    },
  });
  return out;
}

/** Checks the header and each row; `fatal` is a problem with the file as a whole, worded for a person. */
export function checkCsv(text: string): { rows: CheckedRow[]; fatal: string | null } {
  const parsed = records(text);
  const table = parsed.map((r) => r.cells);
  if (!table.length) return { rows: [], fatal: "The file is empty. Choose a CSV file whose first row is the header title,url,campaign,tags." };
  const header = table[0].map((h) => h.trim().toLowerCase());
  const unknown = header.filter((name) => !HEADER.includes(name));
  const missing = REQUIRED.filter((name) => !header.includes(name));
  const twice = header.filter((name, i) => header.indexOf(name) !== i);
  if (missing.length || unknown.length || twice.length) {
    const problems = [
      missing.length ? `it has no ${missing.join(" or ")} column` : "",
      unknown.length ? `it has columns this import does not know (${unknown.map((u) => u || "(empty)").join(", ")})` : "",
      twice.length ? `${twice.join(", ")} appears twice` : "",
    ].filter(Boolean);
    return { rows: [], fatal: `The first row must name the columns: title and url, optionally campaign and tags, in whatever order; ${problems.join("; ")}. Fix the header row and choose the file again.` };
  }
  const column = (name: string) => header.indexOf(name);
  const body = table.slice(1);
  if (!body.length) return { rows: [], fatal: "The file has a header but no rows. Add one row per code and choose the file again." };
  if (body.length > IMPORT_MAX_ROWS) return { rows: [], fatal: `At most ${IMPORT_MAX_ROWS} rows per file; this one has ${body.length}. Split it into smaller files and import each.` };
  const rows = body.map((cells, i) => {
    const cell = (name: string) => (column(name) === -1 ? "" : (cells[column(name)] ?? "").trim());
    const [title, url, campaign, tags] = HEADER.map(cell);
    const errors: string[] = [];
    if (cells.length > header.length) errors.push(`${cells.length} columns; the header names ${header.length} (quote values that contain commas)`);
    // The server's own checks (core/rules.ts): the same limits, URL length in normalised UTF-8 bytes.
    const problem = (name: string, message: string | null) => message && errors.push(`${name}: ${message}`);
    problem("title", textProblem(title, TITLE_MAX));
    problem("url", urlProblem(url));
    if (campaign) problem("campaign", textProblem(campaign, CAMPAIGN_MAX));
    const tagList = [...new Set(tags.split(/[;|]/).map((t) => t.trim()).filter(Boolean))];
    if (tagList.length > TAGS_MAX) errors.push(`more than ${TAGS_MAX} tags`);
    for (const t of tagList) problem(`tag "${t.slice(0, 20)}"`, textProblem(t, TAG_MAX));
    const input: CheckedRow["input"] = { title, destinationUrl: url };
    if (campaign) input.campaign = campaign;
    if (tagList.length) input.tags = tagList;
    return { line: parsed[i + 1].line, input, errors };
  });
  return { rows, fatal: null };
}
