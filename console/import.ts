// "Import CSV": check every row first (nothing is created while one row is bad), then create the codes in
// chunks of 50, then offer a ZIP of every code's PNG and SVG. Each chunk's Idempotency-Key comes from the
// file's content and the chunk's rows, not from the click: a retry after a partial failure, a second click
// or the same file after a reload gets the codes already made (the server replays them for 24 hours) and
// creates only what is missing.
import { BULK_MAX_URLS } from "../functions/src/core/limits";
import { checkCsv, IMPORT_MAX_ROWS, type CheckedRow } from "./csv";
import { fileField, h, handled, table } from "./dom";
import { answerMessage, ShownError } from "./errors";
import { saveBlob } from "./files";
import { zip } from "./zip";
import { jobSection } from "./jobs";
import { send, type Answer } from "./api";

type ImportedCode = Answer<"POST /codes/import">["codes"][number];

/** One call creates at most the bulk limit of codes. */
const CHUNK = BULK_MAX_URLS;
const RETRIES = 3;

export interface ImportKit {
  authHeader: () => Promise<Record<string, string>>;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  slug: (s: string) => string;
}

/** SHA-256 of text, hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The chunk's key: the same file and the same rows always give the same key, in every session. */
export async function chunkKey(fileHash: string, rows: CheckedRow[]): Promise<string> {
  return `console-import-${(await sha256(`${fileHash}:${rows.map((r) => r.line).join(",")}`)).slice(0, 48)}`;
}

async function postChunk(kit: ImportKit, rows: CheckedRow["input"][], key: string): Promise<{ codes: ImportedCode[]; replayed: boolean }> {
  let last = "";
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    let res: Response | undefined;
    try {
      res = await send(kit.authHeader, "POST /codes/import", { body: { rows } }, { "Idempotency-Key": key });
    } catch {
      last = "The service could not be reached."; // network failure: the same key makes the retry safe
    }
    if (res) {
      const body: unknown = await res.json().catch(() => undefined);
      if (res.ok && isImported(body)) return { codes: body.codes, replayed: res.headers.get("Idempotent-Replayed") === "true" };
      last = body ? answerMessage(res, body) : `The service answered in a way the console does not understand (HTTP ${res.status}).`;
      if (body && res.status < 500 && res.status !== 409 && res.status !== 429) break;
    }
    await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
  }
  throw new ShownError(last);
}

/** A chunk's answer (a proxy's page that happens to parse as JSON is not one). */
function isImported(body: unknown): body is Answer<"POST /codes/import"> {
  return typeof body === "object" && body !== null && "codes" in body && Array.isArray(body.codes);
}

export function importView(kit: ImportKit): HTMLElement[] {
  const file = fileField("CSV file", h("input", { type: "file", id: "csv-file", accept: ".csv,text/csv" }), "Choose a CSV file…");
  const checks = h("div", { id: "csv-check", "aria-live": "polite" });
  const progress = h("progress", { id: "import-progress", max: "1", value: "0", "aria-label": "Import progress", hidden: "" });
  const status = h("p", { id: "import-status", role: "status" });
  const done = h("div", { id: "import-done" });
  let valid: CheckedRow[] = [];
  let fileHash = "";

  const start = kit.act(
    "Create codes",
    async () => {
      if (!valid.length) return;
      const created: ImportedCode[] = [];
      let earlier = 0;
      progress.hidden = false;
      progress.max = valid.length;
      progress.value = 0;
      for (let i = 0; i < valid.length; i += CHUNK) {
        const chunk = valid.slice(i, i + CHUNK);
        status.textContent = `Creating codes ${i + 1} to ${i + chunk.length} of ${valid.length}…`;
        let answer: { codes: ImportedCode[]; replayed: boolean };
        try {
          answer = await postChunk(kit, chunk.map((r) => r.input), await chunkKey(fileHash, chunk));
        } catch (e) {
          status.textContent = `Rows ${chunk[0].line} to ${chunk.at(-1)!.line} were not created, nor the rows after them. Click Create codes again: codes already made from this file are not made twice.`;
          throw e;
        }
        if (answer.replayed) earlier += answer.codes.length;
        created.push(...answer.codes);
        progress.value = created.length;
      }
      const fresh = created.length - earlier;
      status.textContent = earlier
        ? `Created ${fresh} codes; ${earlier} were created from this file before and were not made again.`
        : `Created ${created.length} codes.`;
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
            if (!png.ok || !svg.ok) throw new ShownError(`The files of "${c.title}" could not be fetched. Click Download ZIP again in a moment.`);
            files.push({ name: `png/${base}.png`, data: new Uint8Array(await png.arrayBuffer()) });
            files.push({ name: `svg/${base}.svg`, data: new Uint8Array(await svg.arrayBuffer()) });
          }
          saveBlob(zip(files), `qr-codes-${new Date().toISOString().slice(0, 10)}.zip`);
        }, { id: "download-zip", class: "primary" }),
      );
    },
    { id: "start-import", class: "primary", disabled: "" },
  );

  file.input.addEventListener("change", handled(async () => {
    const f = file.input.files?.[0];
    done.replaceChildren();
    status.textContent = "";
    progress.hidden = true;
    start.disabled = true;
    start.hidden = false;
    if (!f) return;
    const text = await f.text();
    fileHash = await sha256(text);
    const { rows, fatal } = checkCsv(text);
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
  }, (message) => checks.replaceChildren(h("p", { class: "error", id: "csv-fatal" }, message))));

  return [
    h(
      "section",
      { id: "import", "aria-labelledby": "import-h" },
      h("h1", { id: "import-h" }, "Import codes from a spreadsheet"),
      h("p", { class: "muted" }, `A CSV file whose first row names its columns: title and url, optionally campaign and tags, in whatever order; up to ${IMPORT_MAX_ROWS} rows. Separate several tags with ";". Codes are created as published static codes, ${CHUNK} per call; importing the same file again never makes its codes twice.`),
      file.wrap,
      checks,
      h("div", { class: "actions" }, start),
      progress,
      status,
      done,
    ),
    jobSection(kit),
  ];
}
