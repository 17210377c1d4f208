// Upkeep of scan data, every 10 minutes: destroys daily secrets past their 48 hours, and folds the
// instances' rollup shards into one document per code-day and per workspace-day (store/rollups.ts), so an
// analytics query reads about one document per day. Each rollup is folded in its own transaction; one
// that cannot be folded is logged and skipped and every other is still folded. Then it recounts the stored
// 7- and 30-day scans of the codes it folded and of codes whose window moved (scans/codeScanCounts.ts), and
// goes on with the catalogue backfill, if one is due (store/catalogue.ts). Idempotent: safe to run twice,
// late, or alongside the instances writing new shards.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import type { DocumentReference } from "firebase-admin/firestore";
import { foldRollup, rollupsWithShards, type RollupKind } from "../store/rollups";
import { logRollupFoldSkipped } from "../core/log";
import { continueCatalogueBackfill } from "../store/catalogue";
import { recountCodeScans, recountStaleCodes, timeZoneCache } from "./codeScanCounts";

/** Backfill pages (200 codes each) one run takes at most. */
const BACKFILL_PAGES_PER_RUN = 10;

export async function runScanMaintenance(now = new Date()) {
  const secretsDestroyed = await destroyExpiredSecrets(now);
  const folded = await foldAll();
  const zoneOf = timeZoneCache();
  let codesRecounted = 0;
  await eachAtMost([...folded.codes], FOLDS_AT_ONCE, async (key) => {
    const [merchantId, codeId] = key.split("/");
    try {
      if (await recountCodeScans(merchantId, codeId, await zoneOf(merchantId), now)) codesRecounted++;
    } catch (error) {
      logRollupFoldSkipped({ merchantId, rollup: `codes/${codeId}/scans7` }, error);
    }
  });
  const staleRecounted = await recountStaleCodes(zoneOf, now);
  const backfill = await continueCatalogueBackfill(BACKFILL_PAGES_PER_RUN);
  return { secretsDestroyed, ...folded.counts, codesRecounted, staleRecounted, catalogueUpgraded: backfill.upgraded };
}

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

async function foldAll() {
  const codes = new Set<string>();
  let rollupsFolded = 0;
  let shardsFolded = 0;
  let rollupsSkipped = 0;
  /** When this run last folded each rollup (one whose shards fill more than a page is folded once per page). */
  const lastFold = new Map<string, number>();
  const fold = async (kind: RollupKind, p: { merchantId: string; baseId: string; shards: DocumentReference[] }) => {
    const key = `${kind}/${p.merchantId}/${p.baseId}`;
    const wait = (lastFold.get(key) ?? -Infinity) + REFOLD_WAIT_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    try {
      const took = await foldRollup(p.merchantId, kind, p.baseId, p.shards); // read the sum after the await: folds run side by side
      shardsFolded += took;
      if (!lastFold.has(key)) rollupsFolded++;
      if (kind === "codeDays") codes.add(`${p.merchantId}/${p.baseId.split("~")[0]}`);
    } catch (error) {
      rollupsSkipped++;
      logRollupFoldSkipped({ merchantId: p.merchantId, rollup: `${kind}/${p.baseId}` }, error);
    } finally {
      lastFold.set(key, Date.now());
    }
  };
  for (const kind of ["codeDays", "scanDays"] as RollupKind[]) {
    // One pass through the shards in document order, a page (at most one transaction's worth) at a time:
    // the run ends even while instances keep writing new shards (the next run takes those behind it).
    let after: Awaited<ReturnType<typeof rollupsWithShards>>["next"];
    do {
      const page = await rollupsWithShards(kind, after);
      after = page.next;
      await eachAtMost(page.rollups, FOLDS_AT_ONCE, (p) => fold(kind, p));
    } while (after);
  }
  return { codes, counts: { rollupsFolded, shardsFolded, rollupsSkipped } };
}
