import { defineTool, CREATES_DRAFT } from "../tool";
import { JobSchema, JobStartSchema, jobInputOf, type JobStartBody } from "../../jobs/schemas";
import { publicJob, startJob } from "../../jobs/service";
import { enqueueJobStep } from "../../store/jobQueue";
import { RateLimiter, rateLimitedError } from "../../core/rateLimit";
import { firestoreQuotaStore } from "../../store/rateLimits";
import { logTaskCreated } from "../../core/log";
import type { Caller } from "../../auth/caller";
import { jobTask } from "../tasks";

/** Jobs are counted against the same `jobs` limit as POST /api/jobs, per key or grant. */
let limiter: RateLimiter | undefined;

async function start(args: JobStartBody, caller: Caller) {
  limiter ??= new RateLimiter(firestoreQuotaStore);
  const decision = await limiter.take("jobs", { merchantId: caller.merchantId, uid: caller.uid, keyId: caller.keyId });
  if (!decision.allowed) throw rateLimitedError(decision);
  return publicJob(await startJob(caller.merchantId, caller.uid, { input: jobInputOf(args), publish: false, designPreset: args.designPreset, print: args.print }, enqueueJobStep));
}

export const jobStartTool = defineTool({
  name: "svc.job.start",
  title: "Start a catalogue job",
  description:
    "Drafts up to 10,000 codes in the background from JSON rows (svc.qr.create's fields plus externalRef) or a CSV's text (columns by header name; Dub and Bitly exports recognised). Rows with errors are listed and skipped; a row whose externalRef already made a code reuses it. Optional print: a ZIP of an SVG and a PDF per code with manifest.csv; format codes with codeIds packages existing codes. Follow it with svc.job.get.",
  scope: "qr:write",
  annotations: CREATES_DRAFT,
  input: JobStartSchema,
  output: JobSchema,
  handler: (args, { caller }) => start(args, caller),
  // With the tasks extension the job is the task: tasks/get follows it and inlines svc.job.get's result.
  task: {
    support: "optional",
    async start(args, { caller }) {
      const job = await start(args, caller);
      logTaskCreated({ merchantId: caller.merchantId, taskId: job.jobId, tool: "svc.job.start" });
      return { task: jobTask(job) };
    },
  },
  summarize: (r) => `Job ${r.jobId} started: ${r.total} rows read, ${r.failed} refused before it ran. Follow it with svc.job.get.`,
});
