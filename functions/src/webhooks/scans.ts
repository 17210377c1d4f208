// A scan of a code whose link names scan subscriptions, told to them. Loaded by the redirect only when a
// link names one, so workspaces without subscriptions never load it.
import { randomBytes } from "node:crypto";
import { logError } from "../core/log";
import { withTimeout } from "../core/firebase";
import type { Link } from "../store/codes";
import type { ScanPlace } from "../scans/classify";
import type { ScanOutcome } from "../scans/record";
import { deviceOf, type ScanDevice } from "../scans/device";
import type { ScanNotice } from "./events";
import { queueScan } from "./queue";

/** Reasons a person's scan is not counted (a repeat, or a campaign's closed answer: campaigns/): still a person's. */
const PERSON_NOT_COUNTED = new Set(["repeat", "not-started", "ended", "capped", "cap-busy"]);

export function scanNotice(link: Link, uniqueQRCodeID: string, at: Date, place: ScanPlace, userAgent: string | undefined | ScanDevice, outcome: ScanOutcome, scanId?: string): ScanNotice {
  const device = typeof userAgent === "object" ? userAgent : deviceOf(userAgent);
  const machine = !outcome.counted && !PERSON_NOT_COUNTED.has(outcome.reason);
  return {
    // A scan counted by the consumer keeps its stream id: a notice sent again after a redelivery names the same scan.
    scanId: `scan_${scanId ?? randomBytes(12).toString("base64url")}`,
    codeId: link.codeId,
    uniqueQRCodeID,
    campaign: link.campaign ?? null,
    at: at.toISOString(),
    country: place.country,
    region: place.state,
    city: place.city,
    device: device.device,
    os: device.os,
    browser: device.browser,
    human: !machine,
    notCountedReason: outcome.counted ? null : outcome.reason,
    unique: outcome.counted ? outcome.unique : machine ? null : false,
  };
}

/** How long a scan's redirect waits for its webhook deliveries to be queued; the enqueue goes on after it. */
export const WEBHOOK_QUEUE_WAIT_MS = 300;

/**
 * Queues the scan for its link's subscriptions, waiting at most WEBHOOK_QUEUE_WAIT_MS: a slow Cloud Tasks
 * enqueue never holds the redirect. A failure is logged, never a failed redirect.
 */
export async function tellScanSubscribers(link: Link, uniqueQRCodeID: string, at: Date, place: ScanPlace, userAgent: string | undefined, outcome: ScanOutcome): Promise<void> {
  const scan = scanNotice(link, uniqueQRCodeID, at, place, userAgent, outcome);
  // A scan that is not a person's goes only to subscriptions that asked for those.
  const webhookIds = scan.human ? (link.webhookIds ?? []) : (link.machineWebhookIds ?? []);
  if (!webhookIds.length) return;
  const queued = queueScan({ merchantId: link.merchantId, webhookIds, scan }).catch((error: unknown) =>
    logError("webhook.scan_queue_failed", "webhook scan queueing failed", error),
  );
  await withTimeout(queued, WEBHOOK_QUEUE_WAIT_MS, "webhook queue").catch(() => undefined);
}

/**
 * Queues a scan the consumer counted (scans/consume.ts) for its link's subscriptions not in `queued`, adding
 * each one queued; rejects when an enqueue fails, after the others are queued (tried again, only those left).
 */
export async function queueScanNotice(link: Link, uniqueQRCodeID: string, at: Date, place: ScanPlace, device: ScanDevice, outcome: ScanOutcome, scanId: string, queued: Set<string>): Promise<void> {
  const scan = scanNotice(link, uniqueQRCodeID, at, place, device, outcome, scanId);
  const webhookIds = (scan.human ? (link.webhookIds ?? []) : (link.machineWebhookIds ?? [])).filter((id) => !queued.has(id));
  const settled = await Promise.allSettled(webhookIds.map((webhookId) => queueScan({ merchantId: link.merchantId, webhookIds: [webhookId], scan, stableId: true }).then(() => queued.add(webhookId))));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason as Error;
}
