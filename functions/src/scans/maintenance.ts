// Upkeep of scan data, every 10 minutes: destroys daily secrets past their 48 hours, counts what waits in
// the scan outbox (scans/consume.ts drainOutbox), and folds the
// instances' rollup shards into one document per code-day and per workspace-day (store/rollups.ts), so an
// analytics query reads about one document per day. Each rollup is folded in its own transaction; one
// that cannot be folded is logged and skipped and every other is still folded. A code-day's fold also moves
// the code's stored 7- and 30-day scans (its ledger, store/scanLedger.ts); then the maintenance seeds the
// ledgers of codes from before them, sums again those of codes whose window moved (scans/codeScanCounts.ts),
// and goes on with the catalogue backfill, if one is due (store/catalogue.ts). Idempotent: safe to run twice,
// late, or alongside the instances writing new shards.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import { foldRollup, rollupsWithShards, type RollupKind } from "../store/rollups";
import { logError, logRollupFoldSkipped } from "../core/log";
import { drainOutbox } from "./consume";
import { continueCatalogueBackfill } from "../store/catalogue";
import { recountCodeScans, recountStaleCodes, scanWindow, timeZoneCache } from "./codeScanCounts";

/** Backfill pages (200 codes each) one run takes at most. */
const BACKFILL_PAGES_PER_RUN = 10;

export async function runScanMaintenance(now = new Date()) {
  const secretsDestroyed = await destroyExpiredSecrets(now);
  // Before the fold, so the scans it counts are folded in this run. Consumer instances drain it too, but only
  // while pushes reach them: this drain counts what waits when none do (those whose subscribers must hear of
  // them are left for an instance, which can queue notices: scans/consume.ts scanNotices).
  const outboxDrained = await drainOutbox().catch((error: unknown) => (logError("scan.outbox_drain_failed", "the outbox could not be read", error), 0));
  const counted = await foldAndCount(now);
  const backfill = await continueCatalogueBackfill(BACKFILL_PAGES_PER_RUN);
  return { secretsDestroyed, outboxDrained, ...counted, catalogueUpgraded: backfill.upgraded };
}

/** The fold and the codes' stored counts at `now` (the windows are the workspaces' local days at `now`). */
export async function foldAndCount(now = new Date()) {
  const zoneOf = timeZoneCache();
  const folded = await foldAll(zoneOf, now);
  let ledgersSeeded = 0;
  // Codes from before the ledger whose days were just folded: seeded once from their folded days.
  await eachAtMost([...folded.unseeded], FOLDS_AT_ONCE, async (key) => {
    const [merchantId, codeId] = key.split("/");
    try {
      if (await recountCodeScans(merchantId, codeId, await zoneOf(merchantId), now)) ledgersSeeded++;
    } catch (error) {
      logRollupFoldSkipped({ merchantId, rollup: `codes/${codeId}/scans7` }, error);
    }
  });
  const staleRecounted = await recountStaleCodes(zoneOf, now);
  return { ...folded.counts, ledgersSeeded, staleRecounted };
}

type FoldPage = Awaited<ReturnType<typeof rollupsWithShards>>;

/** A rollup's folded document takes at most one write a second: a rollup folded again in a run waits this long. */
const REFOLD_WAIT_MS = 1_000;
/**
 * Rollups folded at once: each fold is a transaction that locks only its own rollup's documents, so they
 * never contend, and one at a time (about 16 a second on the emulator) would leave a chain's rollups (up
 * to 100,000 in 10 minutes) behind.
 */
const FOLDS_AT_ONCE = 16;

/** Calls `fn` on every item, at most `limit` calls at a time. */
async function eachAtMost<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function foldAll(zoneOf: (merchantId: string) => Promise<string>, now: Date) {
  const unseeded = new Set<string>();
  let rollupsFolded = 0;
  let shardsFolded = 0;
  let rollupsSkipped = 0;
  let ledgersMoved = 0;
  /** When each rollup, and each code's document, may be written next in this run (taken before the fold starts: folds run side by side). */
  const nextWrite = new Map<string, number>();
  const seen = new Set<string>();
  const fold = async (kind: RollupKind, p: FoldPage["rollups"][number]) => {
    const key = `${kind}/${p.merchantId}/${p.baseId}`;
    // A code's days fold into its one code document: one of them a second, like each rollup's own.
    const keys = kind === "codeDays" && p.codeId ? [key, `codes/${p.merchantId}/${p.codeId}`] : [key];
    const at = Math.max(Date.now(), ...keys.map((k) => nextWrite.get(k) ?? 0));
    for (const k of keys) nextWrite.set(k, at + REFOLD_WAIT_MS);
    if (at > Date.now()) await new Promise((r) => setTimeout(r, at - Date.now()));
    try {
      const code = kind === "codeDays" && p.codeId ? { codeId: p.codeId, window: scanWindow(await zoneOf(p.merchantId), now) } : undefined;
      const took = await foldRollup(p.merchantId, kind, p.baseId, p.shards, code); // read the sums after the await: folds run side by side
      shardsFolded += took.shards;
      if (!seen.has(key)) rollupsFolded++;
      if (took.ledger === "written") ledgersMoved++;
      if (took.ledger === "unseeded") unseeded.add(`${p.merchantId}/${p.codeId}`);
    } catch (error) {
      rollupsSkipped++;
      logRollupFoldSkipped({ merchantId: p.merchantId, rollup: `${kind}/${p.baseId}` }, error);
    } finally {
      seen.add(key);
    }
  };
  for (const kind of ["codeDays", "scanDays"] as RollupKind[]) {
    // One pass through the shards in document order, a page (at most one transaction's worth) at a time:
    // the run ends even while instances keep writing new shards (the next run takes those behind it).
    let after: FoldPage["next"];
    do {
      const page = await rollupsWithShards(kind, after);
      after = page.next;
      await eachAtMost(page.rollups, FOLDS_AT_ONCE, (p) => fold(kind, p));
    } while (after);
  }
  return { unseeded, counts: { rollupsFolded, shardsFolded, rollupsSkipped, ledgersMoved } };
}
