// Idempotency records for the bulk endpoint: workspaces/{merchantId}/idempotency/{sha256(key)}.
// A record expires after 24 hours (TTL policy on expiresAt; reads also ignore expired records).
import { createHash } from "node:crypto";
import { Timestamp, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRecord<T> {
  requestHash: string;
  response: T;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

const ref = (merchantId: string, key: string) =>
  db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("idempotency").doc(sha256(key));

export function requestHashOf(value: unknown): string {
  return sha256(JSON.stringify(value));
}

export async function findIdempotencyRecord<T>(merchantId: string, key: string, now = new Date()): Promise<IdempotencyRecord<T> | undefined> {
  const snap = await ref(merchantId, key).get();
  if (!snap.exists) return undefined;
  const data = snap.data()!;
  if ((data.expiresAt as Timestamp).toMillis() <= now.getTime()) return undefined;
  return { requestHash: data.requestHash, response: data.response as T };
}

/** Adds the record to a batch with `set`: an expired record under the same key is replaced. */
export function addIdempotencyRecord<T>(batch: WriteBatch, merchantId: string, key: string, record: IdempotencyRecord<T>, now = new Date()): void {
  batch.set(ref(merchantId, key), {
    ...record,
    createdAt: Timestamp.fromDate(now),
    expiresAt: Timestamp.fromMillis(now.getTime() + IDEMPOTENCY_TTL_MS),
  });
}
