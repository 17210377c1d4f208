// The scan outbox: an arrival whose publish failed or passed its bound (scans/arrival.ts) is written here
// instead, one document per scan (`scanOutbox/{scan_id}`: random ids, no increasing key range, each
// created once), so its 302 still follows a durable record. The scan consumer drains it (scans/consume.ts)
// and deletes each document in the transaction that counts it; a document nobody drained expires (TTL).
import { Timestamp, type DocumentReference } from "firebase-admin/firestore";
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
    await outboxWrites.create(outbox().doc(scanId), { data, attributes, expiresAt: Timestamp.fromMillis(now + OUTBOX_RETENTION_DAYS * 86_400_000) });
  } finally {
    countOps({ writes: 1 });
  }
}

export interface OutboxEntry {
  ref: DocumentReference;
  data: Buffer;
  attributes: Record<string, string>;
}

/** Up to `limit` arrivals waiting in the outbox (any order). */
export async function readOutbox(limit: number): Promise<OutboxEntry[]> {
  const snap = await outbox().limit(limit).get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ ref: d.ref, data: Buffer.from(d.get("data") as Uint8Array), attributes: (d.get("attributes") as Record<string, string> | undefined) ?? {} }));
}
