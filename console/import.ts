// "Import CSV": check every row first (nothing is created while any row is bad), then create the codes in
// chunks of 50, each with its own Idempotency-Key so a retried chunk never doubles, then offer a ZIP of
// every code's PNG and SVG.
import { checkCsv, HEADER, IMPORT_MAX_ROWS, type CheckedRow } from "./csv";
import { field, h, table } from "./dom";
import { saveBlob } from "./files";
import { zip } from "./zip";

export const CHUNK = 50;
const RETRIES = 3;

export interface ImportKit {
  authHeader: () => Promise<Record<string, string>>;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  slug: (s: string) => string;
}

async function postChunk(kit: ImportKit, rows: CheckedRow["input"][], key: string): Promise<any[]> {
  let last: unknown;
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    try {
      const res = await fetch("/api/console/codes/import", {
        method: "POST",
        headers: { ...(await kit.authHeader()), "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ rows }),
      });
      const body = await res.json();
      if (res.ok) return body.codes;
      if (res.status < 500 && res.status !== 409) throw Object.assign(new Error(body.message ?? res.statusText), { final: true });
      last = new Error(body.message ?? res.statusText);
    } catch (e) {
      if ((e as { final?: boolean }).final) throw e;
      last = e; // network failure: the same key makes the retry safe
    }
    await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
  }
  throw last;
}

export function importView(kit: ImportKit): HTMLElement[] {
  const file = field("CSV file", h("input", { type: "file", id: "csv-file", accept: ".csv,text/csv" }));
  const checks = h("div", { id: "csv-check", "aria-live": "polite" });
  const progress = h("progress", { id: "import-progress", max: "1", value: "0", "aria-label": "Import progress", hidden: "" });
  const status = h("p", { id: "import-status", role: "status" });
  const done = h("div", { id: "import-done" });
  let valid: CheckedRow[] = [];

  const start = kit.act(
    "Create codes",
    async () => {
      if (!valid.length) return;
      const batchId = crypto.randomUUID();
      const created: any[] = [];
      progress.hidden = false;
      progress.max = valid.length;
      for (let i = 0; i < valid.length; i += CHUNK) {
        const chunk = valid.slice(i, i + CHUNK).map((r) => r.input);
        status.textContent = `Creating codes ${i + 1} to ${i + chunk.length} of ${valid.length}…`;
        created.push(...(await postChunk(kit, chunk, `console-import-${batchId}-${i / CHUNK}`)));
        progress.value = created.length;
      }
      status.textContent = `Created ${created.length} codes.`;
      valid = []; // this file is done: a second click must not make the codes again
      start.hidden = true;
      done.replaceChildren(
        kit.act("Download ZIP of PNGs and SVGs", async () => {
          const files: Array<{ name: string; data: Uint8Array }> = [];
          const used = new Set<string>();
          for (const [n, c] of created.entries()) {
            let base = `${String(n + 1).padStart(3, "0")}-${kit.slug(c.title)}`;
            while (used.has(base)) base += "-x";
            used.add(base);
            const [png, svg] = await Promise.all([fetch(c.qrImageUrl), fetch(c.qrSvgUrl)]);
            if (!png.ok || !svg.ok) throw new Error(`Could not fetch the files of ${c.title}`);
            files.push({ name: `png/${base}.png`, data: new Uint8Array(await png.arrayBuffer()) });
            files.push({ name: `svg/${base}.svg`, data: new Uint8Array(await svg.arrayBuffer()) });
          }
          saveBlob(zip(files), `qr-codes-${new Date().toISOString().slice(0, 10)}.zip`);
        }, { id: "download-zip", class: "primary" }),
      );
    },
    { id: "start-import", class: "primary", disabled: "" },
  );

  file.input.addEventListener("change", async () => {
    const f = (file.input as HTMLInputElement).files?.[0];
    done.replaceChildren();
    status.textContent = "";
    progress.hidden = true;
    start.disabled = true;
    if (!f) return;
    const { rows, fatal } = checkCsv(await f.text());
    if (fatal) {
      checks.replaceChildren(h("p", { class: "error", id: "csv-fatal" }, fatal));
      return;
    }
    const bad = rows.filter((r) => r.errors.length);
    valid = bad.length ? [] : rows;
    checks.replaceChildren(
      h("p", { id: "csv-summary", class: bad.length ? "error" : "notice" }, bad.length ? `${bad.length} of ${rows.length} rows need fixing. Nothing is created until every row is valid.` : `All ${rows.length} rows are valid.`),
      table(
        ["Row", "Title", "URL", "Check"],
        rows.map((r) => [String(r.line), h("span", { class: "long" }, r.input.title), h("span", { class: "long url" }, r.input.destinationUrl), r.errors.length ? h("span", { class: "row-error" }, r.errors.join("; ")) : "OK"]),
        { id: "csv-rows", caption: "Check of each row" },
        (i): Record<string, string> => ({ "data-line": String(rows[i].line), ...(rows[i].errors.length ? { class: "bad-row" } : {}) }),
      ),
    );
    start.disabled = bad.length > 0;
  });

  return [
    h(
      "section",
      { id: "import", "aria-labelledby": "import-h" },
      h("h1", { id: "import-h" }, "Import codes from a spreadsheet"),
      h("p", { class: "muted" }, `A CSV file with the header ${HEADER.join(",")} and up to ${IMPORT_MAX_ROWS} rows. Separate several tags with ";". Codes are created as published static codes, 50 per call.`),
      file.wrap,
      checks,
      h("div", { class: "actions" }, start),
      progress,
      status,
      done,
    ),
  ];
}
