// Downloads made in the page: files from our hosts are fetched and saved with a proper name (a plain
// link's download attribute is ignored for other origins, such as the Storage host of the PNGs).
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function downloadUrl(url: string, filename: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`Download failed: ${res.status}`);
  saveBlob(await res.blob(), filename);
}

/** One CSV field: quoted when needed, and a leading formula character neutralised for spreadsheets. */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface ScanRow {
  at: string;
  date: string;
  city: string | null;
  state: string | null;
  source: string;
  country?: string;
  device?: string;
  os?: string;
  browser?: string;
  unique?: boolean;
  /** The campaign rule that answered the scan (null: the code's destination) and its A/B variant; absent without rules. */
  rule?: number | null;
  variant?: number | null;
}

/** The listed scans as CSV; earlier columns keep their order as columns are added (rule, variant last). */
export function scansCsv(scans: ScanRow[]): string {
  const lines = [["at", "date", "city", "state", "source", "country", "device", "os", "browser", "unique", "rule", "variant"].join(",")];
  const rule = (s: ScanRow) => (s.rule === undefined ? "" : s.rule === null ? "destination" : String(s.rule + 1));
  const variant = (s: ScanRow) => (s.variant === undefined || s.variant === null ? "" : String(s.variant + 1));
  for (const s of scans) lines.push([s.at, s.date, s.city, s.state, s.source, s.country, s.device, s.os, s.browser, s.unique === undefined ? "" : String(s.unique), rule(s), variant(s)].map(csvField).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
