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
import { getConfig } from "../core/config";

export const JOB_STEP_ATTEMPTS = 8;
/** A step whose workspace's slots are all held comes back this much later. */
const SLOT_RETRY_MS = 30_000;
/** On the emulator (no scheduleTime), how long such a step's dispatch waits before it queues itself again. */
const EMULATOR_DEFER_WAIT_MS = 5_000;

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
const LinkSyncSchema = z.object({ merchantId: z.string().min(1).max(64), step: z.literal("links"), after: z.string().min(1).max(64), generation: z.number().int().min(0).optional() }).strict();
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
    const opened = openTask(request.data, "catalogueJob");
    if (!opened) return logTaskSealRefused({ function: "catalogueJob", queue: request.queueName, taskId: request.id });
    const task = TaskSchema.safeParse(opened);
    if (!task.success) return; // not ours to retry
    const { enqueueJobStep, takeJobSlot, releaseJobSlot } = require("../store/jobQueue") as typeof import("../store/jobQueue");
    const data = task.data;
    // The workspace's share: while its other jobs hold its slots, the step is queued again for later and
    // this dispatch answers 2xx (not an attempt, not an error for the queue's backoff).
    const holder = data.step === "links" ? "links" : data.jobId;
    const slot = await takeJobSlot(data.merchantId, holder);
    if (!slot) {
      // The Cloud Tasks emulator ignores scheduleTime: locally the dispatch waits out part of the delay itself.
      if (getConfig().isEmulator) await new Promise((resolve) => setTimeout(resolve, EMULATOR_DEFER_WAIT_MS));
      await enqueueJobStep(data, new Date(Date.now() + SLOT_RETRY_MS));
      return;
    }
    try {
      await runStep(data, request.retryCount);
    } finally {
      await releaseJobSlot(data.merchantId, holder, slot);
    }
  },
);

async function runStep(data: z.infer<typeof TaskSchema>, retryCount: number): Promise<void> {
  if (data.step === "links") {
    await (require("../webhooks/service") as typeof import("../webhooks/service")).continueLinkSync(data.merchantId, data.after, data.generation ?? 0);
    return;
  }
  const { runJobStep, failJob } = require("./service") as typeof import("./service");
  const { enqueueJobStep } = require("../store/jobQueue") as typeof import("../store/jobQueue");
  // A retried step (its instance died, or an attempt failed) is logged, so a redone chunk can be traced.
  if (retryCount > 0) logInfo("job.step_retried", "job step retried", { merchantId: data.merchantId, jobId: data.jobId, step: data.step, chunk: data.chunk ?? 0, attempt: retryCount + 1 });
  try {
    await runJobStep(data, (next) => enqueueJobStep(next));
  } catch (error) {
    if (retryCount + 1 >= JOB_STEP_ATTEMPTS) return failJob(data, error);
    throw new HttpsError("unavailable", "job step failed; retry");
  }
}
