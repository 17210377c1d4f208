// Upkeep of scan data, every 10 minutes: destroys daily secrets past their 48 hours, and folds the
// instances' rollup shards into one document per code-day and per workspace-day (store/rollups.ts), so an
// analytics query reads about one document per day. Each rollup is folded in its own transaction; one
// that cannot be folded is logged and skipped and every other is still folded. Then it recounts the stored
// 7- and 30-day scans of the codes it folded and of codes whose window moved (scans/codeScanCounts.ts), and
// goes on with the catalogue backfill, if one is due (store/catalogue.ts). Idempotent: safe to run twice,
// late, or alongside the instances writing new shards.
import { destroyExpiredSecrets } from "../store/scanSecrets";
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

async function foldAll() {
  const codes = new Set<string>();
  let rollupsFolded = 0;
  let shardsFolded = 0;
  let rollupsSkipped = 0;
  for (const kind of ["codeDays", "scanDays"] as RollupKind[]) {
    // One pass through the shards in document order: each rollup is folded at most once per run, so the
    // run ends even while instances keep writing new shards (the next run takes those).
    const done = new Set<string>();
    let after: Awaited<ReturnType<typeof rollupsWithShards>>["next"];
    do {
      const page = await rollupsWithShards(kind, after);
      after = page.next;
      for (const p of page.rollups) {
        const key = `${p.merchantId}/${p.baseId}`;
        if (done.has(key)) continue;
        done.add(key);
        try {
          shardsFolded += await foldRollup(p.merchantId, kind, p.baseId);
          rollupsFolded++;
          if (kind === "codeDays") codes.add(`${p.merchantId}/${p.baseId.split("~")[0]}`);
        } catch (error) {
          rollupsSkipped++;
          logRollupFoldSkipped({ merchantId: p.merchantId, rollup: `${kind}/${p.baseId}` }, error);
        }
      }
    } while (after);
  }
  return { codes, counts: { rollupsFolded, shardsFolded, rollupsSkipped } };
}
