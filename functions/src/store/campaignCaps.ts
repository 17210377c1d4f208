// The exact scan-cap counter of a capped code (issue 38, docs/campaign-rules.md "The cap counter"). A cap of
// N people's scans is split into allowances held by a few shard documents; an instance leases a block of
// allowances from one shard (an update conditioned on the shard's last update time, no transaction) and
// admits people from it in memory (campaigns/caps.ts):
//
//   workspaces/{m}/capShards/{codeId}~{s}       remaining (allowances not leased), the cap's epoch, and the
//                                               open leases {leaseId: {size, expiresAt}} (at most LEASES_MAX)
//   workspaces/{m}/capSpent/{leaseId}~{k}       one per admitted person: created in the scan's own batch
//                                               (store/scans.ts), so an allowance is spent exactly when the
//                                               person's scan is recorded
//
// A lease is settled (by its instance when it is used up or near its expiry, or by any instance once it
// expired LEASE_GRACE_MS ago) by counting its capSpent documents: what was not spent goes back to
// `remaining`. Nothing is admitted twice and nothing is lost. Each shard takes a lease and a settle per
// block; blocks are sized to about a second of an instance's traffic, so a shard takes about one write a
// second (docs/data-model.md, "Cap shards").
import { randomBytes } from "node:crypto";
import { FieldPath, FieldValue, Timestamp, type DocumentReference, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import type { StoredCampaignRules } from "./codes";
import { countOps } from "./opCounter";

/** Shards of a cap (fewer for a small cap: see SHARD_ALLOWANCES_MIN). */
export const CAP_SHARDS_MAX = 8;
/**
 * A shard starts with at least this many allowances when the cap allows: a cap of 20 in 8 shards of 2 or 3
 * made the people waiting on an instance wait through one lease after another (each took 2 or 3).
 */
export const SHARD_ALLOWANCES_MIN = 16;
/** Largest block one lease takes. */
export const LEASE_BLOCK_MAX = 500;
/** A lease is used until LEASE_SAFETY_MS before this, then settled. */
export const LEASE_MS = 10_000;
export const LEASE_SAFETY_MS = 2_000;
/**
 * An unsettled lease is reclaimed by others this long after its expiry: a write in flight has landed or
 * failed for good by then (a scan's last commit ends within SCAN_QUEUE_WAIT_MS + 2 COMMIT_RETRY_BUDGET_MS,
 * about 40 s: store/scans.ts afterFailure, core/firebase.ts; scan-retries.test.ts checks the margin).
 */
export const LEASE_GRACE_MS = 60_000;
/** Open leases a shard holds at most (each about 40 bytes): the shard document stays under 4 KB. */
export const LEASES_MAX = 64;
/** capSpent documents are kept this long (TTL): a lease older than this when reclaimed counts as fully spent. */
export const SPENT_RETENTION_MS = 30 * 86_400_000;

const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);
/** A counter's shard: `{codeId}~{s}` for the cap, `{codeId}~{key}~{s}` for another counter of the code (a scan-count threshold, `n{T}`). */
const shardRef = (merchantId: string, codeId: string, shard: number, key?: string) => workspace(merchantId).collection("capShards").doc(key ? `${codeId}~${key}~${shard}` : `${codeId}~${shard}`);
const shardRefOf = (counter: Pick<CapCounter, "merchantId" | "codeId" | "key">, shard: number) => shardRef(counter.merchantId, counter.codeId, shard, counter.key);
const spentCol = (merchantId: string) => workspace(merchantId).collection("capSpent");

/** The document whose creation spends allowance `k` of a lease (created in the admitted scan's batch). */
export const spentRef = (merchantId: string, leaseId: string, k: number): DocumentReference => spentCol(merchantId).doc(`${leaseId}~${k}`);
/** What a capSpent document holds: only its expiry. */
export const spentData = (at: Date) => ({ expiresAt: Timestamp.fromMillis(at.getTime() + SPENT_RETENTION_MS) });

interface OpenLease {
  size: number;
  expiresAt: number;
}

interface Shard {
  epoch: string;
  remaining: number;
  leases: Record<string, OpenLease>;
}

/** Where a code's cap stands, as its link carries it (campaigns/service.ts writes it). */
export interface CapCounter {
  merchantId: string;
  codeId: string;
  /** Changes when the counter is made anew (a cap set, or lowered): leases of another epoch are void. */
  epoch: string;
  shards: number;
  /** The cap N itself (a raise keeps the epoch and changes only this); a scan-count threshold T: T. */
  cap: number;
  /** Which counter of the code: absent for the cap (humanScanCap), `n{T}` for the scan-count threshold T. */
  key?: string;
}

export interface Lease {
  id: string;
  shard: number;
  size: number;
  expiresAt: number;
}

const shardOf = (data: FirebaseFirestore.DocumentData | undefined): Shard | undefined =>
  data ? { epoch: String(data.epoch), remaining: Number(data.remaining) || 0, leases: (data.leases ?? {}) as Record<string, OpenLease> } : undefined;

/** Splits n into `parts` near-equal whole parts (the first ones one larger). */
export function splitEvenly(n: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0));
}

// ---- setting a cap (inside setCodeCampaign's transaction) ----

/** A link's campaign settings as stored (campaigns/service.ts LinkCampaignRules), read in the transaction that changes them. */
export async function linkRulesInTransaction(tx: Transaction, uniqueQRCodeID: string): Promise<StoredCampaignRules | undefined> {
  const snap = await tx.get(db().collection(COLLECTIONS.links).doc(uniqueQRCodeID));
  countOps({ reads: 1 });
  return snap.get("campaignRules") as StoredCampaignRules | undefined;
}

/** The counter a link's settings name (`capCounter` beside `humanScanCap`). */
export function capOfLinkRules(stored: StoredCampaignRules | undefined): { cap: number; epoch: string; shards: number } | undefined {
  const rules = stored as { humanScanCap?: number; capCounter?: { epoch: string; shards: number } } | undefined;
  return rules?.humanScanCap !== undefined && rules.capCounter ? { cap: rules.humanScanCap, ...rules.capCounter } : undefined;
}

export interface CapPlan {
  epoch: string;
  shards: number;
  /** Applies the change; call after every read of the transaction. */
  write(): void;
}

/**
 * Plans the counter for a code whose cap goes from `before` (absent: none) to `cap`: raising it keeps the
 * epoch and adds the difference to the shards (the code re-opens on the next scan); a new cap, or a lower
 * one, starts a new epoch whose shards hold what is left under it, counting every allowance leased under
 * the old one as spent (so lowering never admits more than the new cap; leases out may be wasted).
 */
export async function planCap(tx: Transaction, merchantId: string, codeId: string, before: { cap: number; epoch: string; shards: number } | undefined, cap: number): Promise<CapPlan> {
  if (before && cap >= before.cap) {
    const refs = Array.from({ length: before.shards }, (_, s) => shardRef(merchantId, codeId, s));
    const snaps = await tx.getAll(...refs);
    countOps({ reads: refs.length });
    const add = splitEvenly(cap - before.cap, before.shards);
    return {
      epoch: before.epoch,
      shards: before.shards,
      write() {
        snaps.forEach((snap, s) => {
          if (!add[s]) return;
          if (snap.exists && snap.get("epoch") === before.epoch) tx.update(refs[s], { remaining: FieldValue.increment(add[s]) });
          else tx.set(refs[s], { codeId, epoch: before.epoch, remaining: add[s], leases: {} });
        });
        countOps({ writes: add.filter(Boolean).length });
      },
    };
  }
  const admitted = before ? before.cap - (await leftIn(tx, { merchantId, codeId }, before)) : 0;
  return freshCounter(tx, { merchantId, codeId }, cap, admitted, before?.shards ?? 0);
}

/** What a counter's shards hold under its epoch (leases out count as spent), read in a transaction. */
async function leftIn(tx: Transaction, of: Pick<CapCounter, "merchantId" | "codeId" | "key">, counter: { epoch: string; shards: number }): Promise<number> {
  const snaps = await tx.getAll(...Array.from({ length: counter.shards }, (_, s) => shardRefOf(of, s)));
  countOps({ reads: counter.shards });
  return snaps.reduce((sum, snap) => sum + (snap.exists && snap.get("epoch") === counter.epoch ? Number(snap.get("remaining")) || 0 : 0), 0);
}

/**
 * A counter made anew (a new epoch: leases of the old one are void) holding `cap` minus what was `admitted`
 * already. Shards the old counter had beyond the new count are emptied under the new epoch too: a scan that
 * still carries the old counter (a link read just before the change) must find nothing left in them.
 */
function freshCounter(tx: Transaction, of: Pick<CapCounter, "merchantId" | "codeId" | "key">, cap: number, admitted: number, priorShards = 0): CapPlan {
  const epoch = randomBytes(6).toString("base64url");
  const shards = Math.max(1, Math.min(CAP_SHARDS_MAX, Math.ceil(cap / SHARD_ALLOWANCES_MIN)));
  const parts = splitEvenly(Math.max(0, cap - Math.max(0, admitted)), shards);
  return {
    epoch,
    shards,
    write() {
      const write = (s: number, remaining: number) => tx.set(shardRefOf(of, s), { codeId: of.codeId, ...(of.key ? { counter: of.key } : {}), epoch, remaining, leases: {} });
      parts.forEach((remaining, s) => write(s, remaining));
      for (let s = shards; s < priorShards; s++) write(s, 0);
      countOps({ writes: Math.max(shards, priorShards) });
    },
  };
}

// ---- scan-count thresholds (docs/campaign-rules.md, "Scan-count conditions") ----

/** Most distinct scan-count thresholds one code may have (each is a counter a person's scan spends from). */
export const SCAN_COUNT_THRESHOLDS_MAX = 4;

/** One threshold's counter as the link carries it (`scanCounters`). */
export interface ThresholdCounter {
  threshold: number;
  epoch: string;
  shards: number;
}

export const thresholdKey = (threshold: number) => `n${threshold}`;

/** The threshold counters a link's settings name (`scanCounters`). */
export function thresholdsOfLinkRules(stored: StoredCampaignRules | undefined): ThresholdCounter[] {
  const counters = (stored as { scanCounters?: ThresholdCounter[] } | undefined)?.scanCounters;
  return Array.isArray(counters) ? counters : [];
}

/**
 * Plans the threshold counters of a code whose thresholds become `thresholds` (distinct, ascending). A
 * threshold kept keeps its counter. A new one is made anew, starting from the people counted so far as
 * the nearest old counter knows them: the smallest old threshold at or above it (it knows every count up
 * to itself, leases out counted as spent), else the largest below it (which counted people only up to its
 * threshold: people past it before the change are not counted). With no old counter, it starts at 0.
 * Reads everything first; `write()` applies the change (after every read of the transaction).
 */
export async function planThresholds(tx: Transaction, merchantId: string, codeId: string, before: ThresholdCounter[], thresholds: number[]): Promise<{ counters: ThresholdCounter[]; write(): void }> {
  const plans: { counter: ThresholdCounter; write?: () => void }[] = [];
  for (const threshold of thresholds) {
    const kept = before.find((b) => b.threshold === threshold);
    if (kept) {
      plans.push({ counter: kept });
      continue;
    }
    const source = before.filter((b) => b.threshold > threshold).sort((a, b) => a.threshold - b.threshold)[0] ?? before.filter((b) => b.threshold < threshold).sort((a, b) => b.threshold - a.threshold)[0];
    const admitted = source ? source.threshold - (await leftIn(tx, { merchantId, codeId, key: thresholdKey(source.threshold) }, source)) : 0;
    const plan = freshCounter(tx, { merchantId, codeId, key: thresholdKey(threshold) }, threshold, admitted);
    plans.push({ counter: { threshold, epoch: plan.epoch, shards: plan.shards }, write: plan.write });
  }
  return { counters: plans.map((p) => p.counter), write: () => plans.forEach((p) => p.write?.()) };
}

// ---- leasing, settling ----

/** How many allowances of a lease were spent: its capSpent documents (one count query). */
export async function spentOf(merchantId: string, leaseId: string): Promise<number> {
  const snap = await spentCol(merchantId).where(FieldPath.documentId(), ">=", `${leaseId}~`).where(FieldPath.documentId(), "<", `${leaseId}~\uf8ff`).count().get();
  countOps({ reads: 1 });
  return snap.data().count;
}

/** How many times a lease or a settle re-reads and tries again when another instance changed the shard first. */
export const CLAIM_ATTEMPTS = 12;

/** Firestore's FAILED_PRECONDITION: the shard changed since it was read (another lease or settle won). */
const FAILED_PRECONDITION = 9;
const lostRace = (error: unknown) => (error as { code?: number }).code === FAILED_PRECONDITION;

/** The cap's shards could not be claimed in CLAIM_ATTEMPTS tries (others kept winning): not an answer on the cap. */
export class CapContended extends Error {}

/** Fisher-Yates over a copy: the order in which a lease tries the shards that have allowances. */
function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Takes a block of at most `want` allowances from a shard picked at random among those that have any.
 * No transaction: the shards are read, and the claim is an update conditioned on the shard's last update
 * time, so instances never wait on each other's locks (a transaction under contention waits for locks and
 * backs off for seconds: what made scans of a hot capped code slow). An instance that loses the race to a
 * shard tries the next one of those it read, then reads them again (at most CLAIM_ATTEMPTS claims).
 * Expired leases found on the way are reclaimed first. Undefined when no shard has any left: the cap is
 * reached (for now: a lease out may still come back). CapContended when every claim lost its race.
 */
export async function leaseAllowances(counter: CapCounter, want: number, now = Date.now(), random: () => number = Math.random): Promise<Lease | undefined> {
  const refs = Array.from({ length: counter.shards }, (_, s) => shardRefOf(counter, s));
  let claims = 0;
  while (claims < CLAIM_ATTEMPTS) {
    const snaps = await db().getAll(...refs);
    countOps({ reads: refs.length });
    const shards = snaps.map((snap) => shardOf(snap.data()));
    const expired = shards.flatMap((shard, s) =>
      shard?.epoch !== counter.epoch ? [] : Object.entries(shard.leases).filter(([, lease]) => now > lease.expiresAt + LEASE_GRACE_MS).map(([id, lease]) => ({ id, shard: s, size: lease.size, expiresAt: lease.expiresAt })),
    );
    if (expired.length) {
      for (const lease of expired) await settleLease(counter, lease, now);
      claims++;
      continue;
    }
    const open = shards.flatMap((shard, s) => (shard && shard.epoch === counter.epoch && shard.remaining > 0 && Object.keys(shard.leases).length < LEASES_MAX ? [s] : []));
    if (!open.length) return undefined;
    for (const s of shuffled(open, random)) {
      if (claims++ >= CLAIM_ATTEMPTS) break;
      const size = Math.min(want, shards[s]!.remaining, LEASE_BLOCK_MAX);
      const taken: Lease = { id: `l${randomBytes(8).toString("hex")}`, shard: s, size, expiresAt: now + LEASE_MS };
      try {
        await refs[s].update({ remaining: FieldValue.increment(-size), [`leases.${taken.id}`]: { size, expiresAt: taken.expiresAt } }, { lastUpdateTime: snaps[s].updateTime! });
        countOps({ writes: 1 });
        return taken;
      } catch (error) {
        if (!lostRace(error)) throw error;
      }
    }
  }
  throw new CapContended(`no cap shard of ${counter.codeId} claimed in ${CLAIM_ATTEMPTS} tries`);
}

/**
 * Ends a lease: what it did not spend goes back to its shard. Called by its instance once no scan of it is
 * in flight, or by anyone LEASE_GRACE_MS after its expiry. A lease of another epoch, or already settled,
 * changes nothing. Like a lease, an update conditioned on the shard's last update time (read again when
 * another instance changed it first).
 */
export async function settleLease(counter: CapCounter, lease: Lease, now = Date.now()): Promise<void> {
  // A lease older than the capSpent documents' retention cannot be counted: taken as fully spent (never over the cap).
  const spent = now - lease.expiresAt > SPENT_RETENTION_MS - 86_400_000 ? lease.size : await spentOf(counter.merchantId, lease.id);
  const ref = shardRefOf(counter, lease.shard);
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const snap = await ref.get();
    countOps({ reads: 1 });
    const shard = shardOf(snap.data());
    if (!shard || shard.epoch !== counter.epoch || !shard.leases[lease.id]) return;
    try {
      await ref.update({ remaining: FieldValue.increment(Math.max(0, lease.size - spent)), [`leases.${lease.id}`]: FieldValue.delete() }, { lastUpdateTime: snap.updateTime! });
      countOps({ writes: 1 });
      return;
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
  }
  throw new CapContended(`lease ${lease.id} of ${counter.codeId} not settled in ${CLAIM_ATTEMPTS} tries`);
}
