// Upkeep of scan data, every 10 minutes: destroys daily secrets past their 48 hours, and folds the
// instances' rollup shards into one document per code-day and per workspace-day (store/rollups.ts), so an
// analytics query reads about one document per day. Each rollup is folded in its own transaction; one
// that cannot be folded is logged and skipped and every other is still folded. Then it recounts the stored
// 7- and 30-day scans of the codes it folded and of codes whose window moved (scans/codeScanCounts.ts), and
// goes on with the catalogue backfill, if one is due (store/catalogue.ts). Idempotent: safe to run twice,
// late, or alongside the instances writing new shards.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import { FOLD_SHARDS_MAX, foldRollup, rollupsWithShards, type RollupKind } from "../store/rollups";
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
  for (const key of folded.codes) {
    const [merchantId, codeId] = key.split("/");
    try {
      if (await recountCodeScans(merchantId, codeId, await zoneOf(merchantId), now)) codesRecounted++;
    } catch (error) {
      logRollupFoldSkipped({ merchantId, rollup: `codes/${codeId}/scans7` }, error);
    }
  }
  const staleRecounted = await recountStaleCodes(zoneOf, now);
  const backfill = await continueCatalogueBackfill(BACKFILL_PAGES_PER_RUN);
  return { secretsDestroyed, ...folded.counts, codesRecounted, staleRecounted, catalogueUpgraded: backfill.upgraded };
}

/**
 * Folds a rollup again within one run while its last fold took all FOLD_SHARDS_MAX shards a transaction
 * holds (a hot code-day on more than three instances has more), up to this many folds in all: each
 * instance keeps at most 128 shards of a rollup, so 32 folds clear 32 instances' worth.
 */
const FOLDS_PER_ROLLUP_MAX = 32;
/** A rollup's folded document takes at most one write a second: repeated folds of it wait this long. */
const REFOLD_WAIT_MS = 1_000;

async function foldAll() {
  const codes = new Set<string>();
  let rollupsFolded = 0;
  let shardsFolded = 0;
  let rollupsSkipped = 0;
  /** Folds one rollup; true when it took a full transaction's worth (more may be left). */
  const fold = async (kind: RollupKind, p: { merchantId: string; baseId: string }, again = false): Promise<boolean> => {
    try {
      const took = await foldRollup(p.merchantId, kind, p.baseId);
      shardsFolded += took;
      if (!again) rollupsFolded++;
      if (kind === "codeDays") codes.add(`${p.merchantId}/${p.baseId.split("~")[0]}`);
      return took >= FOLD_SHARDS_MAX;
    } catch (error) {
      rollupsSkipped++;
      logRollupFoldSkipped({ merchantId: p.merchantId, rollup: `${kind}/${p.baseId}` }, error);
      return false;
    }
  };
  for (const kind of ["codeDays", "scanDays"] as RollupKind[]) {
    // One pass through the shards in document order: each rollup is folded once, and again (a bounded
    // number of times) only while its folds come back full, so the run ends even while instances keep
    // writing new shards (the next run takes those).
    const done = new Set<string>();
    let full: Array<{ merchantId: string; baseId: string }> = [];
    let after: Awaited<ReturnType<typeof rollupsWithShards>>["next"];
    do {
      const page = await rollupsWithShards(kind, after);
      after = page.next;
      for (const p of page.rollups) {
        const key = `${p.merchantId}/${p.baseId}`;
        if (done.has(key)) continue;
        done.add(key);
        if (await fold(kind, p)) full.push(p);
      }
    } while (after);
    for (let folds = 1; full.length && folds < FOLDS_PER_ROLLUP_MAX; folds++) {
      await new Promise((r) => setTimeout(r, REFOLD_WAIT_MS));
      const again: typeof full = [];
      for (const p of full) if (await fold(kind, p, true)) again.push(p);
      full = again;
    }
  }
  return { codes, counts: { rollupsFolded, shardsFolded, rollupsSkipped } };
}
