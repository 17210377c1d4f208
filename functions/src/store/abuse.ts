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
  uniqueQRCodeID: string;
  merchantId: string;
  codeId: string;
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
  uniqueQRCodeID: d.uniqueQRCodeID,
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

/** The newest reports in one status (a moderation queue page). */
export async function listReports(status: ReportStatus, limit = 50): Promise<AbuseReport[]> {
  const snap = await reports().withConverter(reportRecord).where("status", "==", status).orderBy("createdAt", "desc").limit(limit).get();
  return snap.docs.map((d) => d.data());
}

/** Every open report of one code gets the operator's decision. */
export async function decideReports(uniqueQRCodeID: string, status: Exclude<ReportStatus, "open">, by: string, now = new Date()): Promise<number> {
  const open = await reports().where("uniqueQRCodeID", "==", uniqueQRCodeID).where("status", "==", "open").limit(500).get();
  if (open.empty) return 0;
  const batch = db().batch();
  for (const doc of open.docs) batch.update(doc.ref, { status, decidedAt: Timestamp.fromDate(now), decidedBy: by });
  await batch.commit();
  return open.size;
}

export async function decideReport(reportId: string, status: Exclude<ReportStatus, "open">, by: string, now = new Date()): Promise<void> {
  await reports().doc(reportId).update({ status, decidedAt: Timestamp.fromDate(now), decidedBy: by });
}
