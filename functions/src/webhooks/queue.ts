// Putting deliveries on the Cloud Tasks queue: one task per delivery. Scans that arrive on an instance
// while an enqueue is in flight go together (group commit, at most 100 per delivery), so a busy code
// costs far fewer tasks than scans; an idle instance adds one enqueue to the scan's redirect.
import { createHash } from "node:crypto";
import { DEFAULT_REGION } from "../core/config";
import { adminApp } from "../core/firebase";
import { Coalescer } from "../core/coalescer";
import { sealTask } from "../core/taskSeal";
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
}

export async function enqueueDelivery(task: DeliveryTask): Promise<void> {
  // Required here: the tool server and console load this module, and need the Tasks client only when sending.
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  const queue = getFunctions(adminApp()).taskQueue<DeliveryTask & { seal: string }>(`locations/${DEFAULT_REGION}/functions/${DELIVERY_FUNCTION}`);
  await queue.enqueue(sealTask(task), { dispatchDeadlineSeconds: 30 });
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
  await Promise.all(
    [...groups.values()].map((g) =>
      enqueueDelivery({ merchantId: g.merchantId, webhookId: g.webhookId, deliveryId: deliveryIdOf(g.webhookId, g.scans, g.stable), type: "scan.created", count: g.scans.length, body: eventBody("scan.created", { scans: g.scans }, now) }).catch((error: unknown) => {
        for (const i of g.items) failed[i] = error instanceof Error ? error : new Error(String(error));
      }),
    ),
  );
  return failed;
}, SCANS_PER_DELIVERY);

/** Resolves once the scan is on the queue for every subscription its link names. */
export async function queueScan(item: ScanForWebhooks): Promise<void> {
  const failed = await scanDeliveries.submit(item);
  if (failed) throw failed;
}
