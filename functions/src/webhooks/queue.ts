// Putting deliveries on the Cloud Tasks queue: one task per delivery. Scans that arrive on an instance
// while an enqueue is in flight go together (group commit, at most 100 per delivery), so a busy code
// costs far fewer tasks than scans; an idle instance adds one enqueue to the scan's redirect.
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
}

const scanDeliveries = new Coalescer<ScanForWebhooks, void>(async (items) => {
  const groups = new Map<string, { merchantId: string; webhookId: string; scans: ScanNotice[] }>();
  for (const { merchantId, webhookIds, scan } of items) {
    for (const webhookId of webhookIds) {
      const key = `${merchantId}/${webhookId}`;
      const group = groups.get(key) ?? { merchantId, webhookId, scans: [] };
      group.scans.push(scan);
      groups.set(key, group);
    }
  }
  const now = new Date();
  await Promise.all(
    [...groups.values()].map((g) =>
      enqueueDelivery({ merchantId: g.merchantId, webhookId: g.webhookId, deliveryId: newMessageId(), type: "scan.created", count: g.scans.length, body: eventBody("scan.created", { scans: g.scans }, now) }),
    ),
  );
  return items.map(() => undefined);
}, SCANS_PER_DELIVERY);

/** Resolves once the scan is on the queue for every subscription its link names. */
export function queueScan(item: ScanForWebhooks): Promise<void> {
  return scanDeliveries.submit(item);
}
