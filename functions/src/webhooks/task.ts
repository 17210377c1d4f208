// The delivery queue's function. Cloud Tasks retries a failed attempt with exponential backoff: its first
// step is WEBHOOK_FIRST_RETRY_SECONDS (1 s on the local stack, so tests see retries), doubling up to an hour,
// for a little over a day. A failing endpoint gets one attempt per first step and the rest wait; it is
// disabled after a run of failures (deliver.ts).
import { z } from "zod";
import { defineInt } from "firebase-functions/params";
import { onTaskDispatched } from "firebase-functions/v2/tasks";
import { HttpsError } from "firebase-functions/v2/https";
import { WEBHOOK_EVENTS } from "../store/webhooks";
import { secretsOf } from "../core/secrets";
import { openTask } from "../core/taskSeal";
import { logTaskSealRefused } from "../core/log";

const FIRST_RETRY_SECONDS = defineInt("WEBHOOK_FIRST_RETRY_SECONDS", { default: 30, description: "First backoff step of webhook retries, in seconds (doubles up to an hour)" });

const TaskSchema = z
  .object({
    merchantId: z.string().min(1).max(64),
    webhookId: z.string().min(1).max(64),
    deliveryId: z.string().min(1).max(64),
    type: z.enum(WEBHOOK_EVENTS),
    count: z.number().int().min(0).max(100),
    body: z.string().max(512 * 1024).optional(),
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
    const opened = openTask(request.data);
    if (!opened) return logTaskSealRefused({ function: "webhookDelivery", queue: request.queueName, taskId: request.id });
    const task = TaskSchema.safeParse(opened);
    if (!task.success) return; // not ours to retry
    const { attemptDelivery } = require("./deliver") as typeof import("./deliver");
    const result = await attemptDelivery(task.data, FIRST_RETRY_SECONDS.value() * 1000);
    if (result === "retry") throw new HttpsError("unavailable", "delivery failed; retry");
    if (result === "deferred") throw new HttpsError("resource-exhausted", "endpoint failing: waiting for its next attempt");
  },
);
