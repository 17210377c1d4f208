// The console's code list: search, filters, sort and cursor pages over the workspace's code directory
// (store/codeIndex.ts), with each code's people-scans in the last 7 and 30 local days summed from the
// daily rollups (never by counting events). Cost per page: ~17 directory reads, the window's rollups
// (about 30), and the page's own codes. No HTTP here.
import { AppError } from "../core/errors";
import { readCodeIndex, type IndexedCode } from "../store/codeIndex";
import { getWorkspace } from "../store/workspaces";
import { DEFAULT_TIME_ZONE, localWindow } from "../scans/localTime";
import { LIST_ROLLUP_BUDGET, scansPerCode, scanSummary } from "../scans/analytics";

export const CODE_LIST_SORTS = ["created", "title", "scans7", "scans30"] as const;
type CodeListSort = (typeof CODE_LIST_SORTS)[number];

interface CodeListQuery {
  q?: string;
  kind?: "static" | "dynamic";
  status?: "draft" | "published";
  /** A campaign's name, or "" for codes without one. */
  campaign?: string;
  sort: CodeListSort;
  order?: "asc" | "desc";
  cursor?: string;
  limit: number;
}

interface ListedCode extends IndexedCode {
  scans7: number;
  scans30: number;
}

/** Lower case, compatibility-normalised: "Café" finds "CAFÉ" and "ｃａｆｅ" finds "cafe". */
const fold = (s: string) => s.normalize("NFKC").toLocaleLowerCase("en");

function matches(code: IndexedCode, needle: string): boolean {
  return [code.t, code.d, code.k ?? "", ...code.g].some((text) => fold(text).includes(needle));
}

/** People-scans per code in the last 7 and 30 local days (the workspace's time zone). */
async function recentScanCounts(merchantId: string, now: Date): Promise<Map<string, { scans7: number; scans30: number }>> {
  const timeZone = (await getWorkspace(merchantId))?.timeZone ?? DEFAULT_TIME_ZONE;
  const window = localWindow(30, timeZone, now);
  const weekStart = window[window.length - 7];
  const { perCode } = await scansPerCode(merchantId, window[0], window[window.length - 1], LIST_ROLLUP_BUDGET);
  const counts = new Map<string, { scans7: number; scans30: number }>();
  for (const [codeId, list] of perCode) {
    const sum = { scans7: 0, scans30: 0 };
    for (const d of list) {
      sum.scans30 += d.n;
      if (d.day >= weekStart) sum.scans7 += d.n;
    }
    if (sum.scans30) counts.set(codeId, sum);
  }
  return counts;
}

type SortValue = number | string;

function sortValue(code: ListedCode, sort: CodeListSort): SortValue {
  if (sort === "title") return fold(code.t);
  if (sort === "scans7") return code.scans7;
  if (sort === "scans30") return code.scans30;
  return code.c;
}

const defaultOrder = (sort: CodeListSort) => (sort === "title" ? "asc" : "desc");

/** A total order: the sort value, then the code id, so pages never skip or repeat a code. */
function compare(a: [SortValue, string], b: [SortValue, string], order: "asc" | "desc"): number {
  const dir = order === "asc" ? 1 : -1;
  if (a[0] !== b[0]) return (a[0] < b[0] ? -1 : 1) * dir;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

interface Cursor {
  sort: CodeListSort;
  order: "asc" | "desc";
  after: [SortValue, string];
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.order, c.after[0], c.after[1]]), "utf8").toString("base64url");
}

function decodeCursor(raw: string, sort: CodeListSort, order: "asc" | "desc"): Cursor {
  const invalid = () =>
    new AppError("VALIDATION_FAILED", "This page link is no longer valid for the list's sort", { hint: "Go back to the first page of the list." });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [s, o, value, id] = parsed;
  if (s !== sort || o !== order || typeof id !== "string" || (typeof value !== "number" && typeof value !== "string")) throw invalid();
  return { sort, order, after: [value, id] };
}

export async function listCodePage(merchantId: string, query: CodeListQuery, now = new Date()) {
  const order = query.order ?? defaultOrder(query.sort);
  const cursor = query.cursor ? decodeCursor(query.cursor, query.sort, order) : undefined;
  const [index, counts] = await Promise.all([readCodeIndex(merchantId), recentScanCounts(merchantId, now)]);
  const needle = query.q ? fold(query.q.trim()) : "";
  const campaigns = [...new Set(index.map((c) => c.k).filter((k): k is string => Boolean(k)))].sort((a, b) => a.localeCompare(b));
  const filtered: ListedCode[] = index
    .filter(
      (c) =>
        (!query.kind || c.y === (query.kind === "dynamic")) &&
        (!query.status || c.s === query.status) &&
        (query.campaign === undefined || (c.k ?? "") === query.campaign) &&
        (!needle || matches(c, needle)),
    )
    .map((c) => ({ ...c, ...(counts.get(c.codeId) ?? { scans7: 0, scans30: 0 }) }));
  const keyOf = (c: ListedCode): [SortValue, string] => [sortValue(c, query.sort), c.codeId];
  filtered.sort((a, b) => compare(keyOf(a), keyOf(b), order));
  const start = cursor ? filtered.findIndex((c) => compare(keyOf(c), cursor.after, order) > 0) : 0;
  const page = start < 0 ? [] : filtered.slice(start, start + query.limit);
  const more = start >= 0 && start + query.limit < filtered.length;
  return {
    codes: page,
    total: filtered.length,
    workspaceTotal: index.length,
    campaigns,
    nextCursor: more ? encodeCursor({ sort: query.sort, order, after: keyOf(page[page.length - 1]) }) : null,
  };
}

/** The console's home: the workspace's scan figures for a range, with the top codes named, and its codes counted. */
export async function workspaceDashboard(merchantId: string, days: number, now = new Date()) {
  const [summary, index] = await Promise.all([scanSummary(merchantId, days, now), readCodeIndex(merchantId)]);
  const byId = new Map(index.map((c) => [c.codeId, c]));
  return {
    ...summary,
    topCodes: summary.topCodes.map((c) => ({ ...c, title: byId.get(c.codeId)?.t ?? null })),
    codeCounts: {
      total: index.length,
      published: index.filter((c) => c.s === "published").length,
      drafts: index.filter((c) => c.s === "draft").length,
      dynamic: index.filter((c) => c.y).length,
    },
  };
}
