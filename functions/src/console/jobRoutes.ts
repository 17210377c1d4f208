// Catalogue jobs from the console: the mapping preview of a CSV, starting a job (people may publish the
// codes at once), and its progress for the progress bar. The same domain functions as POST /api/jobs.
import { z } from "zod";
import { consoleRoute, routeTable } from "./route";
import { MappingPreviewSchema } from "./schemas";
import { JOB_MAX_BODY_BYTES, JobParams, JobSchema, JobStartSchema, jobInputOf, PREVIEW_CSV_MAX_CHARS, PREVIEW_MAX_BODY_BYTES } from "../jobs/schemas";
import { getJob, publicJob, startJob } from "../jobs/service";
import { enqueueJobStep } from "../store/jobQueue";
import { previewMapping } from "../jobs/rows";

const ConsoleJobSchema = JobStartSchema.and(z.object({ publish: z.boolean().optional() }));
const PreviewSchema = z
  .object({ csv: z.string().max(PREVIEW_CSV_MAX_CHARS, `A preview reads the file's first ${PREVIEW_CSV_MAX_CHARS / 1024} KiB: send those`), source: JobStartSchema.shape.source, mapping: JobStartSchema.shape.mapping })
  .strict();

const member = { credential: "member" } as const;

export const jobRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/jobs/preview",
    summary: "How a CSV's columns map to code fields, with its first rows",
    limit: "consoleReads",
    maxBodyBytes: PREVIEW_MAX_BODY_BYTES,
    body: PreviewSchema,
    response: MappingPreviewSchema,
    handle: ({ body }) => previewMapping(body.csv, { ...(body.mapping ? { mapping: body.mapping } : {}), ...(body.source ? { source: body.source } : {}) }),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/jobs",
    summary: "Start a catalogue job",
    limit: "jobs",
    maxBodyBytes: JOB_MAX_BODY_BYTES,
    body: ConsoleJobSchema,
    response: JobSchema,
    async handle({ res, caller, body }) {
      const job = await startJob(caller.merchantId, caller.uid, { input: jobInputOf(body), publish: body.publish ?? false, designPreset: body.designPreset, print: body.print }, enqueueJobStep);
      res.status(202);
      return publicJob(job);
    },
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/jobs/:jobId",
    summary: "A catalogue job's progress",
    params: JobParams,
    response: JobSchema,
    handle: ({ caller, params }) => getJob(caller.merchantId, params.jobId),
  }),
);
