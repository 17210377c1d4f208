// Scan rollups: counts per code and day, and per workspace and day, as instance-owned shards folded into
// one document per day. Every bound here is stated in docs/data-model.md ("Scan rollups").
//
//   workspaces/{m}/codeDays/{codeId}~{day}                  a code's day, folded (written only by the fold)
//   workspaces/{m}/codeDays/{inst}~{slot}~{codeId}~{day}    a shard: written by ONE instance only
//   workspaces/{m}/scanDays/{day}                           the workspace's day, folded
//   workspaces/{m}/scanDays/{inst}~{slot}~{day}             its shards (the fold groups shards by their fields)
//
// Write rate: an instance writes a shard at most once a second (it moves on to its next slot while one
// was written in the last second; when all MAX_SLOTS were, its writers wait for the first to come free,
// whenShardsFree), and the fold writes a day's document once per run (once per page of 400 of its shards,
// a second apart), so no document takes more than one write a second whatever the number of instances or
// the traffic.
// Size: every breakdown map holds at most its cap of keys plus "Other". The instance that owns a shard
// knows every key it ever wrote there, so it caps exactly; the fold keeps the largest keys of the merged
// maps and adds the rest into "Other".
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { FieldValue, Timestamp, type DocumentData, type DocumentReference, type DocumentSnapshot, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps, countDocumentWrite } from "./opCounter";
import { codeDocRef, foldIntoLedger, type ScanWindow } from "./scanLedger";
import { LruMap } from "../core/lru";

/** Where a capped map puts the keys beyond its cap. */
export const OTHER_KEY = "Other";
/**
 * Keys a breakdown map may hold (besides Other). Closed sets (device, OS, browser, hour, bot reason, GS1
 * link type, campaign rule and variant: 20 rules x 4 variants + the destination) stay below theirs; open
 * ones (regions, cities, campaigns, codes, UTM source and medium pairs) keep their largest.
 * Conversions (store/conversions.ts): revenue per currency `cv` (ISO 4217 has under 200), per rule key `cr`
 * (as `ru`), per campaign `cc` (as `cp`).
 */
export const MAP_CAPS = { b: 20, co: 260, rg: 300, ci: 200, dv: 8, os: 30, br: 100, h: 24, cp: 200, c: 1000, e: 4, lt: 60, ru: 100, ut: 100, cv: 200, cr: 100, cc: 200 } as const;
type CappedField = keyof typeof MAP_CAPS;
/** A shard is written at most once per this interval by its instance. */
export const SHARD_WRITE_INTERVAL_MS = 1_000;
/** Slots one instance may use for one rollup at once; when all were written in the last second, writers wait (whenShardsFree). */
const MAX_SLOTS = 128;
/** This instance's name in its shards' ids: random, so no two instances ever share a shard. */
export const INSTANCE_ID = randomBytes(6).toString("base64url");

/** A rollup change as plain numbers, turned into increments when written. */
export type Counts = { [key: string]: number | Counts };

/** The rollup collections under each workspace. */
export const ROLLUP_KINDS = ["codeDays", "scanDays"] as const;
export type RollupKind = (typeof ROLLUP_KINDS)[number];

export interface RollupTarget {
  merchantId: string;
  kind: RollupKind;
  /** The folded document's id: `{codeId}~{day}` or `{day}`. */
  baseId: string;
  /** Fields every document of this rollup carries (day, codeId, campaign key, time zone, expiry). */
  fields: DocumentData;
}

const rollups = (merchantId: string, kind: RollupKind) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection(kind);

export function addInto(into: Counts, from: Counts): Counts {
  // for...in over plain count maps: no entry arrays per call (this runs for every scan and every fold).
  for (const k in from) addOne(into, k, from[k]);
  return into;
}

/** Adds one key's count (a number or a nested map) into `into`. */
function addOne(into: Counts, k: string, v: number | Counts): void {
  if (typeof v === "number") into[k] = ((into[k] as number | undefined) ?? 0) + v;
  else into[k] = addInto((into[k] as Counts | undefined) ?? {}, v);
}

function asIncrements(counts: Counts): DocumentData {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, typeof v === "number" ? FieldValue.increment(v) : asIncrements(v)]));
}

// ---- this instance's shards: which slot to write next, and which keys each shard holds ----

interface Slot {
  id: string;
  lastWrite: number;
  keys: Map<CappedField, Set<string>>;
}

const SLOTS_MAX_ROLLUPS = 20_000;
/** Least recently used rollups are forgotten first: a hot rollup's slots (and the keys they hold) stay known. */
const slots = new LruMap<string, Slot[]>(SLOTS_MAX_ROLLUPS);
/** A rollup (its merchant, kind and base id): the key its instance shards are kept under, and scans merged by. */
export const slotKey = (target: Pick<RollupTarget, "merchantId" | "kind" | "baseId">) => `${target.merchantId}/${target.kind}/${target.baseId}`;

/** Ms until this instance has a shard of the rollup not written in the last second (0: one is free now). */
function shardWait(target: RollupTarget, now: number): number {
  const list = slots.get(slotKey(target));
  if (!list || list.length < MAX_SLOTS) return 0;
  let oldest = Infinity;
  for (const s of list) oldest = Math.min(oldest, s.lastWrite);
  return Math.max(0, oldest + SHARD_WRITE_INTERVAL_MS - now);
}

/**
 * Waits until this instance has a free shard (not written in the last second) of each of the rollups, then
 * calls `write` with the time to write them at, in the same turn (no other writer can take the shard in
 * between): `write` adds the changes (addRollupWrite). All MAX_SLOTS shards of a rollup written in the last
 * second (MAX_SLOTS commits a second on one instance) means waiting for the oldest one's second to pass,
 * never writing a shard twice in a second.
 */
export async function whenShardsFree<T>(targets: readonly RollupTarget[], write: (now: number) => T): Promise<T> {
  for (;;) {
    const now = Date.now();
    let wait = 0;
    for (const target of targets) wait = Math.max(wait, shardWait(target, now));
    if (wait === 0) return write(now);
    await sleep(wait);
  }
}

/** The shard to write at `now`: one not written in the last second (whenShardsFree waited for one). */
function slotFor(target: RollupTarget, now: number): Slot {
  const key = slotKey(target);
  let list = slots.get(key);
  if (!list) {
    list = [];
    slots.set(key, list);
  }
  let slot = list.find((s) => now - s.lastWrite >= SHARD_WRITE_INTERVAL_MS);
  if (!slot && list.length < MAX_SLOTS) {
    // The instance leads: at local midnight the instances' new shards spread over their own key ranges
    // instead of all starting one new range of ids that begin with the day.
    slot = { id: `${INSTANCE_ID}~${list.length}~${target.baseId}`, lastWrite: 0, keys: new Map() };
    list.push(slot);
  }
  // Only for a writer that did not wait (whenShardsFree): the least recently written.
  slot ??= list.reduce((a, b) => (a.lastWrite <= b.lastWrite ? a : b));
  slot.lastWrite = now;
  return slot;
}

/** Puts keys beyond a map's cap under Other, exactly: the slot knows every key its shard holds. */
function capped(counts: Counts, slot: Slot): Counts {
  const out: Counts = {};
  for (const [field, value] of Object.entries(counts)) {
    const cap = MAP_CAPS[field as CappedField];
    if (cap === undefined || typeof value === "number") {
      out[field] = value;
      continue;
    }
    let known = slot.keys.get(field as CappedField);
    if (!known) slot.keys.set(field as CappedField, (known = new Set()));
    const kept: Counts = {};
    for (const k in value) {
      const admitted = known.has(k) || (k !== OTHER_KEY && known.size < cap && (known.add(k), true));
      addOne(kept, admitted ? k : OTHER_KEY, value[k]);
    }
    out[field] = kept;
  }
  return out;
}

type Writer = { set(ref: DocumentReference, data: DocumentData, options: { merge: true }): unknown };

/** Which of this instance's shards a rollup change goes to at `now`, and the change with its maps capped. */
export function shardChange(target: RollupTarget, counts: Counts, now: number): { id: string; counts: Counts } {
  const slot = slotFor(target, now);
  return { id: slot.id, counts: capped(counts, slot) };
}

/** Adds one rollup change to a batch, in this instance's next free shard of that rollup (`now`: from whenShardsFree). */
export function addRollupWrite(writer: Writer, target: RollupTarget, counts: Counts, now: number): void {
  const change = shardChange(target, counts, now);
  const ref = rollups(target.merchantId, target.kind).doc(change.id);
  writer.set(ref, { ...target.fields, shard: true, ...asIncrements(change.counts) }, { merge: true });
  countDocumentWrite(ref.path, now);
}

// ---- reading and folding ----

/** Numbers of `from` added into `into`, through nested maps; strings are copied. */
export function addCounts(into: DocumentData, from: DocumentData): DocumentData {
  for (const [k, v] of Object.entries(from)) {
    if (typeof v === "number") into[k] = (typeof into[k] === "number" ? into[k] : 0) + v;
    else if (typeof v === "string") into[k] = v;
    else if (v && typeof v === "object" && !(v instanceof Timestamp)) into[k] = addCounts(into[k] && typeof into[k] === "object" ? into[k] : {}, v);
  }
  return into;
}

/** Plain counts and capped maps: summed by the fold (leads `cl` and sales `cs` are conversions'). */
const COUNT_FIELDS = ["n", "u", "r", "cl", "cs", ...Object.keys(MAP_CAPS)];

const sizeOf = (v: unknown): number => (typeof v === "number" ? v : typeof (v as Counts)?.n === "number" ? ((v as Counts).n as number) : 0);

/** Keeps a merged map's largest keys up to its cap and adds the rest into Other. */
export function trimToCap(map: Counts, cap: number): Counts {
  const entries = Object.entries(map).filter(([k]) => k !== OTHER_KEY);
  if (entries.length <= cap) return map;
  entries.sort((a, b) => sizeOf(b[1]) - sizeOf(a[1]) || a[0].localeCompare(b[0]));
  const out: Counts = Object.fromEntries(entries.slice(0, cap));
  const other: Counts = {};
  if (map[OTHER_KEY] !== undefined) addInto(other, { [OTHER_KEY]: map[OTHER_KEY] });
  for (const [, v] of entries.slice(cap)) addInto(other, { [OTHER_KEY]: v });
  return { ...out, ...other };
}

/** The counts of several documents of one rollup, summed and trimmed to the caps. */
export function foldCounts(docs: DocumentData[]): DocumentData {
  const merged: DocumentData = {};
  for (const d of docs) for (const f of COUNT_FIELDS) if (d[f] !== undefined) addCounts(merged, { [f]: d[f] });
  for (const [f, cap] of Object.entries(MAP_CAPS)) if (merged[f]) merged[f] = trimToCap(merged[f], cap);
  return merged;
}

/**
 * The documents of rollups of one kind for days first..last: the folded days (one per day), then
 * unfolded shards up to `budget` documents in all. `more` tells that shards were left out (the fold
 * will have them within its interval); totals are then short by those shards.
 */
export async function readRollupDocs(merchantId: string, kind: RollupKind, where: { codeId?: string; first: string; last: string }, budget: number): Promise<{ docs: DocumentData[]; more: boolean }> {
  let q = rollups(merchantId, kind).where("day", ">=", where.first).where("day", "<=", where.last);
  if (where.codeId) q = q.where("codeId", "==", where.codeId);
  // One snapshot for both queries (a read-only transaction): a fold committed between them would otherwise
  // be missed by both, its shards gone from the second and its sum not yet in the first.
  const { folded, shards } = await db().runTransaction(
    async (tx) => {
      const folded = await tx.get(q.where("shard", "==", false).limit(budget));
      const left = budget - folded.size;
      return { folded, shards: left > 0 ? await tx.get(q.where("shard", "==", true).limit(left + 1)) : undefined };
    },
    { readOnly: true },
  );
  const left = budget - folded.size;
  const shardDocs = shards?.docs.slice(0, Math.max(0, left)) ?? [];
  countOps({ reads: Math.max(1, folded.size) + (shards ? Math.max(1, shardDocs.length) : 0) });
  return { docs: [...folded.docs, ...shardDocs].map((d) => d.data()), more: (shards?.size ?? 1) > left };
}

/** Shards one fold takes at most (a transaction writes at most 500 documents), and one page of the fold's scan. */
export const FOLD_SHARDS_MAX = 400;

/**
 * One page of the shards (of one kind, any workspace and day) waiting to be folded, grouped by rollup (its
 * `codeId` and `day` fields, not its id), in document order from `after` (the previous page's cursor);
 * `next` is undefined on the last page. A rollup's shards may continue on the next page.
 */
export async function rollupsWithShards(kind: RollupKind, after?: DocumentSnapshot, limit = FOLD_SHARDS_MAX): Promise<{ rollups: Array<{ merchantId: string; baseId: string; codeId?: string; shards: DocumentReference[] }>; next?: DocumentSnapshot }> {
  let q = db().collectionGroup(kind).where("shard", "==", true).orderBy("__name__").select("codeId", "day").limit(limit);
  if (after) q = q.startAfter(after);
  const snap = await q.get();
  countOps({ reads: Math.max(1, snap.size) });
  const found = new Map<string, { merchantId: string; baseId: string; codeId?: string; shards: DocumentReference[] }>();
  for (const doc of snap.docs) {
    const merchantId = doc.ref.parent.parent!.id;
    const codeId = kind === "codeDays" ? String(doc.get("codeId")) : undefined;
    const baseId = codeId === undefined ? String(doc.get("day")) : `${codeId}~${String(doc.get("day"))}`;
    const key = `${merchantId}/${baseId}`;
    const rollup = found.get(key) ?? { merchantId, baseId, ...(codeId === undefined ? {} : { codeId }), shards: [] };
    rollup.shards.push(doc.ref);
    found.set(key, rollup);
  }
  return { rollups: [...found.values()], next: snap.size === limit ? snap.docs[snap.size - 1] : undefined };
}

/** What one fold did: the shards it folded, and for a code's day, what became of the code's ledger (store/scanLedger.ts). */
export interface Folded {
  shards: number;
  ledger?: "written" | "unseeded" | "gone";
}

/**
 * Folds the given shards of a rollup (at most FOLD_SHARDS_MAX, found by rollupsWithShards) into its folded
 * document, in one transaction that reads them by reference: it locks only those documents, so folds of
 * different rollups run side by side, and a shard written again since it was found is folded as it now
 * is. A shard already folded (gone) is skipped. A code's day (`code` given) also sets that day in the
 * code's scans ledger, in the same transaction, so the list's 7- and 30-day figures move with the fold.
 */
export async function foldRollup(merchantId: string, kind: RollupKind, baseId: string, shardRefs: DocumentReference[], code?: { codeId: string; window: ScanWindow }): Promise<Folded> {
  if (shardRefs.length > FOLD_SHARDS_MAX) throw new Error(`at most ${FOLD_SHARDS_MAX} shards per fold, not ${shardRefs.length}`);
  const base = rollups(merchantId, kind).doc(baseId);
  const codeRef = code && kind === "codeDays" ? codeDocRef(merchantId, code.codeId) : undefined;
  return db().runTransaction(async (tx: Transaction) => {
    const [baseSnap, ...rest] = await tx.getAll(base, ...(codeRef ? [codeRef] : []), ...shardRefs);
    const codeSnap = codeRef ? rest.shift() : undefined;
    const shards = rest.filter((d) => d.exists && d.get("shard") === true);
    countOps({ reads: 1 + (codeRef ? 1 : 0) + shardRefs.length });
    if (!shards.length) return { shards: 0 };
    // Rollup documents are open maps of counts (their keys are the breakdowns' own), so they are read as
    // document data, not through a record converter.
    const folded = baseSnap.data();
    const docs = [...(folded ? [folded] : []), ...shards.map((s) => s.data()!)];
    const meta = folded ?? shards[0].data()!;
    const keep = Object.fromEntries(Object.entries(meta).filter(([k]) => !COUNT_FIELDS.includes(k) && k !== "shard"));
    const counts = foldCounts(docs);
    tx.set(base, { ...keep, ...counts, shard: false });
    for (const s of shards) tx.delete(s.ref);
    const ledger = codeSnap && code ? foldIntoLedger(tx, codeSnap, String(meta.day), typeof counts.n === "number" ? counts.n : 0, code.window) : undefined;
    countOps({ writes: 1 + (ledger === "written" ? 1 : 0), deletes: shards.length });
    return { shards: shards.length, ...(ledger ? { ledger } : {}) };
  });
}
