// Rate-limit windows shared by every instance. Each instance writes its own total for a window:
//   rateLimits/{window key}~{instance}: key (the window key), count, expiresAt (TTL)
// and reads the others' totals with one query on `key`. An instance's document is written by that
// instance alone, so there is no contention on a hot key however many instances serve it.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import type { QuotaStore, RateLimitOverrides } from "../core/rateLimit";
import { COLLECTIONS } from "./collections";

const windows = () => db().collection(COLLECTIONS.rateLimits);

/** The sum of every other instance's total for a window. */
async function readWindowTotal(windowKey: string, instanceId: string): Promise<number> {
  const own = `${windowKey}~${instanceId}`;
  const snap = await windows().where("key", "==", windowKey).select("count").get();
  let others = 0;
  for (const doc of snap.docs) if (doc.id !== own) others += Number(doc.get("count")) || 0;
  return others;
}

/** Rounds a lease takes at most when concurrent leases cut one another. */
const LEASE_ROUNDS = 3;
/** The longest random pause, in ms per round, before a cut lease looks again. */
const LEASE_JITTER_MS = 25;

/**
 * Leases up to `chunk` more calls of a window for this instance, which holds `granted` so far, under `max`.
 * Writes the instance's new total first and only then reads the others' totals: of two concurrent
 * leases, at least one therefore sees the other's write, and the one that sees it keeps only what fits,
 * so the totals granted never exceed `max` (docs/decisions.md, "Rate limits"). What is not granted is
 * handed back at once. Leases that saw one another may both have cut and both handed back, leaving room
 * neither took: a cut lease looks again after a random pause and asks for part of what is left, for a few
 * rounds, each round writing before it reads. The window key is built from hashes and names only, so it
 * is a valid document id.
 */
async function leaseWindowQuota(
  windowKey: string,
  instanceId: string,
  granted: number,
  chunk: number,
  max: number,
  expiresAt: Date,
): Promise<{ granted: number; others: number }> {
  const own = windows().doc(`${windowKey}~${instanceId}`);
  const write = (count: number) => own.set({ key: windowKey, count, expiresAt: Timestamp.fromDate(expiresAt) });
  let total = granted;
  let want = chunk;
  let others = 0;
  for (let round = 1; ; round++) {
    await write(total + want);
    others = await readWindowTotal(windowKey, instanceId);
    const grant = Math.max(0, Math.min(want, max - others - total));
    total += grant;
    if (grant === want) break;
    await write(total);
    if (round === LEASE_ROUNDS) break;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * LEASE_JITTER_MS * round));
    others = await readWindowTotal(windowKey, instanceId);
    const room = max - others - total;
    if (room <= 0) break;
    want = Math.min(want - grant, Math.max(1, Math.floor(room / 2)));
  }
  return { granted: total, others };
}

const positiveIntegers = (value: unknown): Record<string, number> =>
  typeof value === "object" && value !== null
    ? (Object.fromEntries(Object.entries(value).filter(([, v]) => Number.isInteger(v) && (v as number) > 0)) as Record<string, number>)
    : {};

/** Per-workspace overrides, set by an operator (`npm run admin -- set-rate-limit`). */
async function readRateLimitOverrides(merchantId: string): Promise<RateLimitOverrides> {
  const snap = await db().collection(COLLECTIONS.workspaces).doc(merchantId).get();
  return { subject: positiveIntegers(snap.get("rateLimits")), workspace: positiveIntegers(snap.get("workspaceRateLimits")) };
}

/** Sets (or with `null` clears) a workspace's per-credential max, or with `per: "workspace"` its aggregate max. */
export async function writeRateLimitOverride(merchantId: string, limit: string, max: number | null, per: "credential" | "workspace" = "credential"): Promise<void> {
  const { FieldValue } = await import("firebase-admin/firestore");
  const field = per === "workspace" ? "workspaceRateLimits" : "rateLimits";
  await db()
    .collection(COLLECTIONS.workspaces)
    .doc(merchantId)
    .set({ [field]: { [limit]: max === null ? FieldValue.delete() : max } }, { merge: true });
}

/** The rate limiter's windows in Firestore (core/rateLimit.ts QuotaStore). */
export const firestoreQuotaStore: QuotaStore = { readWindowTotal, leaseWindowQuota, readRateLimitOverrides };
