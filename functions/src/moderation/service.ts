// Moderation of everything the service answers on its hosts: /qr/ codes (abuse/service.ts) and GS1 items
// (/01/<GTIN>..., compressed GS1 URIs: gs1/resolver.ts). A report, a takedown and a restore take any
// address the service answers (or a code's scan id); a takedown is honoured by the next scan or resolution
// (a warning page), and the owner is mailed why and how to appeal. Above abuse/ and gs1/ (gs1/ already
// uses abuse/ for its destination check), so the two meet here.
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { logCodeRestored, logCodeTakenDown, logWarn } from "../core/log";
import { codeSubjectOf, fileReport, notOurAddress, publicReport, restoreCode, scanIdOf, servedUrlOf, takeDownCode, type ReportInput, type ReportSubject } from "../abuse/service";
import { decompressDigitalLink } from "../gs1/grammar";
import { Gs1SyntaxError, levelPathsOf, parseDigitalLinkPath } from "../gs1/keys";
import { gs1UriOf, ownHostScope, sharedScope, type ResolverScope } from "../gs1/service";
import { decideReport, decideReports, listReportGroups, OPEN_REPORTS_PER_SUBJECT_MAX, readReport, type ReportStatus } from "../store/abuse";
import { gs1CodeIdOf, gs1ItemIdOfCodeId, readGs1ItemById, readGs1Levels, setGs1TakenDown, type StoredGs1Item } from "../store/gs1Items";
import { mailWorkspaceOwner } from "../store/listings";
import { readLink, type TakenDown } from "../store/codes";
import { readHostClaims } from "../store/hostServing";

/** A compressed GS1 URI's path: one base64url segment at the root (as the resolver routes it). */
const COMPRESSED_PATH = /^\/[A-Za-z0-9_-]{10,}\/?$/;

/** A DNS name as domains are stored (punycode, lower-case): anything else is never a merchant's host, and is not read. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The key levels a GS1 Digital Link path names (a compressed one decompressed against `origin`), or null. */
function levelsOf(path: string, origin: string): string[] | null {
  if (COMPRESSED_PATH.test(path)) {
    const uncompressed = decompressDigitalLink(`${origin}${path}`);
    if (!uncompressed) return null;
    path = new URL(uncompressed).pathname;
  }
  try {
    const parsed = parseDigitalLinkPath(path);
    return levelPathsOf(parsed.key.ai, parsed.value, parsed.qualifiers);
  } catch (error) {
    if (error instanceof Gs1SyntaxError) return null;
    throw error;
  }
}

/**
 * A merchant's host an address names, as the resolver answers for it: one whose claim is served now
 * (active, or in its grace after a failed check: docs/domains.md), where only the holding workspace's items
 * answer; null for any other. A brand's URI is printed as https://<host>/..., no port, no user: one with
 * either names no host the service answers.
 */
async function ownHostScopeOf(url: URL): Promise<ResolverScope | null> {
  if (url.protocol !== "https:" || url.port || url.username || url.password || !HOST_NAME.test(url.hostname)) return null;
  const [claim] = await readHostClaims([url.hostname]);
  return claim?.serving ? ownHostScope(url.hostname, claim.merchantId) : null;
}

/**
 * The id of the /qr/ code an address on a merchant's own host names: a host served now, whose workspace
 * holds the code (the host answers every other code with its 404, so such an address names none: NOT_FOUND).
 * Null when the address is no /qr/ address of a merchant's host.
 */
async function brandHostCodeId(reference: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(reference.trim());
  } catch {
    return null;
  }
  // The path first: an address that is no code's costs no read of a host's claim.
  const id = /^\/qr\/([0-9A-Za-z]{12})\/?$/.exec(url.pathname)?.[1];
  if (!id) return null;
  const scope = await ownHostScopeOf(url);
  if (!scope) return null;
  const link = await readLink(id);
  if (!link || link.merchantId !== scope.merchantId) throw new AppError("NOT_FOUND", "No QR code has this address", { hint: "Check the address: this host answers only its own workspace's codes." });
  return id;
}

/**
 * The GS1 item an address resolves to on this service, or null when the address is no GS1 URI of it: the
 * item the resolver would answer with on that host (the most specific stored level; on a merchant's host,
 * of the holding workspace only), NOT_FOUND when it has none.
 */
export async function gs1ItemOfAddress(reference: string): Promise<StoredGs1Item | null> {
  const shared = servedUrlOf(reference);
  let url: URL;
  try {
    url = shared ?? new URL(reference.trim());
  } catch {
    return null;
  }
  // The path first: an address that is no GS1 URI costs no read of a host's claim.
  const levels = levelsOf(url.pathname, url.origin);
  if (!levels) return null;
  const scope = shared ? sharedScope() : await ownHostScopeOf(url);
  if (!scope) return null;
  const item = (await readGs1Levels(scope.host, levels)).find((i) => i !== undefined && (scope.merchantId === undefined || i.merchantId === scope.merchantId));
  if (!item) throw new AppError("NOT_FOUND", "No GS1 product link answers at this address", { hint: "Check the address: the resolver has no links for this key." });
  return item;
}

const itemSubject = (item: StoredGs1Item): ReportSubject => {
  const dflt = item.links.find((l) => l.default) ?? item.links[0];
  return { subject: gs1CodeIdOf(item.itemId), uniqueQRCodeID: null, merchantId: item.merchantId, codeId: gs1CodeIdOf(item.itemId), url: gs1UriOf(item), destinationUrl: dflt?.href ?? "" };
};

/** What a report, takedown or restore names: a code, or a GS1 item. Refused (VALIDATION_FAILED) when neither. */
async function subjectOf(reference: string): Promise<{ kind: "code"; id: string } | { kind: "gs1"; item: StoredGs1Item }> {
  const id = scanIdOf(reference) ?? (await brandHostCodeId(reference));
  if (id) return { kind: "code", id };
  // A subject as the moderation queue names it: gs1_<itemId>.
  const itemId = gs1ItemIdOfCodeId(reference.trim());
  if (itemId !== undefined && /^[A-Za-z0-9_-]{32}$/.test(itemId)) {
    const item = await readGs1ItemById(itemId);
    if (!item) throw new AppError("NOT_FOUND", "No GS1 item has this id");
    return { kind: "gs1", item };
  }
  const item = await gs1ItemOfAddress(reference);
  if (item) return { kind: "gs1", item };
  throw notOurAddress();
}

/** The public report (POST /api/reports, the /report page): any address the service answers. */
export async function reportAddress(input: ReportInput): Promise<{ reportId: string; status: "open" }> {
  const id = scanIdOf(input.code) ?? (await brandHostCodeId(input.code));
  if (id) return fileReport((await codeSubjectOf(id))!, input);
  const item = await gs1ItemOfAddress(input.code);
  if (!item) throw notOurAddress();
  return fileReport(itemSubject(item), input);
}

export interface TakedownResult {
  /** The code's scan id, or gs1_<itemId>. */
  subject: string;
  uniqueQRCodeID: string | null;
  url: string;
  takenDown: TakenDown;
}

/** Takes a code or GS1 item down at once, closes its open reports, and mails its owner why and how to appeal. */
export async function takeDown(reference: string, reason: string, by: string, reportId: string | null = null, now = new Date()): Promise<TakedownResult> {
  const target = await subjectOf(reference);
  if (target.kind === "code") {
    const done = await takeDownCode(target.id, reason, by, reportId, now);
    const url = `${new URL(getConfig().dynamicLinkUrl).origin}/qr/${done.uniqueQRCodeID}`;
    await tellOwner(done.merchantId, url, reason);
    return { subject: done.uniqueQRCodeID, uniqueQRCodeID: done.uniqueQRCodeID, url, takenDown: done.takenDown };
  }
  const takenDown: TakenDown = { reason, at: now.toISOString(), reportId };
  const item = await setGs1TakenDown(target.item.itemId, takenDown);
  const subject = gs1CodeIdOf(item.itemId);
  await decideReports(subject, "takenDown", by, now);
  logCodeTakenDown({ uniqueQRCodeID: subject, merchantId: item.merchantId, codeId: subject, by, reason, reportId });
  const url = gs1UriOf(item);
  await tellOwner(item.merchantId, url, reason);
  return { subject, uniqueQRCodeID: null, url, takenDown };
}

/** Undoes a takedown: the code redirects again, the item resolves again. */
export async function restore(reference: string, by: string): Promise<{ subject: string; uniqueQRCodeID: string | null }> {
  const target = await subjectOf(reference);
  if (target.kind === "code") {
    const done = await restoreCode(target.id, by);
    return { subject: done.uniqueQRCodeID, uniqueQRCodeID: done.uniqueQRCodeID };
  }
  const item = await setGs1TakenDown(target.item.itemId, null);
  const subject = gs1CodeIdOf(item.itemId);
  logCodeRestored({ uniqueQRCodeID: subject, merchantId: item.merchantId, codeId: subject, by });
  return { subject, uniqueQRCodeID: null };
}

/**
 * An operator's decision on one report: take its subject down (every open report of it closes), or
 * dismiss it. The owner-facing reason names the report's category only: reporter text is a stranger's
 * words and is not shown to the owner or its agents.
 */
export async function decideOnReport(reportId: string, action: "takedown" | "dismiss", by: string): Promise<{ reportId: string; status: ReportStatus }> {
  const report = await readReport(reportId);
  if (!report) throw new AppError("NOT_FOUND", "No report with this id");
  if (action === "takedown") {
    await takeDown(report.subject, `Reported as ${report.reason}`, by, reportId);
    return { reportId, status: "takenDown" };
  }
  await decideReport(reportId, "dismissed", by);
  return { reportId, status: "dismissed" };
}

/** A decision on every open report of a subject (a code's scan id, or gs1_<itemId>) at once. */
export async function decideOnSubject(subject: string, action: "takedown" | "dismiss", by: string): Promise<{ subject: string; status: "takenDown" | "dismissed"; reports: number }> {
  if (action === "dismiss") return { subject, status: "dismissed", reports: await decideReports(subject, "dismissed", by) };
  const open = await listReportGroups("open", 1, undefined, OPEN_REPORTS_PER_SUBJECT_MAX, subject);
  const reasons = [...new Set((open.groups[0]?.reports ?? []).map((r) => r.reason))];
  await takeDown(subject, reasons.length ? `Reported as ${reasons.join(", ")}` : "Taken down by the service's operators", by);
  return { subject, status: "takenDown", reports: open.groups[0]?.reports.length ?? 0 };
}

/** Groups on one page of the moderation queue. */
export const REPORT_GROUPS_PAGE = 25;

/** The queue grouped by subject, REPORT_GROUPS_PAGE at a time: each group's count, reasons and reports (newest first). */
export async function reportGroups(status: ReportStatus, cursor?: string) {
  const page = await listReportGroups(status, REPORT_GROUPS_PAGE, cursor);
  return {
    groups: page.groups.map((g) => {
      const newest = g.reports[0];
      const reasons: Record<string, number> = {};
      for (const r of g.reports) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
      return {
        subject: g.subject,
        kind: newest.uniqueQRCodeID === null ? ("gs1Item" as const) : ("code" as const),
        url: newest.url,
        merchantId: newest.merchantId,
        destinationUrl: newest.destinationUrl,
        count: g.reports.length,
        reasons,
        latestAt: newest.createdAt.toISOString(),
        reports: g.reports.map(publicReport),
      };
    }),
    nextCursor: page.next,
  };
}

/**
 * Mails the workspace's owner (the mail queue: store/listings.ts) what was taken down, why, and how to
 * appeal: a reply to the operators' contact address. Best effort: the takedown stands if the mail fails.
 */
async function tellOwner(merchantId: string, url: string, reason: string): Promise<void> {
  const text =
    `${url} was taken down by the service's operators: its scans now show a warning page instead of its destination.\n` +
    `Reason: ${reason}\n` +
    `To appeal, write to ${getConfig().contactEmail} naming this address and why the destination is safe. An operator reviews it and can restore it.\n`;
  await mailWorkspaceOwner(merchantId, "A code of your workspace was taken down", text).catch((error) =>
    logWarn("abuse.owner_mail_failed", "abuse: the owner's takedown mail could not be queued", { merchantId, reason: error instanceof Error ? error.message : String(error) }),
  );
}
