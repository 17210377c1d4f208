// The scan outbox: an arrival whose publish failed or passed its bound (scans/arrival.ts) is written here
// instead, one document per scan (`scanOutbox/{scan_id}`: random ids, no increasing key range, each
// created once), so its 302 still follows a durable record. The scan consumer drains it (scans/consume.ts)
// and deletes each document in the transaction that counts it, or once it drops it (or finds it can never
// be counted); a document nobody drained expires (TTL).
import { FieldPath, Timestamp, type DocumentReference } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";

/** Days an outbox document is kept at most (as long as Pub/Sub keeps an unacknowledged message). */
export const OUTBOX_RETENTION_DAYS = 7;

const outbox = () => db().collection(COLLECTIONS.scanOutbox);

/** The outbox's writes, replaced by tests that make it fail (test/service/scan-consumer.test.ts); nothing else does. */
export const outboxWrites = { create: (ref: DocumentReference, data: Record<string, unknown>): Promise<unknown> => ref.create(data) };

export async function writeOutbox(scanId: string, data: Buffer, attributes: Record<string, string>, now: number): Promise<void> {
  try {
    // A ruled code's scan first seen by its redirect has two arrivals with one scan id (store/scanEvents.ts `ruled`): two documents.
    await outboxWrites.create(outbox().doc(attributes.ruled === "1" ? `${scanId}~ruled` : scanId), { data, attributes, expiresAt: Timestamp.fromMillis(now + OUTBOX_RETENTION_DAYS * 86_400_000) });
  } finally {
    countOps({ writes: 1 });
  }
}

export interface OutboxEntry {
  ref: DocumentReference;
  data: Buffer;
  attributes: Record<string, string>;
}

/** Up to `limit` arrivals waiting in the outbox, in document order (random: the scan ids), after the id `after`. */
export async function readOutbox(limit: number, after?: string): Promise<OutboxEntry[]> {
  let query = outbox().orderBy(FieldPath.documentId()).limit(limit);
  if (after !== undefined) query = query.startAfter(after);
  const snap = await query.get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ ref: d.ref, data: Buffer.from(d.get("data") as Uint8Array), attributes: (d.get("attributes") as Record<string, string> | undefined) ?? {} }));
}

/** Removes an entry the consumer dropped or can never count (its count's transaction removes a counted one). */
export async function deleteOutbox(ref: DocumentReference): Promise<void> {
  await ref.delete();
  countOps({ writes: 1 });
}

/**
 * Whether anything waits in the outbox, and since when (the age of one entry, a lower bound of the oldest's:
 * entries are in random order and the outbox keeps no time index, which a burst of failed publishes would
 * write in one increasing range). One read (scans/freshness.ts).
 */
export async function outboxWaiting(): Promise<Date | undefined> {
  const snap = await outbox().limit(1).get();
  countOps({ reads: 1 });
  const expiresAt = snap.docs[0]?.get("expiresAt") as Timestamp | undefined;
  return expiresAt && new Date(expiresAt.toMillis() - OUTBOX_RETENTION_DAYS * 86_400_000);
}
