// Spreadsheet rows for the import: RFC 4180 parsing and the same field rules the server applies, so every
// bad row is shown with its reason before anything is created.
export const IMPORT_MAX_ROWS = 500;
export const HEADER = ["title", "url", "campaign", "tags"];

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const src = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === ",") row.push(cell), (cell = "");
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      (row = []), (cell = "");
    } else cell += ch;
  }
  if (cell !== "" || row.length) row.push(cell), rows.push(row);
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

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

/** Checks the header and each row; `fatal` is a problem with the file as a whole. */
export function checkCsv(text: string): { rows: CheckedRow[]; fatal: string | null } {
  const table = parseCsv(text);
  if (!table.length) return { rows: [], fatal: "The file is empty." };
  const header = table[0].map((h) => h.trim().toLowerCase());
  if (header.join(",") !== HEADER.join(",") && header.slice(0, 2).join(",") !== "title,url") {
    return { rows: [], fatal: `The first row must be the header ${HEADER.join(",")}.` };
  }
  const body = table.slice(1);
  if (!body.length) return { rows: [], fatal: "The file has a header but no rows." };
  if (body.length > IMPORT_MAX_ROWS) return { rows: [], fatal: `At most ${IMPORT_MAX_ROWS} rows per file; this one has ${body.length}.` };
  const rows = body.map((cells, i) => {
    const [title = "", url = "", campaign = "", tags = ""] = cells.map((c) => c.trim());
    const errors: string[] = [];
    if (cells.length > HEADER.length) errors.push(`${cells.length} columns; expected at most ${HEADER.length} (quote values that contain commas)`);
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
    return { line: i + 2, input, errors };
  });
  return { rows, fatal: null };
}
