// Rate-limit windows shared by every instance. Each instance writes its own count for a window:
//   rateLimits/{window key}~{instance}: key (the window key), count, expiresAt (TTL)
// and reads the others' counts with one query on `key`. An instance's document is written by that
// instance alone, so there is no contention on a hot key however many instances serve it.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

const windows = () => db().collection(COLLECTIONS.rateLimits);

/**
 * Records this instance's count for a window and returns the sum of every other instance's count.
 * The window key is built from hashes and names only, so it is a valid document id.
 */
export async function syncWindowCount(windowKey: string, instanceId: string, count: number, expiresAt: Date): Promise<number> {
  const write = windows()
    .doc(`${windowKey}~${instanceId}`)
    .set({ key: windowKey, count, expiresAt: Timestamp.fromDate(expiresAt) });
  const read = windows().where("key", "==", windowKey).select("count").get();
  const [, snap] = await Promise.all([write, read]);
  let others = 0;
  for (const doc of snap.docs) if (doc.id !== `${windowKey}~${instanceId}`) others += Number(doc.get("count")) || 0;
  return others;
}

/** Per-workspace overrides, set by an operator (`npm run admin -- set-rate-limit`). */
export async function readRateLimitOverrides(merchantId: string): Promise<Record<string, number>> {
  const snap = await db().collection(COLLECTIONS.workspaces).doc(merchantId).get();
  const value = snap.get("rateLimits") as unknown;
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => Number.isInteger(v) && (v as number) > 0)) as Record<string, number>;
}

export async function writeRateLimitOverride(merchantId: string, limit: string, max: number | null): Promise<void> {
  const { FieldValue } = await import("firebase-admin/firestore");
  await db()
    .collection(COLLECTIONS.workspaces)
    .doc(merchantId)
    .set({ rateLimits: { [limit]: max === null ? FieldValue.delete() : max } }, { merge: true });
}
