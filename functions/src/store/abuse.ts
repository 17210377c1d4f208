// Abuse reports (abuseReports/{reportId}): what a member of the public said about a code, and what an
// operator decided. One document per report; the report form's per-address limit bounds how fast they
// come. Kept REPORT_RETENTION_DAYS (TTL on expiresAt), then gone: they name no reporter beyond an
// optional contact address the reporter chose to give.
import { randomBytes } from "node:crypto";
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { dateOf, dateOrNull, recordConverter } from "./records";

export const REPORT_RETENTION_DAYS = 400;
export const REPORT_REASONS = ["phishing", "malware", "scam", "spam", "impersonation", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export type ReportStatus = "open" | "takenDown" | "dismissed";

export interface AbuseReport {
  reportId: string;
  /**
   * What the report is about, the key reports are grouped and decided by: a code's scan id, or
   * `gs1_<itemId>` for a GS1 item (the code id its resolutions are counted under). Older reports have none:
   * their uniqueQRCodeID stands for it.
   */
  subject: string;
  /** The code's scan id; null for a GS1 item. */
  uniqueQRCodeID: string | null;
  merchantId: string;
  /** The code's id, or `gs1_<itemId>` for a GS1 item. */
  codeId: string;
  /** The canonical address that was reported (https://<host>/qr/<id> or the item's GS1 Digital Link URI). */
  url: string | null;
  /** The destination when reported (it can be re-pointed since). */
  destinationUrl: string;
  reason: ReportReason;
  details: string;
  contact: string | null;
  status: ReportStatus;
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
}

const reportRecord = recordConverter<AbuseReport>((d, reportId) => ({
  reportId,
  subject: d.subject ?? d.uniqueQRCodeID,
  uniqueQRCodeID: d.uniqueQRCodeID ?? null,
  url: d.url ?? null,
  merchantId: d.merchantId,
  codeId: d.codeId,
  destinationUrl: d.destinationUrl,
  reason: d.reason,
  details: d.details,
  contact: d.contact ?? null,
  status: d.status,
  createdAt: dateOf(d.createdAt),
  decidedAt: dateOrNull(d.decidedAt),
  decidedBy: d.decidedBy ?? null,
}));

const reports = () => db().collection(COLLECTIONS.abuseReports);

export async function addReport(report: Omit<AbuseReport, "reportId" | "status" | "createdAt" | "decidedAt" | "decidedBy">, now = new Date()): Promise<AbuseReport> {
  const reportId = `rep_${randomBytes(10).toString("hex")}`;
  const stored = { ...report, status: "open" as const, createdAt: now, decidedAt: null, decidedBy: null };
  await reports()
    .doc(reportId)
    .create({ ...stored, createdAt: Timestamp.fromDate(now), expiresAt: Timestamp.fromMillis(now.getTime() + REPORT_RETENTION_DAYS * 86_400_000) });
  return { reportId, ...stored };
}

export async function readReport(reportId: string): Promise<AbuseReport | undefined> {
  return (await reports().doc(reportId).withConverter(reportRecord).get()).data();
}

/**
 * Open reports one subject keeps at most: past it a report is acknowledged with an open report's id and
 * not stored, so a flood about one code neither grows the queue nor buries other codes' reports.
 */
export const OPEN_REPORTS_PER_SUBJECT_MAX = 50;

/**
 * An open report of the subject that makes a new one redundant: one with the same reason and details
 * (a repeat), or any when the subject already has OPEN_REPORTS_PER_SUBJECT_MAX open. Undefined otherwise.
 */
export async function redundantReport(subject: string, reason: ReportReason, details: string): Promise<string | undefined> {
  const open = reports().where("subject", "==", subject).where("status", "==", "open");
  const [same, count] = await Promise.all([open.where("reason", "==", reason).where("details", "==", details).limit(1).get(), open.count().get()]);
  if (!same.empty) return same.docs[0].id;
  if (count.data().count < OPEN_REPORTS_PER_SUBJECT_MAX) return undefined;
  return (await open.limit(1).get()).docs[0]?.id;
}

export interface ReportGroup {
  subject: string;
  reports: AbuseReport[];
}

/**
 * One page of a status's reports grouped by subject, in subject order after `after` (a subject). A page
 * reads at most `readMax` reports; a group the read cut short is left to the next page unless it is the
 * page's only one (a subject holds at most OPEN_REPORTS_PER_SUBJECT_MAX open reports, so that is rare).
 * `only` reads one subject's group.
 */
export async function listReportGroups(status: ReportStatus, limit: number, after?: string, readMax = 500, only?: string): Promise<{ groups: ReportGroup[]; next: string | null }> {
  let query = reports().withConverter(reportRecord).where("status", "==", status);
  if (only !== undefined) query = query.where("subject", "==", only);
  query = query.orderBy("subject").orderBy("createdAt", "desc").limit(readMax);
  if (after !== undefined) query = query.startAfter(after, new Date(0)) // past every report of `after` (createdAt runs newest first);
  const snap = await query.get();
  const groups: ReportGroup[] = [];
  for (const doc of snap.docs) {
    const report = doc.data();
    const last = groups[groups.length - 1];
    if (last?.subject === report.subject) last.reports.push(report);
    else groups.push({ subject: report.subject, reports: [report] });
  }
  const full = snap.size === readMax;
  if (full && groups.length > 1) groups.pop(); // possibly cut short: the next page starts with it
  const page = groups.slice(0, limit);
  const more = groups.length > limit || full;
  return { groups: page, next: more && page.length ? page[page.length - 1].subject : null };
}

/**
 * Gives reports filed before `subject` existed their subject (their uniqueQRCodeID), so the grouped view,
 * which orders by subject, shows them. Pages through the collection by document id (`pageSize` a read and
 * at most one batch each); idempotent, so an interrupted run is simply run again.
 */
export async function backfillReportSubjects(pageSize = 300): Promise<{ read: number; updated: number }> {
  let read = 0;
  let updated = 0;
  let after: string | undefined;
  for (;;) {
    let query = reports().orderBy("__name__").limit(pageSize);
    if (after !== undefined) query = query.startAfter(after);
    const snap = await query.get();
    read += snap.size;
    const legacy = snap.docs.filter((d) => d.get("subject") === undefined && typeof d.get("uniqueQRCodeID") === "string");
    if (legacy.length) {
      const batch = db().batch();
      for (const d of legacy) batch.update(d.ref, { subject: d.get("uniqueQRCodeID") as string });
      await batch.commit();
      updated += legacy.length;
    }
    if (snap.size < pageSize) return { read, updated };
    after = snap.docs[snap.size - 1].id;
  }
}

/** The newest reports in one status (a moderation queue page). */
export async function listReports(status: ReportStatus, limit = 50): Promise<AbuseReport[]> {
  const snap = await reports().withConverter(reportRecord).where("status", "==", status).orderBy("createdAt", "desc").limit(limit).get();
  return snap.docs.map((d) => d.data());
}

/** Every open report of one subject (a code's scan id, or gs1_<itemId>) gets the operator's decision. */
export async function decideReports(subject: string, status: Exclude<ReportStatus, "open">, by: string, now = new Date()): Promise<number> {
  // Reports filed before `subject` existed name their code by uniqueQRCodeID only: closed with it.
  const [current, legacy] = await Promise.all([
    reports().where("subject", "==", subject).where("status", "==", "open").limit(500).get(),
    reports().where("uniqueQRCodeID", "==", subject).where("status", "==", "open").limit(500).get(),
  ]);
  const open = [...new Map([...current.docs, ...legacy.docs].map((d) => [d.id, d.ref])).values()].slice(0, 500); // one batch
  if (!open.length) return 0;
  const batch = db().batch();
  for (const ref of open) batch.update(ref, { status, decidedAt: Timestamp.fromDate(now), decidedBy: by });
  await batch.commit();
  return open.length;
}

export async function decideReport(reportId: string, status: Exclude<ReportStatus, "open">, by: string, now = new Date()): Promise<void> {
  await reports().doc(reportId).update({ status, decidedAt: Timestamp.fromDate(now), decidedBy: by });
}
