// The workspace's code directory: a compact entry per code (what the console's list searches, filters and
// sorts on) in a few shard documents, workspaces/{m}/codeIndex/s00..s15, plus a `meta` marker once built.
// Every write path that changes a code also writes its entry in the same batch or transaction (a merge on
// one map key, no read), so the list reads ~17 documents for any number of codes instead of one per code,
// and never disagrees with the codes. Shards keep each document far below Firestore's 1 MiB limit
// (~300 bytes per entry: 16 shards hold ~50,000 codes) and spread concurrent writers.
import { FieldPath, Timestamp, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../core/hash";
import type { QrCode } from "../codes/model";
import { COLLECTIONS } from "./collections";

const CODE_INDEX_SHARDS = 16;
/** Destinations longer than this are cut in the entry (search covers the start); the page shows the full one. */
const INDEXED_DESTINATION_CHARS = 300;

/** One code as the list sees it. Short keys: the entries of thousands of codes share a few documents. */
interface CodeIndexEntry {
  /** title */ t: string;
  /** destination URL, cut to INDEXED_DESTINATION_CHARS */ d: string;
  /** campaign */ k: string | null;
  /** tags */ g: string[];
  /** dynamic */ y: boolean;
  /** status */ s: "draft" | "published";
  /** createdAt, epoch milliseconds */ c: number;
}

export interface IndexedCode extends CodeIndexEntry {
  codeId: string;
}

const indexOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codeIndex");
const metaRef = (merchantId: string) => indexOf(merchantId).doc("meta");

function shardOf(codeId: string): string {
  const n = parseInt(sha256Hex(codeId).slice(0, 8), 16) % CODE_INDEX_SHARDS;
  return `s${String(n).padStart(2, "0")}`;
}

export function entryOf(code: Pick<QrCode, "title" | "destinationUrl" | "campaign" | "tags" | "dynamic" | "status" | "createdAt">): CodeIndexEntry {
  return {
    t: code.title,
    d: code.destinationUrl.slice(0, INDEXED_DESTINATION_CHARS),
    k: code.campaign ?? null,
    g: code.tags ?? [],
    y: code.dynamic,
    s: code.status,
    c: code.createdAt.getTime(),
  };
}

type Writer = WriteBatch | Transaction;

/** Writes (or replaces) a code's entry, in the caller's batch or transaction. */
export function writeIndexEntry(writer: Writer, merchantId: string, codeId: string, entry: CodeIndexEntry): void {
  // update() with a field path replaces the whole entry (set-merge would keep a removed tag); `set` first
  // makes the shard exist, with no field of its own touched.
  const ref = indexOf(merchantId).doc(shardOf(codeId));
  (writer as WriteBatch).set(ref, { e: { [codeId]: entry } }, { mergeFields: [new FieldPath("e", codeId)] });
}

/** Changes only a code's status in its entry. */
export function writeIndexStatus(writer: Writer, merchantId: string, codeId: string, status: "draft" | "published"): void {
  const ref = indexOf(merchantId).doc(shardOf(codeId));
  (writer as WriteBatch).set(ref, { e: { [codeId]: { s: status } } }, { merge: true });
}

/**
 * Every code's entry. A workspace whose directory was never built (codes made before it existed) gets it
 * built here once from its codes; entries written meanwhile by other requests survive (merged by key).
 */
export async function readCodeIndex(merchantId: string): Promise<IndexedCode[]> {
  const refs = [metaRef(merchantId), ...Array.from({ length: CODE_INDEX_SHARDS }, (_, i) => indexOf(merchantId).doc(`s${String(i).padStart(2, "0")}`))];
  const [meta, ...shards] = await db().getAll(...refs);
  if (!meta.exists) return rebuildCodeIndex(merchantId);
  const codes: IndexedCode[] = [];
  for (const shard of shards) {
    const entries = (shard.data()?.e ?? {}) as Record<string, CodeIndexEntry>;
    for (const [codeId, entry] of Object.entries(entries)) if (entry && typeof entry.t === "string") codes.push({ codeId, ...entry });
  }
  return codes;
}

const CODE_FIELDS = ["title", "destinationUrl", "campaign", "tags", "dynamic", "status", "createdAt"];

async function rebuildCodeIndex(merchantId: string): Promise<IndexedCode[]> {
  const snap = await db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codes").select(...CODE_FIELDS).get();
  const byShard = new Map<string, Record<string, CodeIndexEntry>>();
  const codes: IndexedCode[] = [];
  for (const doc of snap.docs) {
    const d = doc.data();
    const entry = entryOf({ ...(d as QrCode), createdAt: (d.createdAt as Timestamp).toDate() });
    codes.push({ codeId: doc.id, ...entry });
    const shard = shardOf(doc.id);
    byShard.set(shard, { ...(byShard.get(shard) ?? {}), [doc.id]: entry });
  }
  const batch = db().batch();
  for (const [shard, entries] of byShard) batch.set(indexOf(merchantId).doc(shard), { e: entries }, { merge: true });
  batch.set(metaRef(merchantId), { builtAt: Timestamp.now(), version: 1 });
  await batch.commit();
  return codes;
}
