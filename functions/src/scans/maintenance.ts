// Hourly upkeep of scan data: destroys daily secrets past their 48 hours, and folds the extra rollup
// shards of finished days into their day's document (so a year of analytics stays within ~366 reads).
// Its reads are a few per hot workspace-day, never per scan. Idempotent: safe to run twice or late.
import { destroyExpiredSecrets } from "../store/scanSecrets";
import { foldShards, shardedRollups } from "../store/scans";
import { ROLLUP_SHARDS } from "./record";

/** A local day is over everywhere two UTC days after it began (UTC-12 is the last zone to end it). */
function foldableBefore(now: Date): string {
  return new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
}

export async function runScanMaintenance(now = new Date()): Promise<{ secretsDestroyed: number; daysFolded: number; shardsFolded: number }> {
  const secretsDestroyed = await destroyExpiredSecrets(now);
  let daysFolded = 0;
  let shardsFolded = 0;
  for (;;) {
    const pending = await shardedRollups(foldableBefore(now));
    if (!pending.length) break;
    for (const { merchantId, day } of pending) {
      shardsFolded += await foldShards(merchantId, day, ROLLUP_SHARDS);
      daysFolded++;
    }
  }
  return { secretsDestroyed, daysFolded, shardsFolded };
}
