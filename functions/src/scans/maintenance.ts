// Hourly upkeep of scan data: destroys daily secrets past their 48 hours, and folds the extra rollup
// shards of finished days into their day's document (so a year of analytics stays within ~366 reads).
// Its reads are a few per hot workspace-day, never per scan. Idempotent: safe to run twice or late.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import { foldShards, shardedRollups } from "../store/scans";
import { ROLLUP_SHARDS } from "./record";
import { logRollupFoldSkipped } from "../core/log";

/** A local day is over everywhere two UTC days after it began (UTC-12 is the last zone to end it). */
function foldableBefore(now: Date): string {
  return new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
}

export async function runScanMaintenance(now = new Date()): Promise<{ secretsDestroyed: number; daysFolded: number; shardsFolded: number; daysSkipped: number }> {
  const secretsDestroyed = await destroyExpiredSecrets(now);
  let daysFolded = 0;
  let shardsFolded = 0;
  // A day that cannot be folded (one workspace's documents refusing the write) is logged and skipped for
  // this run; every other workspace's days are still folded.
  const skipped = new Set<string>();
  const keyOf = (p: { merchantId: string; day: string }) => `${p.merchantId}/${p.day}`;
  for (;;) {
    const pending = (await shardedRollups(foldableBefore(now))).filter((p) => !skipped.has(keyOf(p)));
    if (!pending.length) break;
    for (const p of pending) {
      try {
        shardsFolded += await foldShards(p.merchantId, p.day, ROLLUP_SHARDS);
        daysFolded++;
      } catch (error) {
        skipped.add(keyOf(p));
        logRollupFoldSkipped(p, error);
      }
    }
  }
  return { secretsDestroyed, daysFolded, shardsFolded, daysSkipped: skipped.size };
}
