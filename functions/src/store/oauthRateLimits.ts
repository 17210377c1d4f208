// Fixed-window counters for the OAuth endpoints, one document per (bucket, subject, window).
// Kept apart from any general limiter so it can be swapped for one later.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../oauth/secrets";
import { COLLECTIONS } from "./collections";

/**
 * Counts one hit; returns the count in the current window (including this hit, and any hits that landed
 * meanwhile). An atomic increment, not a transaction: a flood on one subject (a popular client, one grant)
 * must not queue on the counter's lock, and an over-count only errs towards limiting.
 */
export async function countHit(bucket: string, subject: string, windowMs: number, now = Date.now()): Promise<{ count: number; resetAt: number }> {
  const window = Math.floor(now / windowMs);
  const ref = db().collection(COLLECTIONS.oauthRateLimits).doc(`${bucket}_${window}_${sha256Hex(subject).slice(0, 32)}`);
  const resetAt = (window + 1) * windowMs;
  await ref.set({ bucket, count: FieldValue.increment(1), expireAt: Timestamp.fromMillis(resetAt), updatedAt: FieldValue.serverTimestamp() }, { merge: true });
  const count = ((await ref.get()).get("count") as number | undefined) ?? 1;
  return { count, resetAt };
}
