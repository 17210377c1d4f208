// Scan analytics for one code and for a workspace. No HTTP here.
import { findCode, type CodeLookup } from "../store/codes";
import { campaignFromKey, codeDailyCounts, recentScans, workspaceDailyCounts } from "../store/scans";
import { dayKey, windowDays } from "./classify";

/** Per-code analytics list at most this many individual scans (newest first); totals count all. */
export const SCAN_LIST_LIMIT = 1000;

function series(days: string[], counts: Map<string, number>) {
  return days.map((date) => ({ date, scans: counts.get(date) ?? 0 }));
}

export async function codeAnalytics(merchantId: string, lookup: CodeLookup, days: number, now = new Date()) {
  const code = await findCode(merchantId, lookup);
  const window = windowDays(days, now);
  const since = new Date(`${window[0]}T00:00:00.000Z`);
  const [counts, scans] = await Promise.all([
    codeDailyCounts(merchantId, code.codeId, window[0]),
    recentScans(merchantId, code.codeId, since, SCAN_LIST_LIMIT),
  ]);
  const byDay = series(window, counts);
  const totalScans = byDay.reduce((sum, d) => sum + d.scans, 0);
  return {
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    dynamic: code.dynamic,
    days,
    from: window[0],
    to: window[window.length - 1],
    totalScans,
    byDay,
    scans: scans.map((s) => ({ at: s.at.toISOString(), date: dayKey(s.at), city: s.city, state: s.state, source: s.source })),
    scansListed: scans.length,
    scansTruncated: totalScans > scans.length,
  };
}

export async function scanSummary(merchantId: string, days: number, now = new Date()) {
  const window = windowDays(days, now);
  const { byDay, byCampaign } = await workspaceDailyCounts(merchantId, window[0]);
  const series_ = series(window, byDay);
  return {
    days,
    from: window[0],
    to: window[window.length - 1],
    totalScans: series_.reduce((sum, d) => sum + d.scans, 0),
    byDay: series_,
    byCampaign: [...byCampaign.entries()]
      .map(([key, scans]) => ({ campaign: campaignFromKey(key), scans }))
      .filter((c) => c.scans > 0)
      .sort((a, b) => b.scans - a.scans),
  };
}
