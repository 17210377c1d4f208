// The delivery queue's function. Cloud Tasks retries a failed attempt with exponential backoff: its first
// step is WEBHOOK_FIRST_RETRY_SECONDS (1 s on the local stack, so tests see retries), doubling up to an hour,
// for a little over a day. A failing endpoint gets one attempt per first step and the rest wait; it is
// disabled after a run of failures (deliver.ts). A deferred delivery (its workspace over its share, or its
// endpoint's probe held) is queued again with a scheduleTime and the task answers 2xx (docs/webhooks.md).
import { z } from "zod";
import { defineInt } from "firebase-functions/params";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
import { HttpsError } from "firebase-functions/v2/https";
import { WEBHOOK_EVENTS } from "../store/webhooks";
import { secretsOf } from "../core/secrets";
import { openTask } from "../core/taskSeal";
import { logTaskSealRefused } from "../core/log";
import { getConfig } from "../core/config";

/** On the emulator (no scheduleTime), the longest a deferred task waits in its dispatch before it is queued again. */
const EMULATOR_DEFER_WAIT_MAX_MS = 20_000;

const FIRST_RETRY_SECONDS = defineInt("WEBHOOK_FIRST_RETRY_SECONDS", { default: 30, description: "First backoff step of webhook retries, in seconds (doubles up to an hour)" });

const TaskSchema = z
  .object({
    merchantId: z.string().min(1).max(64),
    webhookId: z.string().min(1).max(64),
    deliveryId: z.string().min(1).max(64),
    type: z.enum(WEBHOOK_EVENTS),
    count: z.number().int().min(0).max(100),
    body: z.string().max(512 * 1024).optional(),
    deferredSince: z.number().int().min(0).optional(),
  })
  .strict();

export const webhookDelivery = onTaskDispatched(
  {
    retryConfig: { maxAttempts: 100, maxRetrySeconds: 25 * 3600, minBackoffSeconds: FIRST_RETRY_SECONDS, maxBackoffSeconds: 3600, maxDoublings: 16 },
    rateLimits: { maxConcurrentDispatches: 100 },
    secrets: secretsOf("webhookDelivery"),
    memory: "256MiB",
    timeoutSeconds: 30,
  },
  async (request) => {
    const opened = openTask(request.data, "webhookDelivery");
    if (!opened) return logTaskSealRefused({ function: "webhookDelivery", queue: request.queueName, taskId: request.id });
    const task = TaskSchema.safeParse(opened);
    if (!task.success) return; // not ours to retry
    const { attemptDelivery } = require("./deliver") as typeof import("./deliver");
    const now = new Date();
    const result = await attemptDelivery(task.data, FIRST_RETRY_SECONDS.value() * 1000, undefined, now);
    if (result === "retry") throw new HttpsError("unavailable", "delivery failed; retry");
    if (typeof result === "object") {
      // Deferred: a new task at its time, and this one answers 2xx (no attempt spent, no error for the
      // queue's backoff). The Cloud Tasks emulator dispatches at once whatever scheduleTime says, so on
      // the local stack the task waits here for the time first (within the function's timeout), instead
      // of looping through the queue.
      if (getConfig().isEmulator) await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, result.deferUntil.getTime() - Date.now()), EMULATOR_DEFER_WAIT_MAX_MS)));
      const { deferDelivery } = require("./queue") as typeof import("./queue");
      await deferDelivery(task.data, result.deferUntil, now);
    }
  },
);
