// Upkeep of scan data, every 10 minutes: destroys daily secrets past their 48 hours, and folds the
// instances' rollup shards into one document per code-day and per workspace-day (store/rollups.ts), so an
// analytics query reads about one document per day. Each rollup is folded in its own transaction; one
// that cannot be folded is logged and skipped and every other is still folded. Idempotent: safe to run
// twice, late, or alongside the instances writing new shards.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import { foldRollup, rollupsWithShards, type RollupKind } from "../store/rollups";
import { logRollupFoldSkipped } from "../core/log";

export async function runScanMaintenance(now = new Date()): Promise<{ secretsDestroyed: number; rollupsFolded: number; shardsFolded: number; rollupsSkipped: number }> {
  const secretsDestroyed = await destroyExpiredSecrets(now);
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
        } catch (error) {
          rollupsSkipped++;
          logRollupFoldSkipped({ merchantId: p.merchantId, rollup: `${kind}/${p.baseId}` }, error);
        }
      }
    } while (after);
  }
  return { secretsDestroyed, rollupsFolded, shardsFolded, rollupsSkipped };
}
