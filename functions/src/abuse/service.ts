// Abuse: the public report of a code, an operator's takedown and restore, and the destination check at
// create and re-point (blocklist.ts). A taken-down code answers its scans with a warning page at once (the
// redirect reads the link on every scan); its owner sees why and cannot re-point it until an operator
// restores it. Every decision is a named log event.
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { QR_ID_PATTERN } from "../core/ids";
import { logCodeRestored, logCodeTakenDown, logAbuseReported, logDestinationBlocked } from "../core/log";
import { readLink, setTakenDown } from "../store/codes";
import { queueDestinationRecheck } from "../store/rechecks";
import { getWorkspace } from "../store/workspaces";
import { addReport, decideReports, listReports, redundantReport, type AbuseReport, type ReportReason, type ReportStatus } from "../store/abuse";
import type { QrCode, TakenDown } from "../store/codes";

const blocklist = () => require("./blocklist") as typeof import("./blocklist");

/**
 * The scan id a reporter gave: the code's scan URL on this service's dynamic-link host (as printed, or
 * as the phone opened it), or the 12-character id itself. Anything else names no code of this service.
 */
export function scanIdOf(reference: string): string | null {
  const text = reference.trim();
  if (QR_ID_PATTERN.test(text)) return text;
  const url = servedUrlOf(text);
  const match = url && /^\/qr\/([0-9A-Za-z]{12})\/?$/.exec(url.pathname);
  return match ? match[1] : null;
}

/** `reference` as a URL on one of the hosts this service answers on (dynamic links, the app, the site), else null. */
export function servedUrlOf(reference: string): URL | null {
  let url: URL;
  try {
    url = new URL(reference.trim());
  } catch {
    return null;
  }
  const hosts = new Set([getConfig().dynamicLinkUrl, getConfig().appUrl, getConfig().baseUrl].filter(Boolean).map((u) => new URL(u).host));
  return hosts.has(url.host) ? url : null;
}

export interface ReportInput {
  code: string;
  reason: ReportReason;
  details?: string;
  contact?: string;
}

/** What a report is about, as the store keeps it (a code, or a GS1 item: moderation/service.ts). */
export type ReportSubject = Pick<AbuseReport, "subject" | "uniqueQRCodeID" | "merchantId" | "codeId" | "url" | "destinationUrl">;

/** The refusal of an address that names nothing this service answers. */
export const notOurAddress = () =>
  new AppError("VALIDATION_FAILED", "This is not the address of a QR code or a GS1 product link made here", {
    hint: "Paste the address the code opened before it redirected, like https://<this site>/qr/Ab12Cd34Ef56 or https://<this site>/01/<GTIN>.",
    details: { field: "code" },
  });

/** The report's subject when it names a /qr/ code; null when it names none. */
export async function codeSubjectOf(reference: string): Promise<ReportSubject | null> {
  const id = scanIdOf(reference);
  if (!id) return null;
  const link = await readLink(id);
  if (!link) throw new AppError("NOT_FOUND", "No QR code has this address", { hint: "Check the address: it ends in /qr/ and 12 letters and digits." });
  return { subject: id, uniqueQRCodeID: id, merchantId: link.merchantId, codeId: link.codeId, url: `${new URL(getConfig().dynamicLinkUrl).origin}/qr/${id}`, destinationUrl: link.destinationUrl };
}

/**
 * Files a report; the operators review it (console Moderation, admin CLI). A repeat of an open report of
 * the same subject (same reason and details), or one past the subject's cap, joins the open ones: the
 * answer names one of them and nothing is stored (store/abuse.ts OPEN_REPORTS_PER_SUBJECT_MAX).
 */
export async function fileReport(subject: ReportSubject, input: ReportInput): Promise<{ reportId: string; status: "open" }> {
  const details = input.details ?? "";
  const existing = await redundantReport(subject.subject, input.reason, details);
  if (existing) return { reportId: existing, status: "open" };
  const report = await addReport({ ...subject, reason: input.reason, details, contact: input.contact ?? null });
  logAbuseReported({ reportId: report.reportId, uniqueQRCodeID: subject.subject, merchantId: subject.merchantId, reason: input.reason });
  return { reportId: report.reportId, status: "open" };
}

/** Takes a code down at once: its next scan gets the warning page. Every open report of it is closed as taken down. */
export async function takeDownCode(reference: string, reason: string, by: string, reportId: string | null = null, now = new Date()): Promise<{ uniqueQRCodeID: string; merchantId: string; takenDown: TakenDown }> {
  const id = scanIdOf(reference);
  if (!id) throw new AppError("VALIDATION_FAILED", "Give the code's scan URL or its 12-character scan id");
  const takenDown: TakenDown = { reason, at: now.toISOString(), reportId };
  const code = await setTakenDown(id, takenDown);
  await decideReports(id, "takenDown", by, now);
  logCodeTakenDown({ uniqueQRCodeID: id, merchantId: code.merchantId, codeId: code.codeId, by, reason, reportId });
  return { uniqueQRCodeID: id, merchantId: code.merchantId, takenDown };
}

export async function restoreCode(reference: string, by: string): Promise<{ uniqueQRCodeID: string }> {
  const id = scanIdOf(reference);
  if (!id) throw new AppError("VALIDATION_FAILED", "Give the code's scan URL or its 12-character scan id");
  const code = await setTakenDown(id, null);
  logCodeRestored({ uniqueQRCodeID: id, merchantId: code.merchantId, codeId: code.codeId, by });
  return { uniqueQRCodeID: id };
}

export const reportsIn = (status: ReportStatus) => listReports(status);

export function publicReport(r: AbuseReport) {
  return {
    reportId: r.reportId,
    subject: r.subject,
    uniqueQRCodeID: r.uniqueQRCodeID,
    url: r.url,
    merchantId: r.merchantId,
    codeId: r.codeId,
    destinationUrl: r.destinationUrl,
    reason: r.reason,
    details: r.details,
    contact: r.contact,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
  };
}

/** A workspace this young is refused a destination the lookup could not check (its first codes): abuse comes from new accounts. */
export const NEW_WORKSPACE_FAIL_CLOSED_DAYS = 7;

/**
 * Refuses a destination on the blocklist (the shipped list, and Safe Browsing where configured) with
 * DESTINATION_BLOCKED. When the lookup fails (docs/decisions.md, "When Safe Browsing cannot answer"): the
 * sandbox (`failClosed`) and workspaces younger than NEW_WORKSPACE_FAIL_CLOSED_DAYS are refused with
 * UNAVAILABLE; any other workspace's destination passes and is queued for a re-check that takes its codes
 * down if it turns out listed (moderation/recheck.ts).
 */
export async function assertDestinationAllowed(url: string, context: { merchantId?: string; failClosed?: boolean; safeBrowsingStandIn?: string } = {}, now = new Date()): Promise<void> {
  // safeBrowsingStandIn: a local stack test's loopback stand-in for the API (core/testClock.ts requestSafeBrowsingServer).
  const lists = blocklist();
  const verdict = await lists.checkDestination(url, { now: now.getTime(), ...(context.safeBrowsingStandIn ? { safeBrowsing: lists.loopbackSafeBrowsing(context.safeBrowsingStandIn) } : {}) });
  if (!verdict.blocked && verdict.unchecked) {
    const workspace = context.merchantId && !context.failClosed ? await getWorkspace(context.merchantId) : undefined;
    const established = workspace !== undefined && now.getTime() - workspace.createdAt.getTime() >= NEW_WORKSPACE_FAIL_CLOSED_DAYS * 86_400_000;
    if (!established) {
      throw new AppError("UNAVAILABLE", "This destination could not be checked against the phishing and malware lists just now", {
        hint: "Retry in a minute.",
        details: { retryAfterSeconds: 60 },
      });
    }
    await queueRecheckOnce(context.merchantId!, url, now);
    return;
  }
  if (!verdict.blocked) return;
  logDestinationBlocked({ merchantId: context.merchantId ?? null, host: safeHost(url), source: verdict.source, threat: verdict.threat });
  throw new AppError("DESTINATION_BLOCKED", "This destination is listed as a phishing or malware site, so no code can point to it", {
    hint: "Use another destination. If the listing is wrong, contact the service's operators.",
    details: { source: verdict.source, threat: verdict.threat },
  });
}

/** A taken-down code keeps its destination until an operator restores it. */
export function assertNotTakenDown(code: Pick<QrCode, "takenDown">): void {
  if (!code.takenDown) return;
  throw new AppError("FORBIDDEN", `This code was taken down by the service's operators (${code.takenDown.reason}); its destination cannot change`, {
    hint: "Contact the service's operators to have it reviewed and restored.",
    details: { takenDown: code.takenDown },
  });
}

/** (workspace, URL) pairs this instance queued in the last RECHECK_QUEUE_MEMORY_MS: a job of 10,000 rows to one URL writes once. */
const RECHECK_QUEUE_MEMORY_MS = 10 * 60_000;
const recentlyQueued = new Map<string, number>();

async function queueRecheckOnce(merchantId: string, url: string, now: Date): Promise<void> {
  const key = `${merchantId}|${url}`;
  const at = recentlyQueued.get(key);
  if (at !== undefined && now.getTime() - at < RECHECK_QUEUE_MEMORY_MS) return;
  recentlyQueued.delete(key);
  recentlyQueued.set(key, now.getTime());
  if (recentlyQueued.size > 10_000) recentlyQueued.delete(recentlyQueued.keys().next().value!);
  await queueDestinationRecheck(merchantId, url, now);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
