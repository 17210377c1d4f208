// The 7- and 30-day people-scans stored on each code for the list's scans sorts (store/catalogue.ts).
// Never written by a scan: the fold moves them with each code-day it folds (its ledger, store/scanLedger.ts),
// and the scan maintenance sums them again from the ledger when the code's window moves at the workspace's
// local midnight. So a stored count is at most one maintenance interval (10 minutes) behind the rollups.
import { refreshCodeScans, type ScanWindow } from "../store/scanLedger";
import { codesWithStaleScanCounts } from "../store/catalogue";
import { getWorkspace } from "../store/workspaces";
import { DEFAULT_TIME_ZONE, localMoment, localWindow } from "./localTime";

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

/** The window a code's stored counts cover at `now` in `timeZone` (store/scanLedger.ts). */
export function scanWindow(timeZone: string, now: Date): ScanWindow {
  const days = localWindow(30, timeZone, now);
  return { first: days[0], week: days[days.length - 7], last: days[days.length - 1], movesAt: nextLocalMidnight(now, timeZone) };
}

/** Sums one code's stored 7- and 30-day people-scans from its ledger as the window now is (or seeds the ledger). */
export async function recountCodeScans(merchantId: string, codeId: string, timeZone: string, now = new Date()): Promise<{ scans7: number; scans30: number } | undefined> {
  return refreshCodeScans(merchantId, codeId, scanWindow(timeZone, now));
}

/** Sums again the counts of codes whose window moved at their local midnight, up to STALE_RECOUNTS_PER_RUN. */
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
