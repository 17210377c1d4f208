// What each event says, and which subscriptions hear it. Bodies follow the Standard Webhooks shape
// ({type, timestamp, data}); scans come batched in data.scans.
import { randomBytes } from "node:crypto";
import type { WebhookEvent } from "../store/webhooks";

/** At most this many scans go in one delivery. */
export const SCANS_PER_DELIVERY = 100;

/** One scan as a subscriber hears it: the analytics' own classification, no address or User-Agent. */
export interface ScanNotice {
  scanId: string;
  codeId: string;
  uniqueQRCodeID: string;
  campaign: string | null;
  at: string;
  country: string;
  region: string;
  city: string;
  device: string;
  os: string;
  browser: string;
  /** A person (counted) or a machine: a bot, link preview or prefetch, or a person's repeat beyond the allowance. */
  human: boolean;
  /** Why a scan was not counted (the analytics' reason: a bot's kind, or "repeat"); null when counted. */
  notCountedReason: string | null;
  /** A person's first scan of the code that day (unique) or a later one (repeat); null for machines. */
  unique: boolean | null;
}

export interface CodeNotice {
  codeId: string;
  uniqueQRCodeID: string;
  title: string | null;
  campaign: string | null;
  destinationUrl: string;
  dynamic: boolean;
  status: string;
}

/** A message id (webhook-id): receivers deduplicate on it, and a redelivery keeps it. */
export function newMessageId(): string {
  return `msg_${randomBytes(12).toString("base64url")}`;
}

export function eventBody(type: WebhookEvent, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** Whether a subscription narrowed to codes or campaigns covers a code (no narrowing covers all). */
export function covers(w: { codeIds: string[] | null; campaigns: string[] | null }, code: { codeId: string; campaign: string | null }): boolean {
  if (!w.codeIds && !w.campaigns) return true;
  return (w.codeIds?.includes(code.codeId) ?? false) || (code.campaign !== null && (w.campaigns?.includes(code.campaign) ?? false));
}
