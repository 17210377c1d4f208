// Destinations to look up again (destinationRechecks/{id}): a workspace's destination that passed while
// the Safe Browsing lookup could not answer (abuse/service.ts), looked up again by the scheduled pass
// (moderation/recheck.ts), which takes the workspace's codes to it down if it turns out listed. One
// document per (workspace, URL), written at most once per instance per 10 minutes; gone after the pass
// decides, or by TTL after RECHECK_RETENTION_DAYS.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../core/hash";
import { COLLECTIONS } from "./collections";

export const RECHECK_RETENTION_DAYS = 7;

export interface QueuedRecheck {
  id: string;
  merchantId: string;
  url: string;
  queuedAt: Date;
  attempts: number;
}

const rechecks = () => db().collection(COLLECTIONS.destinationRechecks);

export async function queueDestinationRecheck(merchantId: string, url: string, now = new Date()): Promise<void> {
  await rechecks()
    .doc(sha256Hex(`${merchantId}|${url}`).slice(0, 40))
    .set({ merchantId, url, queuedAt: Timestamp.fromDate(now), attempts: 0, expiresAt: Timestamp.fromMillis(now.getTime() + RECHECK_RETENTION_DAYS * 86_400_000) });
}

/** The oldest queued re-checks, at most `limit`. */
export async function oldestRechecks(limit: number): Promise<QueuedRecheck[]> {
  const snap = await rechecks().orderBy("queuedAt").limit(limit).get();
  return snap.docs.map((d) => ({ id: d.id, merchantId: d.get("merchantId"), url: d.get("url"), queuedAt: (d.get("queuedAt") as Timestamp).toDate(), attempts: d.get("attempts") ?? 0 }));
}

export async function finishRecheck(id: string): Promise<void> {
  await rechecks().doc(id).delete();
}

/** Still unanswered: tried again on a later pass (the queue keeps its place by queuedAt). */
export async function noteRecheckAttempt(id: string, attempts: number): Promise<void> {
  await rechecks().doc(id).update({ attempts });
}

// ---- the scheduled pass over live destinations, most scanned first ----

export interface ScannedSubject {
  merchantId: string;
  /** A code's id, or gs1_<itemId>. */
  codeId: string;
  people: number;
}

/**
 * The codes and GS1 items with the most people's scans on `day` (their folded day rollups, every
 * workspace: one collection-group query), from `offset`, at most `limit`.
 */
export async function mostScannedOn(day: string, offset: number, limit: number): Promise<ScannedSubject[]> {
  const snap = await db().collectionGroup("codeDays").where("day", "==", day).where("shard", "==", false).orderBy("n", "desc").offset(offset).limit(limit).get();
  return snap.docs.map((d) => ({ merchantId: d.ref.parent.parent!.id, codeId: d.get("codeId") as string, people: (d.get("n") as number | undefined) ?? 0 }));
}

/** Where the pass is: the day it walks and how far it got (maintenance/destinationRecheck). */
export interface RecheckCursor {
  day: string;
  offset: number;
  /** Lookups spent on `day`'s budget so far. */
  spent: number;
}

const cursorRef = () => db().collection(COLLECTIONS.maintenance).doc("destinationRecheck");

export async function readRecheckCursor(): Promise<RecheckCursor | undefined> {
  const data = (await cursorRef().get()).data();
  return data ? { day: data.day, offset: data.offset ?? 0, spent: data.spent ?? 0 } : undefined;
}

export async function writeRecheckCursor(cursor: RecheckCursor): Promise<void> {
  await cursorRef().set(cursor);
}
