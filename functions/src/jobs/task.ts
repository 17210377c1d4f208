// The catalogue jobs' queue function: one task per step (chunks of rows, or the print package), and the
// background part of a big workspace's webhook link sync (webhooks/service.ts). Cloud
// Tasks retries a step that fails or whose instance dies (jobs/service.ts makes a retry safe); after the
// last attempt the job is marked failed with the reason, never left running.
import { z } from "zod";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
import { HttpsError } from "firebase-functions/v2/https";
import { secretsOf } from "../core/secrets";
import { openTask } from "../core/taskSeal";
import { logInfo, logTaskSealRefused } from "../core/log";

export const JOB_STEP_ATTEMPTS = 8;

const JobStepSchema = z
  .object({
    merchantId: z.string().min(1).max(64),
    jobId: z.string().regex(/^job_[0-9a-f]{20}$/),
    step: z.enum(["chunk", "package"]),
    chunk: z.number().int().min(0).max(1000).optional(),
    progress: z
      .object({ chunksDone: z.number().int().min(0), created: z.number().int().min(0), reused: z.number().int().min(0), failed: z.number().int().min(0) })
      .strict()
      .optional(),
  })
  .strict();
const LinkSyncSchema = z.object({ merchantId: z.string().min(1).max(64), step: z.literal("links"), after: z.string().min(1).max(64) }).strict();
const TaskSchema = z.union([JobStepSchema, LinkSyncSchema]);

export const catalogueJob = onTaskDispatched(
  {
    retryConfig: { maxAttempts: JOB_STEP_ATTEMPTS, minBackoffSeconds: 1, maxBackoffSeconds: 60 },
    // Each job runs one step at a time; this many steps (of any jobs) run at once.
    rateLimits: { maxConcurrentDispatches: 10 },
    memory: "1GiB",
    cpu: 2,
    secrets: secretsOf("catalogueJob"),
    timeoutSeconds: 540,
  },
  async (request) => {
    const opened = openTask(request.data);
    if (!opened) return logTaskSealRefused({ function: "catalogueJob", queue: request.queueName, taskId: request.id });
    const task = TaskSchema.safeParse(opened);
    if (!task.success) return; // not ours to retry
    const { runJobStep, failJob } = require("./service") as typeof import("./service");
    const { enqueueJobStep } = require("../store/jobQueue") as typeof import("../store/jobQueue");
    const data = task.data;
    if (data.step === "links") {
      await (require("../webhooks/service") as typeof import("../webhooks/service")).continueLinkSync(data.merchantId, data.after);
      return;
    }
    // A retried step (its instance died, or an attempt failed) is logged, so a redone chunk can be traced.
    if (request.retryCount > 0) logInfo("job.step_retried", "job step retried", { merchantId: data.merchantId, jobId: data.jobId, step: data.step, chunk: data.chunk ?? 0, attempt: request.retryCount + 1 });
    try {
      await runJobStep(data, enqueueJobStep);
    } catch (error) {
      if (request.retryCount + 1 >= JOB_STEP_ATTEMPTS) return failJob(data, error);
      throw new HttpsError("unavailable", "job step failed; retry");
    }
  },
);
