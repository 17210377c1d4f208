// The code catalogue: what the console's list searches, filters, sorts and counts, kept so that no document
// grows with the number of codes and one page costs the same at 1,000 and 1,000,000 codes
// (docs/data-model.md, "Codes: bounds").
//
//   workspaces/{m}/codes/{codeId}            each code carries its own list fields: `titleKey`, `searchTokens`,
//                                            `scans7`, `scans30` (+ `scansStaleAt`, `scansByDay`), `catalogue` (the fields' version)
//   workspaces/{m}/codeCounts/{0..15}        the workspace's totals as increments, one random shard per write
//   workspaces/{m}/campaigns/{key}           one document per campaign name: the list's campaign filter
//
// Every write path that creates a code or changes its status writes these in the same batch or
// transaction as the code, with increments only (no read), so the list never misses a code that exists.
import { randomInt } from "node:crypto";
import { FieldPath, FieldValue, Timestamp, type Query, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../core/hash";
import { searchTokensOf, titleKeyOf, type Searchable } from "./search";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";

/** Version of the list fields on a code document; codes below it are brought up by the backfill. */
export const CATALOGUE_VERSION = 1;
const COUNT_SHARDS = 16;
/** Campaigns the list's filter offers at most (the most recently used first would need a write per code). */
export const CAMPAIGNS_LISTED_MAX = 200;

type Writer = WriteBatch | Transaction;
const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);
const countsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codeCounts");
const campaignsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("campaigns");
export const campaignKey = (name: string) => sha256Hex(name).slice(0, 24);

/** The list fields a code document carries beside the code itself (scan counts start at zero). */
export function catalogueFields(code: Searchable & { title: string }) {
  return { titleKey: titleKeyOf(code.title), searchTokens: searchTokensOf(code), catalogue: CATALOGUE_VERSION };
}

/** A new code's scan counts, with its empty ledger (store/scanLedger.ts): nothing to seed. */
export const NEW_CODE_SCAN_FIELDS = { scans7: 0, scans30: 0, scansByDay: {} } as const;
/** A code from before the catalogue: no ledger, so the maintenance seeds it from the rollups it may already have. */
export const UNCOUNTED_SCAN_FIELDS = { scans7: 0, scans30: 0 } as const;

interface CountChange {
  total?: number;
  published?: number;
  dynamic?: number;
}

function addCounts(writer: Writer, merchantId: string, change: CountChange): void {
  const data = Object.fromEntries(Object.entries(change).filter(([, v]) => v).map(([k, v]) => [k, FieldValue.increment(v!)]));
  if (!Object.keys(data).length) return;
  (writer as WriteBatch).set(countsOf(merchantId).doc(String(randomInt(COUNT_SHARDS))), data, { merge: true });
}

/** The totals and campaign counts of codes created in one batch or transaction: one increment each. */
export function addNewCodesToCatalogue(writer: Writer, merchantId: string, codes: ReadonlyArray<{ dynamic: boolean; status: string; campaign: string | null }>): void {
  if (!codes.length) return;
  addCounts(writer, merchantId, {
    total: codes.length,
    dynamic: codes.filter((c) => c.dynamic).length,
    published: codes.filter((c) => c.status === "published").length,
  });
  const perCampaign = new Map<string, number>();
  for (const c of codes) if (c.campaign) perCampaign.set(c.campaign, (perCampaign.get(c.campaign) ?? 0) + 1);
  for (const [name, n] of perCampaign) {
    (writer as WriteBatch).set(campaignsOf(merchantId).doc(campaignKey(name)), { name, codes: FieldValue.increment(n) }, { merge: true });
  }
}

/** A change of status of `n` codes (positive: published, negative: back to draft). */
export function countStatusChange(writer: Writer, merchantId: string, published: number): void {
  addCounts(writer, merchantId, { published });
}

export interface CodeCounts {
  total: number;
  published: number;
  drafts: number;
  dynamic: number;
  static: number;
}

/** The workspace's code totals: 16 small documents, whatever the number of codes. */
export async function readCodeCounts(merchantId: string): Promise<CodeCounts> {
  const snap = await countsOf(merchantId).get();
  countOps({ reads: Math.max(1, snap.size) });
  const sum = { total: 0, published: 0, dynamic: 0 };
  for (const d of snap.docs) for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += Number(d.get(k) ?? 0);
  return { ...sum, drafts: sum.total - sum.published, static: sum.total - sum.dynamic };
}

/** Campaign names in use (the CAMPAIGNS_LISTED_MAX with most codes), sorted by name. */
export async function readCampaigns(merchantId: string): Promise<Array<{ name: string; codes: number }>> {
  const snap = await campaignsOf(merchantId).where("codes", ">", 0).orderBy("codes", "desc").limit(CAMPAIGNS_LISTED_MAX).get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ name: String(d.get("name")), codes: Number(d.get("codes")) })).sort((a, b) => a.name.localeCompare(b.name));
}

export async function campaignCodeCount(merchantId: string, name: string): Promise<number> {
  const snap = await campaignsOf(merchantId).doc(campaignKey(name)).get();
  countOps({ reads: 1 });
  return Number(snap.get("codes") ?? 0);
}

// ---- list queries ----

export const SORT_FIELDS = { created: "createdAt", updated: "updatedAt", title: "titleKey", scans7: "scans7", scans30: "scans30" } as const;
export type SortField = (typeof SORT_FIELDS)[keyof typeof SORT_FIELDS];

/** The one shape every list query has: equality filters, at most one array filter, one sort field, the id. */
export interface ListQueryShape {
  equal: { status?: "draft" | "published"; dynamic?: boolean; campaign?: string | null };
  contains?: { field: "tags" | "searchTokens"; value: string };
  sort: SortField;
  order: "asc" | "desc";
}

export function listQuery(merchantId: string, shape: ListQueryShape): Query {
  let q: Query = workspace(merchantId).collection("codes");
  for (const [field, value] of Object.entries(shape.equal)) if (value !== undefined) q = q.where(field, "==", value);
  if (shape.contains) q = q.where(shape.contains.field, "array-contains", shape.contains.value);
  return q.orderBy(shape.sort, shape.order).orderBy(FieldPath.documentId(), shape.order);
}

/** The composite indexes a list query shape needs (one per filter, merged by Firestore): checked by a test. */
export function indexesFor(shape: ListQueryShape): Array<Array<{ fieldPath: string; order?: "ASCENDING" | "DESCENDING"; arrayConfig?: "CONTAINS" }>> {
  const order = shape.order === "asc" ? "ASCENDING" : "DESCENDING";
  const filters = [
    ...Object.entries(shape.equal)
      .filter(([, v]) => v !== undefined)
      .map(([fieldPath]) => ({ fieldPath, order: "ASCENDING" as const })),
    ...(shape.contains ? [{ fieldPath: shape.contains.field, arrayConfig: "CONTAINS" as const }] : []),
  ];
  return filters.map((f) => [f, { fieldPath: shape.sort, order }]);
}

// ---- scan counts for the scans sorts (kept by the fold and the scan maintenance, never by a scan: store/scanLedger.ts) ----

/** Codes (any workspace) whose counting window has moved since their counts were stored, oldest first. */
export async function codesWithStaleScanCounts(now: Date, limit: number): Promise<Array<{ merchantId: string; codeId: string }>> {
  const snap = await db().collectionGroup("codes").where("scansStaleAt", "<=", Timestamp.fromDate(now)).orderBy("scansStaleAt").limit(limit).select().get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ merchantId: d.ref.parent.parent!.id, codeId: d.id }));
}

// ---- bringing codes from before the catalogue (or an older version of it) up, by cursor ----

const backfillState = () => db().collection(COLLECTIONS.maintenance).doc("catalogueBackfill");
const BACKFILL_PAGE = 200;

/**
 * One page of the backfill: the next codes (any workspace) in document order after `after` (a document
 * path); each one below CATALOGUE_VERSION gets its list fields and joins its workspace's totals, in one
 * transaction that re-reads them, so a code is counted once even while it is being changed.
 */
export async function backfillCataloguePage(after: string | null, limit = BACKFILL_PAGE): Promise<{ upgraded: number; next: string | null }> {
  let q = db().collectionGroup("codes").orderBy(FieldPath.documentId()).limit(limit).select("catalogue");
  if (after) q = q.startAfter(db().doc(after));
  const snap = await q.get();
  countOps({ reads: Math.max(1, snap.size) });
  const behind = snap.docs.filter((d) => (d.get("catalogue") ?? 0) < CATALOGUE_VERSION).map((d) => d.ref);
  let upgraded = 0;
  if (behind.length) {
    upgraded = await db().runTransaction(async (tx) => {
      const docs = (await tx.getAll(...behind)).flatMap((d) => {
        const code = d.data();
        return code && (code.catalogue ?? 0) < CATALOGUE_VERSION ? [{ ref: d.ref, code }] : [];
      });
      const joining = new Map<string, Array<{ dynamic: boolean; status: string; campaign: string | null }>>();
      for (const { ref, code } of docs) {
        const searchable = { title: String(code.title ?? ""), destinationUrl: String(code.destinationUrl ?? ""), campaign: code.campaign ?? null, tags: Array.isArray(code.tags) ? code.tags : [] };
        tx.update(ref, { ...catalogueFields(searchable), ...(code.catalogue === undefined ? UNCOUNTED_SCAN_FIELDS : {}) });
        if (code.catalogue !== undefined) continue; // an older version: already counted
        const merchantId = ref.parent.parent!.id;
        joining.set(merchantId, [...(joining.get(merchantId) ?? []), { dynamic: Boolean(code.dynamic), status: String(code.status), campaign: searchable.campaign }]);
      }
      for (const [merchantId, codes] of joining) addNewCodesToCatalogue(tx, merchantId, codes);
      return docs.length;
    });
    countOps({ reads: behind.length, writes: upgraded });
  }
  return { upgraded, next: snap.size === limit ? snap.docs[snap.size - 1].ref.path : null };
}

/** Runs the backfill from where the last run stopped, for at most `pages` pages; done once per version. */
export async function continueCatalogueBackfill(pages: number): Promise<{ upgraded: number; done: boolean }> {
  const state = (await backfillState().get()).data();
  if (state?.version === CATALOGUE_VERSION && state.done) return { upgraded: 0, done: true };
  let after: string | null = state?.version === CATALOGUE_VERSION ? (state.after ?? null) : null;
  let upgraded = 0;
  for (let i = 0; i < pages; i++) {
    const page = await backfillCataloguePage(after);
    upgraded += page.upgraded;
    after = page.next;
    if (!after) break;
  }
  await backfillState().set({ version: CATALOGUE_VERSION, after, done: after === null, at: Timestamp.now() });
  return { upgraded, done: after === null };
}
