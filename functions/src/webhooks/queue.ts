// Putting deliveries on the Cloud Tasks queue: one task per delivery. Scans that arrive on an instance
// while an enqueue is in flight go together (group commit, at most 100 per delivery), so a busy code
// costs far fewer tasks than scans; an idle instance adds one enqueue to the scan's redirect.
import { createHash } from "node:crypto";
import { DEFAULT_REGION } from "../core/config";
import { adminApp } from "../core/firebase";
import { Coalescer } from "../core/coalescer";
import { sealTask } from "../core/taskSeal";
import { logWarn } from "../core/log";
import { RateLimiter } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";
import type { WebhookEvent } from "../store/webhooks";
import { eventBody, newMessageId, SCANS_PER_DELIVERY, type ScanNotice } from "./events";

const DELIVERY_FUNCTION = "webhookDelivery";

/** A task's data: the delivery to make. `body` is absent for a redelivery (the log holds it). */
export interface DeliveryTask {
  merchantId: string;
  webhookId: string;
  deliveryId: string;
  type: WebhookEvent;
  count: number;
  body?: string;
  /** When a deferred task was first deferred (ms since the epoch): how long it has waited for its workspace's share. */
  deferredSince?: number;
  /** Failed attempts so far, and when the first failed (ms since the epoch): the service's own retry schedule. */
  retries?: number;
  retrySince?: number;
}

/** The part of firebase-admin's TaskQueue an enqueue uses (a test passes its own to see the request). */
export interface DeliveryQueue {
  enqueue(data: DeliveryTask & { seal: string }, options: { dispatchDeadlineSeconds: number; scheduleTime?: Date }): Promise<void>;
}

function deliveryQueue(): DeliveryQueue {
  // Required here: the tool server and console load this module, and need the Tasks client only when sending.
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  return getFunctions(adminApp()).taskQueue<DeliveryTask & { seal: string }>(`locations/${DEFAULT_REGION}/functions/${DELIVERY_FUNCTION}`);
}

export async function enqueueDelivery(task: DeliveryTask, queue: DeliveryQueue = deliveryQueue()): Promise<void> {
  await queue.enqueue(sealTask(task, "webhookDelivery"), { dispatchDeadlineSeconds: 30 });
}

/**
 * Puts a deferred delivery back on the queue as a new task dispatched at `at` (Cloud Tasks' scheduleTime),
 * so the task that deferred it can answer 2xx: a deferral is neither an attempt nor an error, and the
 * queue's backoff (which slows the whole queue, every tenant's deliveries) is not involved.
 */
export async function deferDelivery(task: DeliveryTask, at: Date, now: Date, queue: DeliveryQueue = deliveryQueue()): Promise<void> {
  await queue.enqueue(sealTask({ ...task, deferredSince: task.deferredSince ?? now.getTime() }, "webhookDelivery", now), { dispatchDeadlineSeconds: 30, scheduleTime: at });
}

/** A failed delivery is tried this many times in all, within this long of its first failure, then marked failed. */
export const DELIVERY_ATTEMPTS_MAX = 100;
export const DELIVERY_RETRY_WINDOW_MS = 25 * 3_600_000;
const RETRY_STEP_MAX_MS = 3_600_000;

/**
 * When a failed delivery is tried again: the first step, doubling up to an hour; null once its attempts or
 * its 25 h are spent (the queue's own retry settings, which the task no longer uses for a failed attempt).
 */
export function nextRetryAt(task: DeliveryTask, firstStepMs: number, now: Date): Date | null {
  const retries = task.retries ?? 0;
  if (retries + 1 >= DELIVERY_ATTEMPTS_MAX) return null;
  if (task.retrySince !== undefined && now.getTime() - task.retrySince >= DELIVERY_RETRY_WINDOW_MS) return null;
  const step = Math.min(firstStepMs * 2 ** Math.min(retries, 20), RETRY_STEP_MAX_MS);
  return new Date(now.getTime() + step);
}

/**
 * Puts a failed delivery back on the queue as a new task dispatched at `at`, so the task that failed
 * answers 2xx: a receiver that keeps failing (one tenant's choice) never answers the shared queue with the
 * 503 that would make Cloud Tasks slow down dispatching for every workspace.
 */
export async function retryDelivery(task: DeliveryTask, at: Date, now: Date, queue: DeliveryQueue = deliveryQueue()): Promise<void> {
  const next = { ...task, retries: (task.retries ?? 0) + 1, retrySince: task.retrySince ?? now.getTime() };
  await queue.enqueue(sealTask(next, "webhookDelivery", now), { dispatchDeadlineSeconds: 30, scheduleTime: at });
}

interface ScanForWebhooks {
  merchantId: string;
  webhookIds: readonly string[];
  scan: ScanNotice;
  /** The scan's id is its stream id (a scan the consumer counted), not one made for the notice. */
  stableId?: boolean;
}

/**
 * A delivery's id: for scans the consumer counted (each named by its stream id), derived from the webhook and
 * the scans, so the same scans queued again for it (a push delivered again after a failed enqueue) are the
 * same delivery, which its log keeps once (store/webhooks.ts createDeliveryOnce); else a new one.
 */
function deliveryIdOf(webhookId: string, scans: ScanNotice[], stable: boolean): string {
  if (!stable) return newMessageId();
  const hash = createHash("sha256").update(webhookId);
  for (const id of scans.map((s) => s.scanId).sort()) hash.update(`\n${id}`);
  return `msg_${hash.digest("base64url").slice(0, 16)}`;
}

let limiter: RateLimiter | undefined;

const scanDeliveries = new Coalescer<ScanForWebhooks, Error | undefined>(async (items) => {
  const groups = new Map<string, { merchantId: string; webhookId: string; scans: ScanNotice[]; items: number[]; stable: boolean }>();
  items.forEach(({ merchantId, webhookIds, scan, stableId }, i) => {
    for (const webhookId of webhookIds) {
      const key = `${merchantId}/${webhookId}`;
      const group = groups.get(key) ?? { merchantId, webhookId, scans: [], items: [], stable: true };
      group.scans.push(scan);
      group.items.push(i);
      group.stable &&= stableId === true;
      groups.set(key, group);
    }
  });
  const now = new Date();
  // A group that fails fails only its own scans: those queued for other subscriptions are not queued again.
  const failed = new Array<Error | undefined>(items.length);
  limiter ??= new RateLimiter(firestoreQuotaStore);
  await Promise.all(
    [...groups.values()].map(async (g) => {
      // The workspace's backlog is bounded where it is made: scan notices past its share of enqueues are
      // shed (logged), so a flood of scans of its public codes cannot queue more than the queue drains.
      if (!(await limiter!.take("webhookScanEnqueues", { merchantId: g.merchantId }, now.getTime())).allowed) {
        logWarn("webhook.scans_shed", "scan notices not queued: the workspace is over its share of webhook enqueues", { merchantId: g.merchantId, webhookId: g.webhookId, count: g.scans.length });
        return;
      }
      await enqueueDelivery({ merchantId: g.merchantId, webhookId: g.webhookId, deliveryId: deliveryIdOf(g.webhookId, g.scans, g.stable), type: "scan.created", count: g.scans.length, body: eventBody("scan.created", { scans: g.scans }, now) }).catch((error: unknown) => {
        for (const i of g.items) failed[i] = error instanceof Error ? error : new Error(String(error));
      });
    }),
  );
  return failed;
}, SCANS_PER_DELIVERY);

/** Resolves once the scan is on the queue for every subscription its link names. */
export async function queueScan(item: ScanForWebhooks): Promise<void> {
  const failed = await scanDeliveries.submit(item);
  if (failed) throw failed;
}
