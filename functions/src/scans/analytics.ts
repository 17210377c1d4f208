// Scan analytics for one code and for a workspace, from the daily rollups (one document per local day,
// plus a hot day's shards until they are folded) and, for a code, its newest scan events. No HTTP here.
// Read budget: at most ANALYTICS_READ_BUDGET documents per query whatever the scan volume: the rollups
// of the window first, then as many of the newest events as the budget has left (at most SCAN_LIST_LIMIT).
import type { DocumentData } from "firebase-admin/firestore";
import { findCode, type CodeLookup } from "../store/codes";
import { getWorkspace } from "../store/workspaces";
import { addCounts, campaignFromKey, readRollups, recentScans } from "../store/scans";
import { DEFAULT_TIME_ZONE, localWindow, weekdayOf } from "./localTime";

/** Per-code analytics list at most this many individual scans (newest first); totals count all. */
export const SCAN_LIST_LIMIT = 1000;
/** Documents one analytics query may read. */
const ANALYTICS_READ_BUDGET = 400;

interface Breakdown {
  n?: number;
  u?: number;
  r?: number;
  b?: Record<string, number>;
  co?: Record<string, number>;
  rg?: Record<string, number>;
  ci?: Record<string, number>;
  dv?: Record<string, number>;
  os?: Record<string, number>;
  br?: Record<string, number>;
  h?: Record<string, number>;
}

/** The rollups of each day of the window, summed over shards; `pick` selects the workspace or one code. */
function byDayOf(docs: DocumentData[], pick: (doc: DocumentData) => DocumentData | undefined): Map<string, Breakdown> {
  const days = new Map<string, Breakdown>();
  for (const doc of docs) {
    const part = pick(doc);
    if (!part) continue;
    days.set(doc.day, addCounts(days.get(doc.day) ?? {}, part) as Breakdown);
  }
  return days;
}

const ranked = <K extends string>(counts: Record<string, number> | undefined, key: K) =>
  Object.entries(counts ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, scans]) => ({ [key]: name, scans }) as { [P in K]: string } & { scans: number });

function splitKey(key: string): string[] {
  return key.split("|");
}

/** What every analytics answer adds beside the spec's totalScans and byDay. */
function figures(window: string[], days: Map<string, Breakdown>, timeZone: string, withCities: boolean) {
  const total: Breakdown = {};
  for (const d of days.values()) addCounts(total, d);
  const grid = Array.from({ length: 7 }, () => Array<number>(24).fill(0));
  for (const [day, d] of days) {
    const weekday = weekdayOf(day);
    for (const [hour, n] of Object.entries(d.h ?? {})) if (Number(hour) >= 0 && Number(hour) < 24) grid[weekday][Number(hour)] += n;
  }
  const byDay = window.map((date) => ({ date, scans: days.get(date)?.n ?? 0, uniqueScanners: days.get(date)?.u ?? 0 }));
  const botsByReason = Object.fromEntries(Object.entries(total.b ?? {}).filter(([, n]) => n > 0));
  return {
    totalScans: total.n ?? 0,
    byDay,
    timeZone,
    uniqueScanners: total.u ?? 0,
    repeatScans: total.r ?? 0,
    botScans: { total: Object.values(botsByReason).reduce((a, b) => a + b, 0), byReason: botsByReason },
    countries: ranked(total.co, "country"),
    regions: ranked(total.rg, "key").map(({ key, scans }) => {
      const [country, region] = splitKey(key);
      return { country, region, scans };
    }),
    ...(withCities
      ? {
          cities: ranked(total.ci, "key").map(({ key, scans }) => {
            const [country, region, city] = splitKey(key);
            return { country, region, city, scans };
          }),
        }
      : {}),
    devices: ranked(total.dv, "device"),
    operatingSystems: ranked(total.os, "os"),
    browsers: ranked(total.br, "browser"),
    /** hourByWeekday[weekday][hour]: weekday 0 = Monday, hours in the workspace's time zone. */
    hourByWeekday: grid,
  };
}

async function timeZoneOf(merchantId: string): Promise<string> {
  return (await getWorkspace(merchantId))?.timeZone ?? DEFAULT_TIME_ZONE;
}

export async function codeAnalytics(merchantId: string, lookup: CodeLookup, days: number, now = new Date()) {
  const [code, timeZone] = await Promise.all([findCode(merchantId, lookup), timeZoneOf(merchantId)]);
  const window = localWindow(days, timeZone, now);
  const docs = await readRollups(merchantId, window[0], window[window.length - 1]);
  const dayMap = byDayOf(docs, (doc) => (doc.c as Record<string, DocumentData> | undefined)?.[code.codeId]);
  const f = figures(window, dayMap, timeZone, false);
  // Up to 3 reads went to the link, the code and the workspace; the list gets what the budget has left.
  const listLimit = Math.min(SCAN_LIST_LIMIT, ANALYTICS_READ_BUDGET - 3 - Math.max(1, docs.length));
  const since = new Date(now.getTime() - (days + 1) * 86_400_000);
  const scans = (await recentScans(merchantId, code.codeId, since, listLimit)).filter((s) => s.day >= window[0]);
  return {
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    dynamic: code.dynamic,
    days,
    from: window[0],
    to: window[window.length - 1],
    ...f,
    scans: scans.map((s) => ({
      at: s.at.toISOString(),
      date: s.day,
      city: s.city,
      state: s.state,
      source: s.source,
      country: s.country,
      device: s.device,
      os: s.os,
      browser: s.browser,
      unique: s.unique,
    })),
    scansListed: scans.length,
    scansTruncated: f.totalScans > scans.length,
  };
}

export async function scanSummary(merchantId: string, days: number, now = new Date()) {
  const timeZone = await timeZoneOf(merchantId);
  const window = localWindow(days, timeZone, now);
  const docs = await readRollups(merchantId, window[0], window[window.length - 1]);
  // Workspace figures: the sum of every code's counts (and the workspace-level cities).
  const dayMap = byDayOf(docs, (doc) => {
    const sum: DocumentData = { ci: doc.ci ?? {} };
    for (const code of Object.values((doc.c ?? {}) as Record<string, DocumentData>)) addCounts(sum, code);
    delete sum.k;
    return sum;
  });
  const f = figures(window, dayMap, timeZone, true);
  const codes: Record<string, Breakdown & { k?: string }> = {};
  for (const doc of docs) addCounts(codes, (doc.c ?? {}) as DocumentData);
  const campaigns: Record<string, { n?: number; u?: number }> = {};
  for (const c of Object.values(codes)) addCounts(campaigns, { [c.k ?? "none"]: { n: c.n ?? 0, u: c.u ?? 0 } });
  return {
    days,
    from: window[0],
    to: window[window.length - 1],
    ...f,
    byCampaign: Object.entries(campaigns)
      .map(([key, c]) => ({ campaign: campaignFromKey(key), scans: c.n ?? 0, uniqueScanners: c.u ?? 0 }))
      .filter((c) => c.scans > 0)
      .sort((a, b) => b.scans - a.scans),
    topCodes: Object.entries(codes)
      .map(([codeId, c]) => ({ codeId, scans: c.n ?? 0, uniqueScanners: c.u ?? 0 }))
      .filter((c) => c.scans > 0)
      .sort((a, b) => b.scans - a.scans || a.codeId.localeCompare(b.codeId))
      .slice(0, 10),
  };
}
