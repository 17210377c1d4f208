// Idempotency records for the bulk endpoint: workspaces/{merchantId}/idempotency/{sha256Hex(key)}.
// A key is claimed in a transaction before any code is written, so of several concurrent first calls
// exactly one does the work; the others wait for its result (or get 409 for a different body). The
// record completes in the same batch as the codes it describes, and expires after 24 hours (TTL policy
// on expiresAt; reads also ignore expired records).
import { randomUUID } from "node:crypto";
import { sha256Hex } from "../core/hash";
import { FieldValue, Timestamp, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this belongs to a call that died (the bulk function times out at 120 s). */
export const IDEMPOTENCY_LEASE_MS = 130 * 1000;


const ref = (merchantId: string, key: string) =>
  db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("idempotency").doc(sha256Hex(key));

export function requestHashOf(value: unknown): string {
  return sha256Hex(JSON.stringify(value));
}

export type IdempotencyClaim<T> =
  | { state: "claimed"; claimId: string }
  | { state: "done"; sameRequest: boolean; response: T }
  | { state: "pending"; sameRequest: boolean };

/** Claims the key for this request, or reports what another call with the key has done so far. */
export async function claimIdempotencyKey<T>(merchantId: string, key: string, requestHash: string, now = new Date()): Promise<IdempotencyClaim<T>> {
  const doc = ref(merchantId, key);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(doc);
    const data = snap.data();
    const live = data && (data.expiresAt as Timestamp).toMillis() > now.getTime();
    if (live && data.state === "done") return { state: "done", sameRequest: data.requestHash === requestHash, response: data.response as T };
    const leaseUntil = (data?.leaseUntil as Timestamp | undefined)?.toMillis() ?? 0;
    if (live && leaseUntil > now.getTime()) {
      return { state: "pending", sameRequest: data.requestHash === requestHash };
    }
    const claimId = randomUUID();
    tx.set(doc, {
      state: "pending",
      requestHash,
      claimId,
      leaseUntil: Timestamp.fromMillis(now.getTime() + IDEMPOTENCY_LEASE_MS),
      createdAt: Timestamp.fromDate(now),
      expiresAt: Timestamp.fromMillis(now.getTime() + IDEMPOTENCY_TTL_MS),
    });
    return { state: "claimed", claimId };
  });
}

/** Completes a claimed key in the batch that writes the work it stands for. */
export function completeIdempotencyKey<T>(batch: WriteBatch, merchantId: string, key: string, response: T): void {
  batch.update(ref(merchantId, key), { state: "done", response, leaseUntil: FieldValue.delete() });
}

/** Gives a claimed key back after the work failed, so a retry can do it (only if the claim is still ours). */
export async function releaseIdempotencyKey(merchantId: string, key: string, claimId: string): Promise<void> {
  const doc = ref(merchantId, key);
  await db().runTransaction(async (tx) => {
    const snap = await tx.get(doc);
    if (snap.data()?.state === "pending" && snap.data()?.claimId === claimId) tx.delete(doc);
  });
}
