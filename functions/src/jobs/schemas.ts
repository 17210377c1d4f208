// A catalogue job's request and answer: one source for the REST routes, the tools and the console.
import { z } from "zod";
import { presetName } from "../codes/fields";
import { ids } from "../core/ids";
import { PDF_MM_MAX, PDF_MM_MIN } from "../codes/print";
import { JOB_MAX_INPUT_BYTES, JOB_MAX_ROWS } from "./rows";
import { PREVIEW_CSV_MAX_CHARS } from "../core/limits";

export { PREVIEW_CSV_MAX_CHARS };

/** The body of a job: a CSV's bytes as text, or JSON rows; a request this size needs a larger body limit. */
export const JOB_MAX_BODY_BYTES = JOB_MAX_INPUT_BYTES + 1024 * 1024;

/** The preview's body limit: its text JSON-escaped (at most about 6 bytes a character for control characters) and the mapping. */
export const PREVIEW_MAX_BODY_BYTES = 6 * PREVIEW_CSV_MAX_CHARS + 64 * 1024;

const mmSide = z.number().int().min(PDF_MM_MIN).max(PDF_MM_MAX);

export const JobPrintSchema = z
  .object({
    sideMm: mmSide.describe(`Side of each code's PDF, whole millimetres (${PDF_MM_MIN} to ${PDF_MM_MAX})`),
    sheets: z
      .object({ paper: z.enum(["a4", "letter"]), labelMm: mmSide.optional().describe("Side of each label; default sideMm") })
      .strict()
      .optional()
      .describe("Also imposed label sheets with crop marks and each code's short id"),
  })
  .strict();

export const JobStartSchema = z
  .object({
    format: z.enum(["json", "csv", "codes"]).describe("json or csv: make codes from rows; codes: a print package of existing codes (codeIds)"),
    items: z.array(z.unknown()).max(JOB_MAX_ROWS).optional().describe(`format json: up to ${JOB_MAX_ROWS} rows, each like svc.qr.create's input plus an optional externalRef`),
    csv: z.string().max(JOB_MAX_INPUT_BYTES).optional().describe("format csv: the file's text, columns found by header name"),
    codeIds: z.array(ids.codeId).min(1).max(JOB_MAX_ROWS).optional().describe(`format codes: up to ${JOB_MAX_ROWS} codes of this workspace to package (needs print)`),
    source: z.enum(["auto", "generic", "dub", "bitly"]).optional().describe("format csv: whose export the file is (auto: found from the headers)"),
    mapping: z.record(z.string().max(200), z.string().max(40)).optional().describe('format csv: header -> field (or "ignore"), over the headers found'),
    designPreset: presetName.optional().describe("A saved brand preset for every code"),
    print: JobPrintSchema.optional().describe("Build a print-ready ZIP once the codes are made"),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.format === "json" && !v.items) ctx.addIssue({ code: "custom", path: ["items"], message: "format json needs items" });
    if (v.format === "csv" && v.csv === undefined) ctx.addIssue({ code: "custom", path: ["csv"], message: "format csv needs csv (the file's text)" });
    if (v.format === "json" && (v.csv !== undefined || v.source || v.mapping)) ctx.addIssue({ code: "custom", path: ["format"], message: "csv, source and mapping go with format csv" });
    if (v.format === "csv" && v.items) ctx.addIssue({ code: "custom", path: ["format"], message: "items go with format json" });
    if (v.format === "codes" && !v.codeIds) ctx.addIssue({ code: "custom", path: ["codeIds"], message: "format codes needs codeIds" });
    if (v.format === "codes" && !v.print) ctx.addIssue({ code: "custom", path: ["print"], message: "format codes makes a print package: it needs print" });
    if (v.format === "codes" && (v.items || v.csv !== undefined || v.source || v.mapping || v.designPreset)) {
      ctx.addIssue({ code: "custom", path: ["format"], message: "format codes takes codeIds and print only" });
    }
    if (v.format !== "codes" && v.codeIds) ctx.addIssue({ code: "custom", path: ["codeIds"], message: "codeIds go with format codes" });
  });

export type JobStartBody = z.infer<typeof JobStartSchema>;

export const JobSchema = z
  .object({
    jobId: z.string(),
    state: z.enum(["running", "packaging", "done", "failed"]),
    total: z.number().int().describe("Rows read"),
    progress: z.number().int().min(0).max(100).describe("Percent of the rows' chunks done"),
    created: z.number().int(),
    reused: z.number().int().describe("Rows whose code existed already: made by an earlier run with the same external reference, or (format codes) found in the workspace"),
    failed: z.number().int(),
    errors: z.array(z.object({ row: z.number().int(), column: z.string().optional(), message: z.string() }).strict()).describe("The first 100 rows refused before the job ran"),
    publish: z.boolean(),
    packageUrl: z.string().nullable().describe("The print-ready ZIP, once built (a tokenized download URL)"),
    note: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict()
  .meta({ title: "CatalogueJob" });

export const JobParams = z.object({ jobId: z.string().regex(/^job_[0-9a-f]{20}$/, "Must be a job id (job_ and 20 hex digits)") }).strict();

export const JobReportSchema = z
  .object({
    jobId: z.string(),
    rows: z.array(z.object({ row: z.number().int(), outcome: z.enum(["created", "reused", "failed"]), codeId: z.string().optional(), message: z.string().optional() }).strict()),
  })
  .strict()
  .meta({ title: "CatalogueJobReport" });

/** The parsed request as jobs/service.ts takes it. */
export function jobInputOf(body: JobStartBody) {
  if (body.format === "codes") return { format: "codes" as const, codeIds: body.codeIds! };
  return body.format === "json"
    ? { format: "json" as const, items: body.items }
    : { format: "csv" as const, text: body.csv!, ...(body.mapping ? { mapping: body.mapping } : {}), ...(body.source ? { source: body.source } : {}) };
}
