// The delivery queue's function. A failed attempt is queued again as a new task with exponential backoff
// (queue.ts nextRetryAt, not the queue's retries, whose 503s would slow the queue for every workspace): its
// first step is WEBHOOK_FIRST_RETRY_SECONDS (1 s on the local stack, so tests see retries), doubling up to
// an hour, for a little over a day. A failing endpoint gets one attempt per first step and the rest wait; it is
// disabled after a run of failures (deliver.ts). A deferred delivery (its workspace over its share, or its
// endpoint's probe held) is queued again with a scheduleTime and the task answers 2xx (docs/webhooks.md).
import { z } from "zod";
import { defineInt } from "firebase-functions/params";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
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
    retries: z.number().int().min(0).max(1000).optional(),
    retrySince: z.number().int().min(0).optional(),
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
    // A failed attempt and a deferral alike: a new task at its time, and this one answers 2xx (no error
    // for the queue's backoff, which would slow every workspace's deliveries). The Cloud Tasks emulator
    // dispatches at once whatever scheduleTime says, so on the local stack the task waits here for the
    // time first (within the function's timeout), instead of looping through the queue.
    const queue = require("./queue") as typeof import("./queue");
    const until = (at: Date) => (getConfig().isEmulator ? new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, at.getTime() - Date.now()), EMULATOR_DEFER_WAIT_MAX_MS))) : undefined);
    if (result === "retry") {
      const at = queue.nextRetryAt(task.data, FIRST_RETRY_SECONDS.value() * 1000, now);
      // Out of attempts: failed in the log, where a redelivery can send it again.
      if (!at) return (require("../store/webhooks") as typeof import("../store/webhooks")).markUndelivered(task.data.merchantId, task.data.webhookId, task.data.deliveryId);
      await until(at);
      await queue.retryDelivery(task.data, at, now);
    } else if (typeof result === "object") {
      await until(result.deferUntil);
      await queue.deferDelivery(task.data, result.deferUntil, now);
    }
  },
);
