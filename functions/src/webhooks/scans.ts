// A scan of a code whose link names scan subscriptions, told to them. Loaded by the redirect only when a
// link names one, so workspaces without subscriptions never load it.
import { randomBytes } from "node:crypto";
import { logError } from "../core/log";
import type { Link } from "../store/codes";
import type { ScanPlace } from "../scans/classify";
import type { ScanOutcome } from "../scans/record";
import { deviceOf } from "../scans/device";
import type { ScanNotice } from "./events";
import { queueScan } from "./queue";

function scanNotice(link: Link, uniqueQRCodeID: string, at: Date, place: ScanPlace, userAgent: string | undefined, outcome: ScanOutcome): ScanNotice {
  const device = deviceOf(userAgent);
  const machine = !outcome.counted && outcome.reason !== "repeat";
  return {
    scanId: `scan_${randomBytes(12).toString("base64url")}`,
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

/** Queues the scan for its link's subscriptions; a failure is logged, never a failed redirect. */
export async function tellScanSubscribers(link: Link, uniqueQRCodeID: string, at: Date, place: ScanPlace, userAgent: string | undefined, outcome: ScanOutcome): Promise<void> {
  try {
    await queueScan({ merchantId: link.merchantId, webhookIds: link.webhookIds ?? [], scan: scanNotice(link, uniqueQRCodeID, at, place, userAgent, outcome) });
  } catch (error) {
    logError("webhook scan queueing failed", error);
  }
}
