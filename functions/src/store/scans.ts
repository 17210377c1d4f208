// Scan records. A scan is first made durable as one raw record (scanInbox/{scanId}, written by the
// redirect in parallel with its link read: it needs only the id, time and place), then counted by the
// scanCounter trigger. Counting is one batch of three writes, none of them to a shared hot document:
//  - an event  workspaces/{m}/scans/{scanId}                  (time, day, city, state, code, campaign)
//  - a shard   workspaces/{m}/codes/{codeId}/scanDays/{day}_{s} (count, incremented)
//  - a shard   workspaces/{m}/scanDays/{day}_{s}                (total and per-campaign counts)
// The event is created with the raw record's id, so a redelivered trigger cannot count a scan twice.
// Shards are picked at random among SCAN_SHARDS, so a code scanned hundreds of times a second spreads its
// increments over that many documents instead of serialising on one.
import { randomUUID } from "node:crypto";
import { sha256Hex } from "../core/hash";
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { dayKey, type ScanPlace } from "../scans/classify";

export const SCAN_SHARDS = 16;

/** How long an uncounted raw scan may linger (an unknown id's record, or a trigger that keeps failing). */
export const INBOX_TTL_MS = 60 * 60 * 1000;

export interface InboxScan {
  uniqueQRCodeID: string;
  at: Date;
  place: ScanPlace;
  source: "redirect" | "app";
}

const inbox = () => db().collection(COLLECTIONS.scanInbox);

/** Makes a scan durable before anything is known about its code; returns the scan id. */
export async function writeInboxScan(scan: InboxScan): Promise<string> {
  const ref = inbox().doc();
  await ref.create({
    uniqueQRCodeID: scan.uniqueQRCodeID,
    at: Timestamp.fromDate(scan.at),
    city: scan.place.city,
    state: scan.place.state,
    source: scan.source,
    expiresAt: Timestamp.fromMillis(scan.at.getTime() + INBOX_TTL_MS),
  });
  return ref.id;
}

export function inboxScanFrom(data: FirebaseFirestore.DocumentData): InboxScan {
  return {
    uniqueQRCodeID: String(data.uniqueQRCodeID),
    at: (data.at as Timestamp).toDate(),
    place: { city: String(data.city), state: String(data.state) },
    source: data.source === "app" ? "app" : "redirect",
  };
}

export async function deleteInboxScan(scanId: string): Promise<void> {
  await inbox().doc(scanId).delete();
}

export interface ScanInput {
  merchantId: string;
  codeId: string;
  uniqueQRCodeID: string;
  campaign: string | null;
  place: ScanPlace;
  source: "redirect" | "app";
  at?: Date;
}

/** Map keys for campaigns: "none" for codes without one, "c:<name>" otherwise (no collisions). */
export function campaignKey(campaign: string | null): string {
  return campaign === null ? "none" : `c:${campaign}`;
}

export function campaignFromKey(key: string): string | null {
  return key === "none" ? null : key.slice(2);
}

const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);

const ALREADY_EXISTS = 6; // gRPC status of a create() whose document exists

type Writer = Pick<FirebaseFirestore.WriteBatch, "create" | "set">;

/** The three writes that count one scan: its event and the two day shards. */
function addScanWrites(writer: Writer, scanId: string, scan: ScanInput, at: Date): void {
  const day = dayKey(at);
  const shard = Math.floor(Math.random() * SCAN_SHARDS);
  const ws = workspace(scan.merchantId);
  writer.create(ws.collection("scans").doc(scanId), {
    codeId: scan.codeId,
    uniqueQRCodeID: scan.uniqueQRCodeID,
    campaign: scan.campaign,
    at: Timestamp.fromDate(at),
    day,
    city: scan.place.city,
    state: scan.place.state,
    source: scan.source,
  });
  writer.set(ws.collection("codes").doc(scan.codeId).collection("scanDays").doc(`${day}_${shard}`), { day, count: FieldValue.increment(1) }, { merge: true });
  writer.set(
    ws.collection("scanDays").doc(`${day}_${shard}`),
    {
      day,
      total: FieldValue.increment(1),
      // Campaign names are map keys written as nested objects, so dots in a name stay literal.
      campaigns: { [campaignKey(scan.campaign)]: FieldValue.increment(1) },
    },
    { merge: true },
  );
}

/**
 * Counts one scan under its id: event and shard increments in one batch, and the raw record (if any)
 * deleted in the same batch. Returns false if this scan id was counted before (nothing is written).
 */
export async function countScan(scanId: string, scan: ScanInput, options: { fromInbox: boolean }): Promise<boolean> {
  const batch = db().batch();
  addScanWrites(batch, scanId, scan, scan.at ?? new Date());
  if (options.fromInbox) batch.delete(inbox().doc(scanId));
  try {
    await batch.commit();
    return true;
  } catch (error) {
    if ((error as { code?: number }).code !== ALREADY_EXISTS) throw error;
    if (options.fromInbox) await deleteInboxScan(scanId);
    return false;
  }
}

/** The service's app reports a user's scan of a code at most once per this interval. */
export const APP_SCAN_REPEAT_MS = 10 * 60 * 1000;

/**
 * Counts an app scan unless the same user's last counted scan of the same code is less than
 * APP_SCAN_REPEAT_MS old. The mark (appScanMarks/{hash of uid and code}: countedAt, expiresAt TTL) and
 * the scan are written in one transaction, so concurrent reports count once.
 */
export async function countAppScan(uid: string, scan: ScanInput): Promise<boolean> {
  const markId = sha256Hex(`${uid}\n${scan.uniqueQRCodeID}`).slice(0, 40);
  const markRef = db().collection(COLLECTIONS.appScanMarks).doc(markId);
  return db().runTransaction(
    async (tx) => {
      const mark = await tx.get(markRef);
      const at = scan.at ?? new Date();
      const last = mark.exists ? (mark.get("countedAt") as Timestamp).toMillis() : -Infinity;
      if (last > at.getTime() - APP_SCAN_REPEAT_MS) return false;
      tx.set(markRef, { countedAt: Timestamp.fromDate(at), expiresAt: Timestamp.fromMillis(at.getTime() + APP_SCAN_REPEAT_MS) });
      addScanWrites(tx as unknown as Writer, randomUUID(), scan, at);
      return true;
    },
    { maxAttempts: 30 },
  );
}

/** Per-day counts of one code from its shards, for days >= firstDay. */
export async function codeDailyCounts(merchantId: string, codeId: string, firstDay: string): Promise<Map<string, number>> {
  const snap = await workspace(merchantId).collection("codes").doc(codeId).collection("scanDays").where("day", ">=", firstDay).get();
  const counts = new Map<string, number>();
  for (const doc of snap.docs) counts.set(doc.data().day, (counts.get(doc.data().day) ?? 0) + (doc.data().count ?? 0));
  return counts;
}

/** Per-day totals and per-campaign totals of a workspace, for days >= firstDay. */
export async function workspaceDailyCounts(merchantId: string, firstDay: string): Promise<{ byDay: Map<string, number>; byCampaign: Map<string, number> }> {
  const snap = await workspace(merchantId).collection("scanDays").where("day", ">=", firstDay).get();
  const byDay = new Map<string, number>();
  const byCampaign = new Map<string, number>();
  for (const doc of snap.docs) {
    const data = doc.data();
    byDay.set(data.day, (byDay.get(data.day) ?? 0) + (data.total ?? 0));
    for (const [campaign, n] of Object.entries((data.campaigns ?? {}) as Record<string, number>)) {
      byCampaign.set(campaign, (byCampaign.get(campaign) ?? 0) + n);
    }
  }
  return { byDay, byCampaign };
}

export interface ScanEvent {
  at: Date;
  city: string;
  state: string;
  source: string;
}

/** The newest scan events of one code since `since`, at most `limit`. */
export async function recentScans(merchantId: string, codeId: string, since: Date, limit: number): Promise<ScanEvent[]> {
  const snap = await workspace(merchantId)
    .collection("scans")
    .where("codeId", "==", codeId)
    .where("at", ">=", Timestamp.fromDate(since))
    .orderBy("at", "desc")
    .limit(limit)
    .get();
  return snap.docs.map((d) => {
    const data = d.data();
    return { at: (data.at as Timestamp).toDate(), city: data.city, state: data.state, source: data.source };
  });
}
