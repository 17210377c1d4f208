// Spreadsheet rows for the import: parsed with papaparse, columns found by their header name (in any
// order; `title` and `url` required, `campaign` and `tags` optional), checked with the same field rules the
// server applies, so every bad row is shown with its reason before anything is created.
import Papa from "papaparse";

export const IMPORT_MAX_ROWS = 500;
export const HEADER = ["title", "url", "campaign", "tags"];
const REQUIRED = ["title", "url"];

export interface CheckedRow {
  line: number;
  input: { title: string; destinationUrl: string; campaign?: string; tags?: string[] };
  errors: string[];
}

function urlProblem(url: string): string | null {
  if (!url) return "url is empty";
  if (url.length > 2048) return "url is longer than 2048 characters";
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? null : "url must start with http:// or https://";
  } catch {
    return "url is not an absolute web address";
  }
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
    return { rows: [], fatal: `The first row must name the columns: title and url, optionally campaign and tags, in any order; ${problems.join("; ")}. Fix the header row and choose the file again.` };
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
    if (!title) errors.push("title is empty");
    if (title.length > 200) errors.push("title is longer than 200 characters");
    const bad = urlProblem(url);
    if (bad) errors.push(bad);
    if (campaign.length > 100) errors.push("campaign is longer than 100 characters");
    const tagList = [...new Set(tags.split(/[;|]/).map((t) => t.trim()).filter(Boolean))];
    if (tagList.length > 20) errors.push("more than 20 tags");
    if (tagList.some((t) => t.length > 50)) errors.push("a tag is longer than 50 characters");
    const input: CheckedRow["input"] = { title, destinationUrl: url };
    if (campaign) input.campaign = campaign;
    if (tagList.length) input.tags = tagList;
    return { line: parsed[i + 1].line, input, errors };
  });
  return { rows, fatal: null };
}
