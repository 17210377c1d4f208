// REST: start a catalogue job and follow it (served by the bulk function, under /api/jobs). Jobs made with
// a key make drafts, as the bulk endpoint does; people publish (the console's jobs may publish at once).
import { endpoint } from "../http/endpoint";
import { BULK_SCOPE } from "./app";
import { JOB_MAX_BODY_BYTES, JobParams, JobReportSchema, JobSchema, JobStartSchema, jobInputOf } from "../jobs/schemas";
import { getJob, jobReport, publicJob, startJob } from "../jobs/service";
import { enqueueJobStep } from "../store/jobQueue";

const EXAMPLE_JOB = {
  jobId: "job_3f9a2c7d1e5b4a60c2d1",
  state: "running" as const,
  total: 3,
  progress: 0,
  created: 0,
  reused: 0,
  failed: 0,
  errors: [],
  publish: false,
  packageUrl: null,
  note: null,
  createdAt: "2026-11-25T09:00:00.000Z",
  updatedAt: "2026-11-25T09:00:00.000Z",
  finishedAt: null,
};

export const jobRoutes = [
  endpoint({
    method: "POST",
    path: "/api/jobs",
    summary: "Start a catalogue job: up to 10,000 codes from JSON or CSV, in the background",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "jobs",
    maxBodyBytes: JOB_MAX_BODY_BYTES,
    body: JobStartSchema,
    response: JobSchema,
    doc: {
      operationId: "startJob",
      success: [202],
      description:
        "Rows are checked first: rows with errors are listed (`errors`) and skipped, the rest become draft codes one chunk at a time. " +
        "A row's `externalRef` makes a re-run safe: a reference that already made a code reuses it (`reused`). " +
        "With `print`, a ZIP of an SVG and a PDF per code and `manifest.csv` is built once the codes are made (`packageUrl`). Follow it with GET /api/jobs/{jobId}.",
      errors: ["FORBIDDEN", "UNAVAILABLE"],
      example: {
        body: { format: "csv", csv: "title,url,externalRef\nLunch menu,https://example.com/lunch,SKU-1\n" },
        response: EXAMPLE_JOB,
      },
    },
    async handle({ res, caller, body }) {
      const job = await startJob(caller.merchantId, caller.uid, { input: jobInputOf(body), publish: false, designPreset: body.designPreset, print: body.print }, enqueueJobStep);
      res.status(202);
      return publicJob(job);
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/jobs/:jobId",
    summary: "A catalogue job's progress",
    credential: "caller",
    scope: BULK_SCOPE,
    standing: "jobs",
    params: JobParams,
    response: JobSchema,
    doc: { operationId: "getJob", description: "State, counts and, once built, the print package's URL.", errors: ["NOT_FOUND"], example: { params: { jobId: EXAMPLE_JOB.jobId }, response: EXAMPLE_JOB } },
    handle: ({ caller, params }) => getJob(caller.merchantId, params.jobId),
  }),
  endpoint({
    method: "GET",
    path: "/api/jobs/:jobId/report",
    summary: "Every row's outcome",
    credential: "caller",
    scope: BULK_SCOPE,
    standing: "jobs",
    params: JobParams,
    response: JobReportSchema,
    doc: {
      operationId: "getJobReport",
      description: "Each row's outcome (created, reused or failed with its reason) and its code's id, in row order.",
      errors: ["NOT_FOUND"],
      example: { params: { jobId: EXAMPLE_JOB.jobId }, response: { jobId: EXAMPLE_JOB.jobId, rows: [{ row: 1, outcome: "created", codeId: "Hk2Qm8ZpT1xVb4sLr9Ne" }] } },
    },
    handle: async ({ caller, params }) => ({ jobId: params.jobId, rows: await jobReport(caller.merchantId, params.jobId) }),
  }),
];
