// Abuse: the public report of a code, an operator's takedown and restore, and the destination check at
// create and re-point (blocklist.ts). A taken-down code answers its scans with a warning page at once (the
// redirect reads the link on every scan); its owner sees why and cannot re-point it until an operator
// restores it. Every decision is a named log event.
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { QR_ID_PATTERN } from "../core/ids";
import { logCodeRestored, logCodeTakenDown, logAbuseReported, logDestinationBlocked } from "../core/log";
import { readLink, setTakenDown } from "../store/codes";
import { addReport, decideReport, decideReports, listReports, readReport, type AbuseReport, type ReportReason, type ReportStatus } from "../store/abuse";
import type { QrCode, TakenDown } from "../store/codes";

const blocklist = () => require("./blocklist") as typeof import("./blocklist");

/**
 * The scan id a reporter gave: the code's scan URL on this service's dynamic-link host (as printed, or
 * as the phone opened it), or the 12-character id itself. Anything else names no code of this service.
 */
export function scanIdOf(reference: string): string | null {
  const text = reference.trim();
  if (QR_ID_PATTERN.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const hosts = new Set([getConfig().dynamicLinkUrl, getConfig().appUrl, getConfig().baseUrl].filter(Boolean).map((u) => new URL(u).host));
  const match = /^\/qr\/([0-9A-Za-z]{12})\/?$/.exec(url.pathname);
  return match && hosts.has(url.host) ? match[1] : null;
}

export interface ReportInput {
  code: string;
  reason: ReportReason;
  details?: string;
  contact?: string;
}

/** Files a report about a code of this service; the operators review it (console Moderation, admin CLI). */
export async function reportCode(input: ReportInput): Promise<{ reportId: string; status: "open" }> {
  const id = scanIdOf(input.code);
  if (!id) {
    throw new AppError("VALIDATION_FAILED", "This is not the address of a QR code made here", {
      hint: "Paste the address the code opened before it redirected, like https://<this site>/qr/Ab12Cd34Ef56.",
      details: { field: "code" },
    });
  }
  const link = await readLink(id);
  if (!link) throw new AppError("NOT_FOUND", "No QR code has this address", { hint: "Check the address: it ends in /qr/ and 12 letters and digits." });
  const report = await addReport({ uniqueQRCodeID: id, merchantId: link.merchantId, codeId: link.codeId, destinationUrl: link.destinationUrl, reason: input.reason, details: input.details ?? "", contact: input.contact ?? null });
  logAbuseReported({ reportId: report.reportId, uniqueQRCodeID: id, merchantId: link.merchantId, reason: input.reason });
  return { reportId: report.reportId, status: "open" };
}

/** Takes a code down at once: its next scan gets the warning page. Every open report of it is closed as taken down. */
export async function takeDownCode(reference: string, reason: string, by: string, reportId: string | null = null, now = new Date()): Promise<{ uniqueQRCodeID: string; takenDown: TakenDown }> {
  const id = scanIdOf(reference);
  if (!id) throw new AppError("VALIDATION_FAILED", "Give the code's scan URL or its 12-character scan id");
  const takenDown: TakenDown = { reason, at: now.toISOString(), reportId };
  const code = await setTakenDown(id, takenDown);
  await decideReports(id, "takenDown", by, now);
  logCodeTakenDown({ uniqueQRCodeID: id, merchantId: code.merchantId, codeId: code.codeId, by, reason, reportId });
  return { uniqueQRCodeID: id, takenDown };
}

export async function restoreCode(reference: string, by: string): Promise<{ uniqueQRCodeID: string }> {
  const id = scanIdOf(reference);
  if (!id) throw new AppError("VALIDATION_FAILED", "Give the code's scan URL or its 12-character scan id");
  const code = await setTakenDown(id, null);
  logCodeRestored({ uniqueQRCodeID: id, merchantId: code.merchantId, codeId: code.codeId, by });
  return { uniqueQRCodeID: id };
}

/** An operator's decision on one report: take its code down, or dismiss it. */
export async function decideOnReport(reportId: string, action: "takedown" | "dismiss", by: string): Promise<{ reportId: string; status: ReportStatus }> {
  const report = await readReport(reportId);
  if (!report) throw new AppError("NOT_FOUND", "No report with this id");
  if (action === "takedown") {
    await takeDownCode(report.uniqueQRCodeID, `Reported as ${report.reason}${report.details ? `: ${report.details.slice(0, 200)}` : ""}`, by, reportId);
    return { reportId, status: "takenDown" };
  }
  await decideReport(reportId, "dismissed", by);
  return { reportId, status: "dismissed" };
}

export const reportsIn = (status: ReportStatus) => listReports(status);

export function publicReport(r: AbuseReport) {
  return {
    reportId: r.reportId,
    uniqueQRCodeID: r.uniqueQRCodeID,
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

/** Refuses a destination on the blocklist (the shipped list, and Safe Browsing where configured) with DESTINATION_BLOCKED. */
export async function assertDestinationAllowed(url: string, context: { merchantId?: string } = {}): Promise<void> {
  const verdict = await blocklist().checkDestination(url);
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

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
