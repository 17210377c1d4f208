// Scan records. Every counted scan is one batch of three writes, none of them to a shared hot document:
//  - an event  workspaces/{m}/scans/{auto}                    (time, day, city, state, code, campaign)
//  - a shard   workspaces/{m}/codes/{codeId}/scanDays/{day}_{s} (count, incremented)
//  - a shard   workspaces/{m}/scanDays/{day}_{s}                (total and per-campaign counts)
// Shards are picked at random among SCAN_SHARDS, so a code scanned hundreds of times a second spreads its
// increments over that many documents instead of serialising on one.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { dayKey, type ScanPlace } from "../scans/classify";

export const SCAN_SHARDS = 16;

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

export async function recordScan(scan: ScanInput): Promise<void> {
  const at = scan.at ?? new Date();
  const day = dayKey(at);
  const shard = Math.floor(Math.random() * SCAN_SHARDS);
  const ws = workspace(scan.merchantId);
  const batch = db().batch();
  batch.create(ws.collection("scans").doc(), {
    codeId: scan.codeId,
    uniqueQRCodeID: scan.uniqueQRCodeID,
    campaign: scan.campaign,
    at: Timestamp.fromDate(at),
    day,
    city: scan.place.city,
    state: scan.place.state,
    source: scan.source,
  });
  batch.set(ws.collection("codes").doc(scan.codeId).collection("scanDays").doc(`${day}_${shard}`), { day, count: FieldValue.increment(1) }, { merge: true });
  batch.set(
    ws.collection("scanDays").doc(`${day}_${shard}`),
    {
      day,
      total: FieldValue.increment(1),
      // Campaign names are map keys written as nested objects, so dots in a name stay literal.
      campaigns: { [campaignKey(scan.campaign)]: FieldValue.increment(1) },
    },
    { merge: true },
  );
  await batch.commit();
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
