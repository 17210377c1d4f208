// "Import CSV" for large files: a catalogue job made in the background (up to 10,000 rows; Dub and Bitly
// exports recognised). The page shows how the columns map before anything is made, then a progress bar
// while the job runs, its counts, the rows it refused, and the print package once built.
import { fileField, h, handled, table } from "./dom";
import type { ImportKit } from "./import";
import { consoleClient, type Answer } from "./api";
import { previewHead } from "../functions/src/core/limits";

const POLL_MS = 1000;

/** A catalogue job as the console reads it (jobs/schemas.ts JobSchema). */
export type Job = Answer<"GET /jobs/:jobId">;

const FIELD_NAMES: Record<string, string> = {
  destinationUrl: "Destination URL",
  title: "Title",
  campaign: "Campaign",
  tags: "Tags",
  dynamic: "Dynamic",
  externalRef: "External reference",
  template: "Frame",
  scanBeepSound: "Scan sound",
  boostFrame: "Boost frame",
};

/** Polls a job until it ends, calling `show` with each state; resolves with the last. */
export async function followJob(read: (jobId: string) => Promise<Job>, job: Pick<Job, "jobId" | "state"> | Job, show: (job: Job) => void): Promise<Job> {
  // A job known only by its id and state (one being followed again) is read before it is shown.
  let current = "progress" in job ? job : await read(job.jobId);
  while (current.state === "running" || current.state === "packaging") {
    show(current);
    await new Promise((r) => setTimeout(r, POLL_MS));
    current = await read(job.jobId);
  }
  show(current);
  return current;
}

export function jobSection(kit: ImportKit): HTMLElement {
  const api = consoleClient(kit.authHeader);
  const input = h("input", { type: "file", id: "job-file", accept: ".csv,text/csv,text/plain" }) as HTMLInputElement;
  const mapping = h("div", { id: "job-mapping", "aria-live": "polite" });
  const publish = h("input", { type: "checkbox", id: "job-publish", checked: "" }) as HTMLInputElement;
  const printZip = h("input", { type: "checkbox", id: "job-print" }) as HTMLInputElement;
  const progress = h("progress", { id: "job-progress", max: "100", value: "0", "aria-label": "Job progress", hidden: "" }) as HTMLProgressElement;
  const status = h("p", { id: "job-status", role: "status" });
  const result = h("div", { id: "job-result" });
  let csv = "";

  const start = kit.act(
    "Start the job",
    async () => {
      if (!csv) return;
      start.disabled = true;
      result.replaceChildren();
      const job = await api("POST /jobs", { body: { format: "csv", csv, publish: publish.checked, ...(printZip.checked ? { print: { sideMm: 30, sheets: { paper: "a4" } } } : {}) } });
      progress.hidden = false;
      const current = await followJob((jobId) => api("GET /jobs/:jobId", { params: { jobId } }), job, (now) => {
        progress.value = now.progress;
        status.textContent =
          now.state === "packaging"
            ? `All ${now.created + now.reused} codes are made; building the print package…`
            : `Making codes: ${now.progress}% (${now.created} made, ${now.reused} already made before, ${now.failed} refused).`;
      });
      progress.value = 100;
      status.textContent =
        current.state === "done"
          ? `Done: ${current.created} codes made, ${current.reused} were made by an earlier import and not made again, ${current.failed} rows refused.`
          : `The job stopped: ${current.note ?? "an error"}. Codes made so far are kept; start the job again to finish (nothing is made twice).`;
      result.replaceChildren(
        ...(current.packageUrl ? [h("p", {}, h("a", { href: current.packageUrl, id: "job-package", class: "button primary", download: "" }, "Download the print package (ZIP)"))] : []),
        ...(current.errors.length
          ? [table(["Row", "Column", "Why it was refused"], current.errors.map((e) => [String(e.row), e.column ?? "", e.message]), { id: "job-errors", caption: "Rows refused" })]
          : []),
        h("p", {}, h("a", { href: "#/codes?sort=created%3Adesc" }, "See the codes")),
      );
      start.disabled = false;
    },
    { id: "start-job", class: "primary", disabled: "" },
  );

  input.addEventListener("change", handled(async () => {
    const file = input.files?.[0];
    start.disabled = true;
    result.replaceChildren();
    status.textContent = "";
    progress.hidden = true;
    csv = "";
    if (!file) return;
    const text = await file.text();
    let preview: Answer<"POST /jobs/preview">;
    try {
      preview = await api("POST /jobs/preview", { body: { csv: previewHead(text) } });
    } catch (e) {
      mapping.replaceChildren(h("p", { class: "error", id: "job-file-error" }, (e as Error).message));
      return;
    }
    const rows = Object.entries(preview.mapping).map(([header, fieldName]) => [header, FIELD_NAMES[fieldName] ?? fieldName]);
    mapping.replaceChildren(
      h("p", { id: "job-format", class: preview.missing.length ? "error" : "notice" },
        preview.missing.length
          ? `No column holds the destination URL. Name one "url" and choose the file again.`
          : `${preview.format === "csv" ? "A spreadsheet" : `A ${preview.format === "dub" ? "Dub" : "Bitly"} export`}, separated by "${preview.delimiter === "\t" ? "tab" : preview.delimiter}". Columns used:`),
      table(["Column in the file", "Becomes"], rows, { id: "job-columns", caption: "How the columns map" }),
      ...(preview.unmapped.length ? [h("p", { class: "muted" }, `Not used: ${preview.unmapped.join(", ")}.`)] : []),
      ...preview.warnings.map((w) => h("p", { class: "muted" }, w)),
    );
    csv = text;
    start.disabled = preview.missing.length > 0;
  }, (message) => mapping.replaceChildren(h("p", { class: "error", id: "job-file-error" }, message))));

  return h(
    "section",
    { id: "jobs", "aria-labelledby": "jobs-h" },
    h("h2", { id: "jobs-h" }, "Large files: import in the background"),
    h("p", { class: "muted" }, "Up to 10,000 rows, from your own spreadsheet or a Dub or Bitly link export. Rows with a reference column (externalRef, SKU, Link ID) are never made twice, however often you import the file."),
    fileField("CSV file for a background job", input, "Choose a CSV file…").wrap,
    mapping,
    h("div", {}, h("label", { class: "check" }, publish, " Publish the codes as they are made")),
    h("div", {}, h("label", { class: "check" }, printZip, " Also build a print package: an SVG and a 30 mm PDF per code, and A4 label sheets")),
    h("div", { class: "actions" }, start),
    progress,
    status,
    result,
  );
}
