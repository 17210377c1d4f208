// This instance's side of the exact scan cap (docs/campaign-rules.md, "The cap counter"; the documents are
// store/campaignCaps.ts). Per capped code: one lease at a time, its allowances handed to people's scans in
// memory (no write per scan for the counter beyond the scan's own `capSpent` document), one lease request
// in flight with every scan that waits for it sharing it, and the block sized to demand: the scans waiting,
// doubled while blocks run out within a second, halved when they do not.
import { logError } from "../core/log";
import { LEASE_BLOCK_MAX, LEASE_SAFETY_MS, leaseAllowances, settleLease, spentRef, thresholdKey, type CapCounter, type Lease, type ThresholdCounter } from "../store/campaignCaps";
import type { ScanAllowance, ScanThresholds } from "../scans/record";

/** How long a cap found reached is answered from memory before the shards are read again (leases come back). */
export const REACHED_RECHECK_MS = 1_000;
const FAST_BLOCK_MS = 1_000;
/**
 * How long a person's scan waits for an allowance when none is held: past it the scan is answered
 * "cap-busy" (a page that tries again in a second, counted apart; docs/campaign-rules.md). Well under the
 * scan write's own wait (scans/record.ts SCAN_WRITE_WAIT_MS, 5 s), so the scan's batch still lands in time.
 */
export const LEASE_WAIT_MS = 2_000;

/** Why a capped code's person scan got no allowance. */
export type CapRefusal = "capped" | "cap-busy";
/** A lease with no allowance handed out for this long is settled: an idle instance strands nothing for long. */
export const IDLE_LEASE_MS = 1_000;
const CODES_MAX = 5_000;

interface HeldLease extends Lease {
  next: number;
  /** Allowances handed out and given back unspent (a scan that turned out a repeat), reused first. */
  free: number[];
  inFlight: number;
  retired: boolean;
  idle?: ReturnType<typeof setTimeout>;
}

interface CodeCap {
  counter: CapCounter;
  lease?: HeldLease;
  leasing?: Promise<LeaseResult>;
  waiting: number;
  chunk: number;
  reachedAt?: number;
  /** When this instance last got a lease for the code (performance.now()): blocks double while they run out within a second. */
  lastLeasedAt?: number;
}

/** A code's counter on this instance: the cap, or one of its scan-count thresholds. */
const keyOf = (counter: CapCounter) => `${counter.merchantId}/${counter.codeId}/${counter.key ?? ""}`;

/** One instance's allowances, per capped code (the module's `instanceCaps`; tests make several to act as instances). */
export class CapAllowances {
  private readonly caps = new Map<string, CodeCap>();

  private capOf(counter: CapCounter): CodeCap {
    const key = keyOf(counter);
    let cap = this.caps.get(key);
    if (cap && cap.counter.epoch === counter.epoch && cap.counter.shards === counter.shards && cap.counter.cap !== counter.cap) {
      // Raised (or set again) under the same epoch: the shards have more; look again on this scan.
      cap.counter = counter;
      cap.reachedAt = undefined;
    }
    if (!cap || cap.counter.epoch !== counter.epoch || cap.counter.shards !== counter.shards) {
      // A new epoch voids the old lease (its settle is ignored).
      if (this.caps.size >= CODES_MAX) this.caps.delete(this.caps.keys().next().value!);
      cap = { counter, waiting: 0, chunk: 1 };
      this.caps.set(key, cap);
    }
    return cap;
  }

  /**
   * Whether this instance last found the cap reached (a bot or a repeat gets the closed answer then). It
   * holds until a lease finds allowances again (a person's scan asks at most once a second) or the cap is
   * raised: not only for the second after the finding, or machines and repeats would pass a spent cap.
   */
  reached(counter: CapCounter, now = Date.now()): boolean {
    const cap = this.caps.get(keyOf(counter));
    return !!cap && cap.counter.epoch === counter.epoch && cap.counter.cap === counter.cap && cap.reachedAt !== undefined && !usable(cap.lease, now);
  }

  /**
   * An allowance for one person's scan of a capped code, "capped" when the cap is reached, or "cap-busy"
   * when no lease came within `waitMs` (or the lease failed): the scan is then neither admitted nor refused
   * for good (the redirect answers a page that tries again; docs/campaign-rules.md, "A bounded wait"). The
   * scan creates `spent` in its own batch; `release(used)` tells whether it did (false: a repeat, the
   * allowance is reused).
   */
  async take(counter: CapCounter, waitMs = LEASE_WAIT_MS): Promise<ScanAllowance | CapRefusal> {
    const cap = this.capOf(counter);
    cap.waiting++; // a lease asks for a block as large as the scans waiting for one (at least)
    try {
      return await this.takeFrom(cap, Date.now() + waitMs);
    } finally {
      cap.waiting--;
    }
  }

  private async takeFrom(cap: CodeCap, deadline: number): Promise<ScanAllowance | CapRefusal> {
    const counter = cap.counter;
    for (;;) {
      const now = Date.now();
      const held = cap.lease;
      if (usable(held, now)) {
        const k = held.free.pop() ?? held.next++;
        held.inFlight++;
        clearTimeout(held.idle);
        held.idle = setTimeout(() => retire(cap, held), IDLE_LEASE_MS);
        held.idle.unref?.();
        if (held.next >= held.size && !held.free.length) retire(cap, held);
        let released = false;
        return {
          spent: spentRef(counter.merchantId, held.id, k),
          release(used: boolean) {
            if (released) return;
            released = true;
            held.inFlight--;
            if (!used && !held.retired) held.free.push(k);
            maybeSettle(counter, held);
          },
        };
      }
      if (held) retire(cap, held);
      if (!cap.leasing) {
        if (cap.reachedAt !== undefined && now - cap.reachedAt < REACHED_RECHECK_MS) return "capped";
        cap.leasing = lease(cap).finally(() => (cap.leasing = undefined));
      }
      // Every scan of this code on this instance waits on the one lease request in flight, for a bounded time.
      const result = await within(cap.leasing, deadline - now);
      if (result === "late" || result === "failed") return "cap-busy";
      if (result === "reached") return "capped";
    }
  }
}

/** The answer of a lease request, or "late" when it did not come within the scan's wait. */
function within(leasing: Promise<LeaseResult>, ms: number): Promise<LeaseResult | "late"> {
  if (ms <= 0) return Promise.resolve("late");
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("late"), ms);
    timer.unref?.();
    void leasing.then((result) => { // lease() never rejects
      clearTimeout(timer);
      resolve(result);
    });
  });
}

/** This instance's allowances. */
export const instanceCaps = new CapAllowances();

function usable(lease: HeldLease | undefined, now: number): lease is HeldLease {
  return !!lease && !lease.retired && now < lease.expiresAt - LEASE_SAFETY_MS && (lease.free.length > 0 || lease.next < lease.size);
}

function retire(cap: CodeCap, lease: HeldLease): void {
  clearTimeout(lease.idle);
  lease.retired = true;
  if (cap.lease === lease) cap.lease = undefined;
  maybeSettle(cap.counter, lease);
}

function maybeSettle(counter: CapCounter, lease: HeldLease): void {
  if (!lease.retired || lease.inFlight > 0) return;
  lease.inFlight = -1; // settled once
  settleLease(counter, lease).catch((error) => logError("campaign.cap_settle_failed", "a cap lease was not settled (reclaimed after its expiry)", error, { codeId: counter.codeId }));
}

type LeaseResult = "leased" | "reached" | "failed";

/** One lease request for a code on this instance (every waiting scan shares it); never rejects. */
function lease(cap: CodeCap): Promise<LeaseResult> {
  const now = Date.now();
  const last = cap.lease;
  if (last) retire(cap, last);
  // The previous block (retired before this request, so kept apart) ran out within a second: double.
  const fast = cap.lastLeasedAt !== undefined && performance.now() - cap.lastLeasedAt < FAST_BLOCK_MS;
  cap.chunk = Math.min(LEASE_BLOCK_MAX, fast ? cap.chunk * 2 : Math.max(1, cap.chunk >> 1));
  const want = Math.min(LEASE_BLOCK_MAX, Math.max(cap.chunk, cap.waiting));
  return leaseAllowances(cap.counter, want, now).then(
    (got): LeaseResult => {
      if (!got) {
        cap.reachedAt = Date.now();
        return "reached";
      }
      cap.reachedAt = undefined;
      cap.lastLeasedAt = performance.now();
      cap.lease = { ...got, next: 0, free: [], inFlight: 0, retired: false };
      return "leased";
    },
    (error): LeaseResult => {
      // Never over the cap: the scans waiting get "cap-busy" (not refused for good); the next scan asks again.
      logError("campaign.cap_lease_failed", "a cap lease failed", error, { codeId: cap.counter.codeId });
      return "failed";
    },
  );
}

// ---- scan-count thresholds (docs/campaign-rules.md, "Scan-count conditions") ----

/**
 * What a code with scanCount conditions asks of a scan (scans/record.ts ScanGate `thresholds`), on one
 * instance: a person's scan takes one allowance from every threshold counter this instance does not know
 * exhausted. Getting one from the counter of T means the person is among the first T people (count before
 * < T); none left means count before >= T. The representative count is the largest threshold found
 * exhausted (0 if none): every condition answers the same for any count between two thresholds, so
 * evaluating with it is exact. A counter that answered nothing in time makes the scan "cap-busy" (the
 * page that tries again), as a cap does: the count is never guessed for a person.
 */
export function scanCountGate(counters: CapCounter[], instance: CapAllowances = instanceCaps): ScanThresholds {
  const known = () => counters.reduce((rep, c) => (instance.reached(c) && c.cap > rep ? c.cap : rep), 0);
  return {
    known,
    async take(waitMs = LEASE_WAIT_MS) {
      const took = await Promise.all(counters.map((c) => (instance.reached(c) ? ("capped" as const) : instance.take(c, waitMs))));
      const allowances = took.filter((t): t is ScanAllowance => typeof t !== "string");
      if (took.includes("cap-busy")) {
        for (const a of allowances) a.release(false);
        return "cap-busy";
      }
      const scanCount = counters.reduce((rep, c, i) => (took[i] === "capped" && c.cap > rep ? c.cap : rep), 0);
      return { allowances, scanCount };
    },
  };
}

/** The threshold counters of a code, as CapAllowances takes them. */
export const thresholdCounters = (merchantId: string, codeId: string, counters: ThresholdCounter[]): CapCounter[] =>
  counters.map((c) => ({ merchantId, codeId, cap: c.threshold, epoch: c.epoch, shards: c.shards, key: thresholdKey(c.threshold) }));
