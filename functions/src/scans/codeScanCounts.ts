// The 7- and 30-day people-scans stored on each code for the list's scans sorts (store/catalogue.ts).
// Never written by a scan: the scan maintenance recomputes a code's counts from its day rollups after it
// folds that code's shards, and again when the code's window moves at the workspace's local midnight.
// So a stored count is at most one maintenance interval (10 minutes) behind the rollups.
import { readRollupDocs } from "../store/rollups";
import { codesWithStaleScanCounts, writeScanCounts } from "../store/catalogue";
import { getWorkspace } from "../store/workspaces";
import { DEFAULT_TIME_ZONE, localMoment, localWindow } from "./localTime";

/** Rollup documents one recount reads at most: 30 folded days plus shards not yet folded. */
const RECOUNT_READ_BUDGET = 90;
/** Codes whose window moved that one maintenance run recounts at most; the next run goes on. */
export const STALE_RECOUNTS_PER_RUN = 2_000;

/** The first instant of the next local day in `timeZone` after `now` (to the minute). */
export function nextLocalMidnight(now: Date, timeZone: string): Date {
  const today = localMoment(now, timeZone).day;
  // Step forward by the hour, then back by the minute: offsets are whole quarter hours; DST moves an hour.
  let t = now.getTime() - (now.getTime() % 60_000);
  while (localMoment(new Date(t), timeZone).day === today) t += 3_600_000;
  while (localMoment(new Date(t - 60_000), timeZone).day !== today) t -= 60_000;
  return new Date(t);
}

export function timeZoneCache() {
  const zones = new Map<string, Promise<string>>();
  return (merchantId: string) => {
    let zone = zones.get(merchantId);
    if (!zone) zones.set(merchantId, (zone = getWorkspace(merchantId).then((w) => w?.timeZone ?? DEFAULT_TIME_ZONE)));
    return zone;
  };
}

/** Recounts one code's stored 7- and 30-day people-scans from its day rollups. */
export async function recountCodeScans(merchantId: string, codeId: string, timeZone: string, now = new Date()): Promise<{ scans7: number; scans30: number } | undefined> {
  const window = localWindow(30, timeZone, now);
  const weekStart = window[window.length - 7];
  const { docs } = await readRollupDocs(merchantId, "codeDays", { codeId, first: window[0], last: window[window.length - 1] }, RECOUNT_READ_BUDGET);
  const counts = { scans7: 0, scans30: 0 };
  for (const d of docs) {
    const n = typeof d.n === "number" ? d.n : 0;
    counts.scans30 += n;
    if (d.day >= weekStart) counts.scans7 += n;
  }
  const written = await writeScanCounts(merchantId, codeId, counts, counts.scans30 ? nextLocalMidnight(now, timeZone) : null);
  return written ? counts : undefined;
}

/** Recounts codes whose window moved at their local midnight, up to STALE_RECOUNTS_PER_RUN. */
export async function recountStaleCodes(zoneOf: (merchantId: string) => Promise<string>, now = new Date()): Promise<number> {
  let done = 0;
  while (done < STALE_RECOUNTS_PER_RUN) {
    const page = await codesWithStaleScanCounts(now, 200);
    for (const c of page) await recountCodeScans(c.merchantId, c.codeId, await zoneOf(c.merchantId), now);
    done += page.length;
    if (page.length < 200) break;
  }
  return done;
}
