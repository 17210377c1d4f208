// Scan analytics for one code (its own code-day rollups, never the rest of the workspace's) and for a
// workspace (its workspace-day rollups), and, for a code, its newest scan events. No HTTP here.
// Read budget: at most ANALYTICS_READ_BUDGET documents per query whatever the scan volume: one folded
// document per day of the window, the shards not yet folded as far as the budget allows (`pending` says
// when some were left for the fold), then as many of the newest events as the budget has left. Every
// answer says how far the scan consumer is behind (`lagSeconds`; `pending` while it catches up:
// scans/freshness.ts).
import type { DocumentData } from "firebase-admin/firestore";
import { findCode, type CodeLookup } from "../store/codes";
import { getWorkspace } from "../store/workspaces";
import { campaignFromKey, OWN_HOST_KEY, recentScans } from "../store/scans";
import { getConfig } from "../core/config";
import { addCounts, OTHER_KEY, readRollupDocs } from "../store/rollups";
import { DEFAULT_TIME_ZONE, localWindow, weekdayOf } from "./localTime";
import { consumerFreshness, freshnessFields } from "./freshness";

/** Per-code analytics list at most this many individual scans (newest first); totals count all. */
export const SCAN_LIST_LIMIT = 1000;
/** Documents one analytics query may read. */
export const ANALYTICS_READ_BUDGET = 400;
/** Rollup documents the code list may read for its 30-day figures (one per day, then shards). */
export const LIST_ROLLUP_BUDGET = 100;

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
  /** GS1 resolutions by link type (gs1/scans.ts). */
  lt?: Record<string, number>;
  /** A closed campaign's answers, by reason (campaigns/). */
  e?: Record<string, number>;
  /** People by campaign rule and variant (store/scans.ts ruleKey): codes only. */
  ru?: Record<string, number>;
  /** People by UTM `source|medium`. */
  ut?: Record<string, number>;
  /** People and uniques by the host a /qr/ scan came in on (store/scans.ts OWN_HOST_KEY: the service's own). */
  ho?: Record<string, { n?: number; u?: number }>;
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

export const ranked = <K extends string>(counts: Record<string, number> | undefined, key: K) =>
  Object.entries(counts ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, scans]) => ({ [key]: name, scans }) as { [P in K]: string } & { scans: number });

/** A place key `country|region[|city]`; the capped maps' Other bucket names no place. */
function splitKey(key: string): string[] {
  return key === OTHER_KEY ? [OTHER_KEY, OTHER_KEY, OTHER_KEY] : key.split("|");
}

/**
 * People's scans and unique scanners per host a /qr/ scan came in on, most first: the service's own host by
 * its name (the dynamic links' host), "Other" past the map's cap (store/rollups.ts HOSTS_CAP). A unique
 * scanner is counted on the host of their first counted scan of the code that day.
 */
export function hostFigures(ho: Breakdown["ho"]) {
  const own = new URL(getConfig().dynamicLinkUrl).host;
  return Object.entries(ho ?? {})
    .map(([key, c]) => ({ host: key === OWN_HOST_KEY ? own : key, scans: c.n ?? 0, uniqueScanners: c.u ?? 0 }))
    .filter((h) => h.scans > 0)
    .sort((a, b) => b.scans - a.scans || a.host.localeCompare(b.host));
}

/** What every analytics answer adds beside the spec's totalScans and byDay. */
function figures(window: string[], days: Map<string, Breakdown>, timeZone: string) {
  const total: Breakdown = {};
  for (const d of days.values()) addCounts(total, d);
  const grid = Array.from({ length: 7 }, () => Array<number>(24).fill(0));
  for (const [day, d] of days) {
    const weekday = weekdayOf(day);
    for (const [hour, n] of Object.entries(d.h ?? {})) if (Number(hour) >= 0 && Number(hour) < 24) grid[weekday][Number(hour)] += n;
  }
  const byDay = window.map((date) => ({ date, scans: days.get(date)?.n ?? 0, uniqueScanners: days.get(date)?.u ?? 0 }));
  const botsByReason = Object.fromEntries(Object.entries(total.b ?? {}).filter(([, n]) => n > 0));
  const endedByReason = Object.fromEntries(Object.entries(total.e ?? {}).filter(([, n]) => n > 0));
  return {
    totalScans: total.n ?? 0,
    byDay,
    timeZone,
    uniqueScanners: total.u ?? 0,
    repeatScans: total.r ?? 0,
    botScans: { total: Object.values(botsByReason).reduce((a, b) => a + b, 0), byReason: botsByReason },
    endedScans: { total: Object.values(endedByReason).reduce((a, b) => a + b, 0), byReason: endedByReason },
    byUtm: ranked(total.ut, "key").map(({ key, scans }) => {
      const [source, medium] = key === OTHER_KEY ? [OTHER_KEY, OTHER_KEY] : key.split("|");
      return { source, medium, scans };
    }),
    byHost: hostFigures(total.ho),
    countries: ranked(total.co, "country"),
    regions: ranked(total.rg, "key").map(({ key, scans }) => {
      const [country, region] = splitKey(key);
      return { country, region, scans };
    }),
    cities: ranked(total.ci, "key").map(({ key, scans }) => {
      const [country, region, city] = splitKey(key);
      return { country, region, city, scans };
    }),
    devices: ranked(total.dv, "device"),
    operatingSystems: ranked(total.os, "os"),
    browsers: ranked(total.br, "browser"),
    /** hourByWeekday[weekday][hour]: weekday 0 = Monday, hours in the workspace's time zone. */
    hourByWeekday: grid,
  };
}

export async function timeZoneOf(merchantId: string): Promise<string> {
  return (await getWorkspace(merchantId))?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * One code's figures over the last `days` local days from its own code-day rollups (never the rest of the
 * workspace's), within half the read budget; `reserved` reads went elsewhere. Also the summed breakdown.
 */
export async function codeRollupFigures(merchantId: string, codeId: string, timeZone: string, days: number, now: Date, reserved: number) {
  const window = localWindow(days, timeZone, now);
  const rollupBudget = Math.max(window.length + 2, Math.floor(ANALYTICS_READ_BUDGET / 2));
  const { docs, more } = await readRollupDocs(merchantId, "codeDays", { codeId, first: window[0], last: window[window.length - 1] }, rollupBudget);
  const byDay = byDayOf(docs, (doc) => doc);
  const total: Breakdown = {};
  for (const d of byDay.values()) addCounts(total, d);
  return { window, figures: figures(window, byDay, timeZone), total, more, readsLeft: ANALYTICS_READ_BUDGET - reserved - Math.max(1, docs.length) };
}

/** The rules as the code holds them now, for naming the figures per rule (campaigns/rules.ts shape). */
interface NamedRules {
  rules?: Array<{ name?: string; then?: { type?: string; variants?: Array<{ url?: string }> } }>;
}

/**
 * People's scans per rule and variant from the `ru` map (keys "d", "3", "3.1"). Rules are counted by
 * position when scanned and named from the code's current rules (docs/campaign-rules.md, "Figures per rule").
 */
export function ruleFigures(ru: Record<string, number> | undefined, current: NamedRules | undefined) {
  const rows = new Map<number | null, { rule: number | null; name: string | null; scans: number; variants: Array<{ variant: number; url: string | null; scans: number }> }>();
  for (const [key, n] of Object.entries(ru ?? {})) {
    const match = /^(d|\d{1,2})(?:\.(\d))?$/.exec(key);
    if (!match || n <= 0) continue; // "Other" never fills: 20 rules x 4 variants + 1 is under the map's cap
    const rule = match[1] === "d" ? null : Number(match[1]);
    const written = rule === null ? undefined : current?.rules?.[rule];
    const row = rows.get(rule) ?? { rule, name: written?.name ?? null, scans: 0, variants: [] };
    row.scans += n;
    if (match[2] !== undefined) {
      const variant = Number(match[2]);
      row.variants.push({ variant, url: written?.then?.type === "split" ? (written.then.variants?.[variant]?.url ?? null) : null, scans: n });
    }
    rows.set(rule, row);
  }
  return [...rows.values()]
    .map((r) => ({ ...r, variants: r.variants.sort((a, b) => a.variant - b.variant) }))
    .sort((a, b) => (a.rule ?? Infinity) - (b.rule ?? Infinity));
}

export async function codeAnalytics(merchantId: string, lookup: CodeLookup, days: number, now = new Date()) {
  const freshness = consumerFreshness(now.getTime());
  const [code, timeZone] = await Promise.all([findCode(merchantId, lookup), timeZoneOf(merchantId)]);
  // Up to 3 reads went to the link, the code and the workspace; the rollups get at most one per day and
  // the shards what is left of half the budget; the list gets the rest.
  const { window, figures: f, total, more, readsLeft } = await codeRollupFigures(merchantId, code.codeId, timeZone, days, now, 3);
  const listLimit = Math.min(SCAN_LIST_LIMIT, readsLeft - 1);
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
    byRule: ruleFigures(total.ru, code.campaignRules as NamedRules | undefined),
    ...(await freshnessFields(more, freshness)),
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
      ...(s.rule === undefined ? {} : { rule: s.rule, variant: s.variant ?? null }),
    })),
    scansListed: scans.length,
    scansTruncated: f.totalScans > scans.length,
  };
}

/** People-scans per code over the window from the workspace-day rollups (the largest codes of each day). */
export async function scansPerCode(merchantId: string, first: string, last: string, budget: number): Promise<{ docs: DocumentData[]; more: boolean; perCode: Map<string, Array<{ day: string; n: number; u: number }>> }> {
  const { docs, more } = await readRollupDocs(merchantId, "scanDays", { first, last }, budget);
  const perCode = new Map<string, Array<{ day: string; n: number; u: number }>>();
  for (const doc of docs) {
    for (const [codeId, c] of Object.entries((doc.c ?? {}) as Record<string, { n?: number; u?: number }>)) {
      if (codeId === OTHER_KEY) continue;
      const list = perCode.get(codeId) ?? [];
      list.push({ day: doc.day, n: c.n ?? 0, u: c.u ?? 0 });
      perCode.set(codeId, list);
    }
  }
  return { docs, more, perCode };
}

export async function scanSummary(merchantId: string, days: number, now = new Date()) {
  const freshness = consumerFreshness(now.getTime());
  const timeZone = await timeZoneOf(merchantId);
  const window = localWindow(days, timeZone, now);
  const { docs, more, perCode } = await scansPerCode(merchantId, window[0], window[window.length - 1], ANALYTICS_READ_BUDGET - 1);
  const f = figures(window, byDayOf(docs, (doc) => doc), timeZone);
  const campaigns: Record<string, { n?: number; u?: number }> = {};
  for (const doc of docs) addCounts(campaigns, (doc.cp ?? {}) as DocumentData);
  const codes = [...perCode].map(([codeId, list]) => ({ codeId, scans: list.reduce((a, d) => a + d.n, 0), uniqueScanners: list.reduce((a, d) => a + d.u, 0) }));
  return {
    days,
    from: window[0],
    to: window[window.length - 1],
    ...f,
    ...(await freshnessFields(more, freshness)),
    byCampaign: Object.entries(campaigns)
      .filter(([key]) => key !== OTHER_KEY)
      .map(([key, c]) => ({ campaign: campaignFromKey(key), scans: c.n ?? 0, uniqueScanners: c.u ?? 0 }))
      .filter((c) => c.scans > 0)
      .sort((a, b) => b.scans - a.scans),
    topCodes: codes
      .filter((c) => c.scans > 0)
      .sort((a, b) => b.scans - a.scans || a.codeId.localeCompare(b.codeId))
      .slice(0, 10),
  };
}
