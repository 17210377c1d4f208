// The console's code list: search, filters, sort and cursor pages as indexed Firestore queries over the
// workspace's codes (store/catalogue.ts), so one page reads the same few documents at 1,000 and at
// 1,000,000 codes. Totals and the campaign filter come from counters kept on every write, never from
// reading every code. The scans sorts use counts stored on each code by the scan maintenance (at most
// about 10 minutes old; docs/data-model.md, "Codes: bounds"). No HTTP here.
import { Timestamp, type DocumentSnapshot, type QueryDocumentSnapshot } from "firebase-admin/firestore";
import { z } from "zod";
import { CAMPAIGN_MAX, CODE_SEARCH_MAX } from "../core/limits";
import { fields } from "./fields";
import { AppError } from "../core/errors";
import { campaignCodeCount, listQuery, readCampaigns, readCodeCounts, SORT_FIELDS, type ListQueryShape } from "../store/catalogue";
import { codeRecord, readCodes } from "../store/codes";
import { gs1CodeIdOf, gs1ItemIdOfCodeId, readGs1Item } from "../store/gs1Items";
import { countBytesRead, countOps } from "../store/opCounter";
import { cursorParts } from "../store/pageCursor";
import { scanSummary } from "../scans/analytics";
import { containsWords, matchesWords, queryToken, queryWordsOf, TOKEN_MAX_CHARS } from "../store/search";
import type { QrCode } from "./model";

export const CODE_LIST_SORTS = ["created", "updated", "title", "scans7", "scans30"] as const;
type CodeListSort = (typeof CODE_LIST_SORTS)[number];

/** Up to this many codes, a search reads them all and matches any part of a word, as it always did. */
export const SMALL_WORKSPACE_CODES = 500;
/** Code documents one page may read while checking search words in memory; past it the page ends early. */
export const SEARCH_READ_BUDGET = 600;

/** The list's search, filters, sort and page, as the console's GET /api/console/codes takes them. */
export const CodeListQuerySchema = z
  .object({
    q: z.string().max(CODE_SEARCH_MAX).optional(),
    kind: z.enum(["static", "dynamic"]).optional(),
    status: z.enum(["draft", "published"]).optional(),
    /** A campaign's name, or "" for codes without one. */
    campaign: z.string().max(CAMPAIGN_MAX).optional(),
    tag: fields.tags.element.optional(),
    sort: z.enum(CODE_LIST_SORTS).default("created"),
    order: z.enum(["asc", "desc"]).optional(),
    cursor: z.string().max(2000).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();
type CodeListQuery = z.output<typeof CodeListQuerySchema>;

export interface ListedCode {
  code: QrCode;
  scans7: number;
  scans30: number;
}

const defaultOrder = (sort: CodeListSort) => (sort === "title" ? "asc" : "desc");

type CursorValue = number | string;

function cursorValue(doc: DocumentSnapshot<QrCode>, sort: CodeListSort): CursorValue {
  const v = doc.get(SORT_FIELDS[sort]);
  return v instanceof Timestamp ? v.toMillis() : (v as CursorValue);
}

function encodeCursor(sort: CodeListSort, order: string, doc: DocumentSnapshot<QrCode>): string {
  return Buffer.from(JSON.stringify([sort, order, cursorValue(doc, sort), doc.id]), "utf8").toString("base64url");
}

function decodeCursor(raw: string, sort: CodeListSort, order: "asc" | "desc"): [unknown, string] {
  const invalid = () =>
    new AppError("VALIDATION_FAILED", "This page link is no longer valid for the list's sort", { hint: "Go back to the first page of the list." });
  const [s, o, value, id] = cursorParts(raw, invalid);
  const timed = sort === "created" || sort === "updated";
  const valueOk = timed || sort.startsWith("scans") ? Number.isFinite(value) : typeof value === "string";
  if (s !== sort || o !== order || typeof id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(id) || !valueOk) throw invalid();
  return [timed ? Timestamp.fromMillis(value as number) : value, id];
}

/** The list's total for the filters given, when a counter holds it; null when only reading every code could tell. */
async function totalFor(merchantId: string, query: CodeListQuery, counts: Awaited<ReturnType<typeof readCodeCounts>>): Promise<number | null> {
  const filters = [query.kind, query.status, query.campaign, query.tag, query.q?.trim() || undefined].filter((f) => f !== undefined);
  if (filters.length === 0) return counts.total;
  if (filters.length > 1) return null;
  if (query.kind) return query.kind === "dynamic" ? counts.dynamic : counts.static;
  if (query.status) return query.status === "published" ? counts.published : counts.drafts;
  if (query.campaign) return campaignCodeCount(merchantId, query.campaign);
  return null;
}

/** The Firestore query a list request becomes: equality filters, one array filter (a tag, or a search token), one sort. */
export function listShapeOf(query: Omit<CodeListQuery, "sort" | "limit"> & { sort: CodeListSort }, order: "asc" | "desc", token: string | undefined): ListQueryShape {
  return {
    equal: {
      status: query.status,
      dynamic: query.kind === undefined ? undefined : query.kind === "dynamic",
      campaign: query.campaign === undefined ? undefined : query.campaign || null,
    },
    contains: query.tag ? { field: "tags", value: query.tag } : token ? { field: "searchTokens", value: token } : undefined,
    sort: SORT_FIELDS[query.sort],
    order,
  };
}

export async function listCodePage(merchantId: string, query: CodeListQuery) {
  const order = query.order ?? defaultOrder(query.sort);
  const after = query.cursor ? decodeCursor(query.cursor, query.sort, order) : undefined;
  const words = queryWordsOf(query.q);
  const [counts, campaigns] = await Promise.all([readCodeCounts(merchantId), readCampaigns(merchantId)]);
  const small = counts.total <= SMALL_WORKSPACE_CODES;
  const shape = listShapeOf(query, order, !small && !query.tag ? queryToken(words) : undefined);
  let q = listQuery(merchantId, shape).withConverter(codeRecord);
  if (after) q = q.startAfter(...after);
  // One word within the token length is answered exactly by its token; anything else is checked here.
  const exact = shape.contains?.field === "searchTokens" && words.length === 1 && [...words[0]].length <= TOKEN_MAX_CHARS;
  const check = words.length && !exact ? (small ? containsWords : matchesWords) : undefined;

  const page: Array<QueryDocumentSnapshot<QrCode>> = [];
  let last: QueryDocumentSnapshot<QrCode> | undefined;
  let more = false;
  let total = await totalFor(merchantId, query, counts);
  if (!check) {
    const snap = await q.limit(query.limit + 1).get();
    countOps({ reads: Math.max(1, snap.size) });
    countBytesRead(snap.docs);
    page.push(...snap.docs.slice(0, query.limit));
    more = snap.size > query.limit;
  } else {
    // Firestore answered one word (or none, in a small workspace); the rest is checked here, within a budget.
    let read = 0;
    let matched = 0;
    let exhausted = false;
    let from = q;
    // A first read sized for a page that mostly matches, then the rest of the budget in one more.
    let chunk = small ? SEARCH_READ_BUDGET : query.limit * 2 + 1;
    while (read < SEARCH_READ_BUDGET && (small || matched <= query.limit)) {
      const snap = await from.limit(chunk).get();
      countOps({ reads: Math.max(1, snap.size) });
      countBytesRead(snap.docs);
      read += snap.size;
      for (const doc of snap.docs) {
        if (!check(doc.data(), words)) continue;
        matched++;
        if (page.length < query.limit) {
          page.push(doc);
          last = doc;
        } else more = true;
      }
      if (snap.size < chunk) {
        exhausted = true;
        break;
      }
      from = q.startAfter(snap.docs[snap.size - 1]);
      chunk = SEARCH_READ_BUDGET - read;
      if (!more) last = snap.docs[snap.size - 1];
    }
    if (!exhausted && !more) more = true; // the budget ran out: the next page goes on from the last code read
    if (small && exhausted && !after) total = matched;
  }
  const cursorDoc = check && more && page.length < query.limit ? last : page[page.length - 1];
  return {
    codes: page.map((doc): ListedCode => ({ code: doc.data(), scans7: Number(doc.get("scans7") ?? 0), scans30: Number(doc.get("scans30") ?? 0) })),
    total,
    workspaceTotal: counts.total,
    campaigns: campaigns.map((c) => c.name),
    nextCursor: more && cursorDoc ? encodeCursor(query.sort, order, cursorDoc) : null,
  };
}

/** The console's home: the workspace's scan figures for a range, with the top codes named, and its codes counted. */
export async function workspaceDashboard(merchantId: string, days: number, now = new Date()) {
  const [summary, counts] = await Promise.all([scanSummary(merchantId, days, now), readCodeCounts(merchantId)]);
  // A GS1 item's resolutions count as a code gs1_<itemId> (docs/gs1-resolver.md): named by its key path.
  const gs1Ids = summary.topCodes.map((c) => gs1ItemIdOfCodeId(c.codeId)).filter((id): id is string => id !== undefined);
  const [codes, items] = await Promise.all([
    readCodes(merchantId, summary.topCodes.map((c) => c.codeId).filter((id) => !gs1ItemIdOfCodeId(id))),
    Promise.all(gs1Ids.map((id) => readGs1Item(merchantId, id))),
  ]);
  const named = new Map<string, string | null>([
    ...codes.map((c) => [c.codeId, c.title] as const),
    ...items.flatMap((item) => (item ? [[gs1CodeIdOf(item.itemId), `GS1 ${item.path}`] as const] : [])),
  ]);
  return {
    ...summary,
    topCodes: summary.topCodes.map((c) => ({ ...c, title: named.get(c.codeId) ?? null })),
    codeCounts: { total: counts.total, published: counts.published, drafts: counts.drafts, dynamic: counts.dynamic },
  };
}
