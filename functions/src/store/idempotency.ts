// Idempotency records for the bulk endpoint: workspaces/{merchantId}/idempotency/{sha256Hex(key)}.
// A key is claimed in a transaction before any code is written, so of several concurrent first calls
// exactly one does the work; the others wait for its result (or get 409 for a different body). The
// record completes in the same transaction as the codes it describes, and only while the claim is still
// the caller's; it expires after 24 hours (TTL policy on expiresAt; reads also ignore expired records).
import { randomUUID } from "node:crypto";
import { sha256Hex } from "../core/hash";
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this belongs to a call that died (the bulk function times out at 120 s). */
const IDEMPOTENCY_LEASE_MS = 130 * 1000;

const ref = (merchantId: string, key: string) =>
  db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("idempotency").doc(sha256Hex(key));

export function requestHashOf(value: unknown): string {
  return sha256Hex(JSON.stringify(value));
}

type IdempotencyClaim<T> =
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

type ClaimedWrite<T> = { state: "completed"; response: T } | { state: "lost" };

/**
 * Runs `write` and completes the key with its response in one transaction, only while the claim is
 * still this call's: a call that stalled past its lease, whose key another call has claimed since,
 * writes nothing ("lost"). A retried attempt that finds its own earlier commit answers with it.
 */
export function completeUnderClaim<T>(merchantId: string, key: string, claimId: string, write: (tx: Transaction) => T): Promise<ClaimedWrite<T>> {
  const doc = ref(merchantId, key);
  return db().runTransaction(async (tx): Promise<ClaimedWrite<T>> => {
    const data = (await tx.get(doc)).data();
    if (data?.claimId !== claimId) return { state: "lost" };
    if (data.state === "done") return { state: "completed", response: data.response as T };
    const response = write(tx);
    tx.update(doc, { state: "done", response, leaseUntil: FieldValue.delete() });
    return { state: "completed", response };
  });
}

/**
 * After a completion failed, possibly after its commit landed: reads what the key records, which that
 * commit would have completed atomically with its work. Still pending with this claim: the claim is
 * given back (deleted) in a transaction, after which the failed commit can no longer land, so its work
 * is provably not written ("released"). Completed by this claim: the work was written.
 */
export function settleClaim<T>(merchantId: string, key: string, claimId: string): Promise<{ state: "completed"; response: T } | { state: "released" | "lost" }> {
  const doc = ref(merchantId, key);
  return db().runTransaction(async (tx) => {
    const data = (await tx.get(doc)).data();
    if (data?.claimId !== claimId) return { state: "lost" as const };
    if (data.state === "done") return { state: "completed" as const, response: data.response as T };
    tx.delete(doc);
    return { state: "released" as const };
  });
}
