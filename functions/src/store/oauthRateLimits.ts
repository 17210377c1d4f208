// Fixed-window counters for the OAuth endpoints, one document per (bucket, subject, window).
// Kept apart from any general limiter so it can be swapped for one later.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../oauth/secrets";
import { COLLECTIONS } from "./collections";

/** Counts one hit; returns the count in the current window (including this hit). */
export async function countHit(bucket: string, subject: string, windowMs: number, now = Date.now()): Promise<{ count: number; resetAt: number }> {
  const window = Math.floor(now / windowMs);
  const ref = db().collection(COLLECTIONS.oauthRateLimits).doc(`${bucket}_${window}_${sha256Hex(subject).slice(0, 32)}`);
  const resetAt = (window + 1) * windowMs;
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    const count = (snap.exists ? (snap.data()!.count as number) : 0) + 1;
    tx.set(ref, { bucket, count, expireAt: Timestamp.fromMillis(resetAt), updatedAt: FieldValue.serverTimestamp() });
    return { count, resetAt };
  });
}
