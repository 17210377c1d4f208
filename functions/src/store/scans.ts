// Scan records. A counted scan is ONE atomic batch of two writes, made before its redirect is answered:
//  - an event   workspaces/{m}/scans/{eventId}   (time, local day and hour, place, device, unique or not)
//  - a rollup   workspaces/{m}/scanDays/{day}     (increments per code under c.{codeId}: totals and
//                                                  breakdowns; workspace figures are their sums; cities)
// Bots, previews and repeats write only the rollup increment. Nothing runs later per scan: no trigger.
// The event id doubles as the guard for unique and repeat counting (scans/record.ts): the first scan of a
// code by a visitor on a local day is created as `u~{visitor}~{day}~{codeId}`, later ones take one of a few
// per-minute slots `m~{visitor}~{minute}~{codeId}~{k}` (the visitor hash leads: no increasing key range). `create` fails when the id exists, failing the whole
// batch, so a rollup is never incremented for a scan whose event was not written, on any instance.
// Rollup shards: a workspace-day normally has one rollup document. An instance that sees a workspace scanned
// fast spreads its increments over `{day}~{shard}` documents (no hot document); the maintenance job folds
// those back into `{day}` once the day is over, so a year of analytics reads at most ~366 documents.
import { FieldValue, Timestamp, type DocumentData, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";
import { Coalescer } from "../core/coalescer";
import type { ScanPlace } from "../scans/classify";
import type { ScanDevice } from "../scans/device";

/** Map keys for campaigns: "none" for codes without one, "c:<name>" otherwise (no collisions). */
function campaignKey(campaign: string | null): string {
  return campaign === null ? "none" : `c:${campaign}`;
}

export function campaignFromKey(key: string): string | null {
  return key === "none" ? null : key.slice(2);
}

const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);
const scanEvents = (merchantId: string) => workspace(merchantId).collection("scans");
export const scanDays = (merchantId: string) => workspace(merchantId).collection("scanDays");

const ALREADY_EXISTS = 6; // gRPC status of a create() whose document exists

export function isAlreadyExists(error: unknown): boolean {
  return (error as { code?: number }).code === ALREADY_EXISTS;
}

/** Everything recorded about one scan; no address and no User-Agent. */
export interface ScanFacts {
  merchantId: string;
  codeId: string;
  uniqueQRCodeID: string;
  campaign: string | null;
  at: Date;
  /** Local calendar day and hour in the workspace's time zone. */
  day: string;
  hour: number;
  timeZone: string;
  place: ScanPlace;
  device: ScanDevice;
  source: "redirect" | "app";
  retentionDays: number;
}

type ScanClass = { kind: "human"; unique: boolean; eventId: string } | { kind: "repeat" } | { kind: "bot"; reason: string };

/** Firestore field names may not look like `__x__`, and rollup keys come from databases and parsers. */
function safeKey(value: string): string {
  const v = value.replace(/[|]/g, " ").trim() || "unknown";
  return /^__.*__$/.test(v) ? `_${v}` : v;
}

const regionKey = (p: ScanPlace) => `${safeKey(p.country)}|${safeKey(p.state)}`;
const cityKey = (p: ScanPlace) => `${safeKey(p.country)}|${safeKey(p.state)}|${safeKey(p.city)}`;

/** A rollup change as plain numbers (summed across the scans of one commit), turned into increments last. */
type Counts = { [key: string]: number | Counts };

function one(key: string): Counts {
  return { [key]: 1 };
}

/** One scan's counts for its code: a person's breakdowns, or a repeat, or a machine by reason. */
function codeCounts(facts: ScanFacts, cls: ScanClass): Counts {
  if (cls.kind === "bot") return { b: one(safeKey(cls.reason)) };
  if (cls.kind === "repeat") return { r: 1 };
  return {
    n: 1,
    ...(cls.unique ? { u: 1 } : {}),
    co: one(safeKey(facts.place.country)),
    rg: one(regionKey(facts.place)),
    dv: one(safeKey(facts.device.device)),
    os: one(safeKey(facts.device.os)),
    br: one(safeKey(facts.device.browser)),
    h: one(String(facts.hour)),
  };
}

function addInto(into: Counts, from: Counts): Counts {
  for (const [k, v] of Object.entries(from)) {
    if (typeof v === "number") into[k] = ((into[k] as number | undefined) ?? 0) + v;
    else into[k] = addInto(((into[k] as Counts | undefined) ?? {}) as Counts, v);
  }
  return into;
}

function asIncrements(counts: Counts): DocumentData {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, typeof v === "number" ? FieldValue.increment(v) : asIncrements(v)]));
}

function rollupId(day: string, shard: number): string {
  return shard === 0 ? day : `${day}~${shard}`;
}

const expiry = (facts: ScanFacts) => Timestamp.fromMillis(Date.parse(`${facts.day}T00:00:00Z`) + (facts.retentionDays + 1) * 86_400_000);

/**
 * One scan's change to its day's rollup. Counts live once, per code (c.{codeId}); workspace figures are
 * their sums at read time, which halves the transforms per write and the document's size. Cities are
 * kept at the workspace level only (they are many).
 */
function rollupCounts(facts: ScanFacts, cls: ScanClass): Counts {
  return { ...(cls.kind === "human" ? { ci: one(cityKey(facts.place)) } : {}), c: { [facts.codeId]: codeCounts(facts, cls) } };
}

function rollupFields(facts: ScanFacts, shard: number): DocumentData {
  const codes: Record<string, { k: string }> = { [facts.codeId]: { k: campaignKey(facts.campaign) } }; // a code's campaign never changes
  return { day: facts.day, shard, ...(shard > 0 ? { compact: true } : {}), timeZone: facts.timeZone, expiresAt: expiry(facts), c: codes };
}

function eventData(facts: ScanFacts, unique: boolean): DocumentData {
  return {
    codeId: facts.codeId,
    uniqueQRCodeID: facts.uniqueQRCodeID,
    campaign: facts.campaign,
    at: Timestamp.fromDate(facts.at),
    day: facts.day,
    hour: facts.hour,
    country: facts.place.country,
    state: facts.place.state,
    city: facts.place.city,
    device: facts.device.device,
    os: facts.device.os,
    browser: facts.device.browser,
    unique,
    source: facts.source,
    expiresAt: expiry(facts),
  };
}

type Writer = Pick<WriteBatch, "create" | "set">;

interface PendingScan {
  facts: ScanFacts;
  cls: ScanClass;
  shard: number;
}

/** Merges a rollup's set fields and counts: nested maps deep-merged, so two codes' fields both survive. */
function mergeFields(into: DocumentData, from: DocumentData): DocumentData {
  for (const [k, v] of Object.entries(from)) {
    const nested = v && typeof v === "object" && !(v instanceof Timestamp) && !(v instanceof FieldValue);
    into[k] = nested && into[k] && typeof into[k] === "object" ? mergeFields(into[k], v) : v;
  }
  return into;
}

/** Adds the writes of several scans to one batch: each event, and one merged change per rollup document. Returns the write count. */
function addScanWrites(writer: Writer, scans: PendingScan[]): number {
  const rollups = new Map<string, { ref: FirebaseFirestore.DocumentReference; fields: DocumentData; counts: Counts }>();
  let events = 0;
  for (const { facts, cls, shard } of scans) {
    if (cls.kind === "human") {
      writer.create(scanEvents(facts.merchantId).doc(cls.eventId), eventData(facts, cls.unique));
      events++;
    }
    const ref = scanDays(facts.merchantId).doc(rollupId(facts.day, shard));
    const r = rollups.get(ref.path) ?? { ref, fields: {}, counts: {} };
    mergeFields(r.fields, rollupFields(facts, shard));
    addInto(r.counts, rollupCounts(facts, cls));
    rollups.set(ref.path, r);
  }
  for (const r of rollups.values()) writer.set(r.ref, mergeFields(r.fields, asIncrements(r.counts)), { merge: true });
  return events + rollups.size;
}

async function commitScans(scans: PendingScan[]): Promise<void> {
  const batch = db().batch();
  const writes = addScanWrites(batch, scans);
  try {
    await batch.commit();
  } finally {
    countOps({ writes });
  }
}

/**
 * Group commit: scans arriving while a commit is in flight on this instance go together in the next one
 * (their events, and one merged increment per rollup document), so a busy instance writes about one
 * document per scan and a hot rollup document once per round trip, not once per scan. An idle instance
 * commits at once. If a batch fails for any reason (an event id taken, see record.ts, or one workspace's
 * document refusing the write), each of its scans is committed alone, so each learns its own answer and
 * one workspace's failure never loses another's scans.
 */
const scanCommits = new Coalescer<PendingScan, Error | null>(async (scans) => {
  try {
    await commitScans(scans);
    return scans.map(() => null);
  } catch (error) {
    if (scans.length === 1) throw error;
    return Promise.all(scans.map((scan) => commitScans([scan]).then(() => null, (e: Error) => e)));
  }
}, 200);

/**
 * Records one scan: its event (people only) and its rollup change, atomically. Rejects with
 * ALREADY_EXISTS (see isAlreadyExists) when a person's event id is taken; nothing is written then.
 */
export async function writeScan(facts: ScanFacts, cls: ScanClass, shard: number): Promise<void> {
  const error = await scanCommits.submit({ facts, cls, shard });
  if (error) throw error;
}

/** The service's app reports a user's scan of a code at most once per this interval. */
export const APP_SCAN_REPEAT_MS = 10 * 60 * 1000;

/**
 * Counts an app scan unless the same user's last counted scan of the same code is less than
 * APP_SCAN_REPEAT_MS old. The mark (appScanMarks/{markId}: countedAt, expiresAt TTL), the unique check and
 * the scan are one transaction, so concurrent reports count once.
 */
export async function countAppScan(markId: string, facts: ScanFacts, uniqueEventId: string, repeatEventId: string): Promise<boolean> {
  const markRef = db().collection(COLLECTIONS.appScanMarks).doc(markId);
  const uniqueRef = scanEvents(facts.merchantId).doc(uniqueEventId);
  return db().runTransaction(
    async (tx: Transaction) => {
      const [mark, first] = await Promise.all([tx.get(markRef), tx.get(uniqueRef)]);
      const last = mark.exists ? (mark.get("countedAt") as Timestamp).toMillis() : -Infinity;
      if (last > facts.at.getTime() - APP_SCAN_REPEAT_MS) return false;
      tx.set(markRef, { countedAt: Timestamp.fromDate(facts.at), expiresAt: Timestamp.fromMillis(facts.at.getTime() + APP_SCAN_REPEAT_MS) });
      const unique = !first.exists;
      const writes = addScanWrites(tx as unknown as Writer, [{ facts, cls: { kind: "human", unique, eventId: unique ? uniqueEventId : repeatEventId }, shard: 0 }]);
      countOps({ reads: 2, writes: writes + 1 });
      return true;
    },
    { maxAttempts: 30 },
  );
}

/** Every rollup document of a workspace for local days first..last (shards included). */
export async function readRollups(merchantId: string, first: string, last: string): Promise<DocumentData[]> {
  const snap = await scanDays(merchantId).where("day", ">=", first).where("day", "<=", last).get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => d.data());
}

interface ScanEvent {
  at: Date;
  day: string;
  country: string;
  state: string;
  city: string;
  device: string;
  os: string;
  browser: string;
  unique: boolean;
  source: string;
}

function eventFrom(data: DocumentData): ScanEvent {
  const s = (k: string) => (typeof data[k] === "string" ? (data[k] as string) : "unknown");
  return {
    at: (data.at as Timestamp).toDate(),
    day: s("day"),
    country: s("country"),
    state: s("state"),
    city: s("city"),
    device: s("device"),
    os: s("os"),
    browser: s("browser"),
    unique: data.unique === true,
    source: s("source"),
  };
}

/** The newest scan events of one code since `since`, at most `limit`. */
export async function recentScans(merchantId: string, codeId: string, since: Date, limit: number): Promise<ScanEvent[]> {
  if (limit <= 0) return [];
  const snap = await scanEvents(merchantId)
    .where("codeId", "==", codeId)
    .where("at", ">=", Timestamp.fromDate(since))
    .orderBy("at", "desc")
    .limit(limit)
    .get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => eventFrom(d.data()));
}

/** Rollup documents of finished days that hold shard increments still to fold into their day's document. */
export async function shardedRollups(beforeDay: string, limit = 500): Promise<Array<{ merchantId: string; day: string }>> {
  const snap = await db().collectionGroup("scanDays").where("compact", "==", true).where("day", "<", beforeDay).limit(limit).get();
  countOps({ reads: Math.max(1, snap.size) });
  const seen = new Map<string, { merchantId: string; day: string }>();
  for (const doc of snap.docs) {
    const merchantId = doc.ref.parent.parent!.id;
    seen.set(`${merchantId}/${doc.get("day")}`, { merchantId, day: doc.get("day") as string });
  }
  return [...seen.values()];
}

/** Adds every number of `from` into `into`, recursively through maps. */
export function addCounts(into: DocumentData, from: DocumentData): DocumentData {
  for (const [k, v] of Object.entries(from)) {
    if (typeof v === "number") into[k] = (typeof into[k] === "number" ? into[k] : 0) + v;
    else if (typeof v === "string") into[k] = v;
    else if (v && typeof v === "object" && !(v instanceof Timestamp)) into[k] = addCounts(into[k] && typeof into[k] === "object" ? into[k] : {}, v);
  }
  return into;
}

const COUNT_FIELDS = ["ci", "c"];

/** Folds a finished day's shard documents into its day document, in one transaction. */
export async function foldShards(merchantId: string, day: string, maxShards: number): Promise<number> {
  return db().runTransaction(async (tx) => {
    const refs = Array.from({ length: maxShards }, (_, s) => scanDays(merchantId).doc(rollupId(day, s)));
    const snaps = await tx.getAll(...refs);
    const shards = snaps.slice(1).filter((s) => s.exists);
    countOps({ reads: snaps.filter((s) => s.exists).length || 1 });
    if (!shards.length) return 0;
    const base = snaps[0].exists ? snaps[0].data()! : {};
    const merged: DocumentData = {};
    for (const key of COUNT_FIELDS) if (base[key] !== undefined) merged[key] = base[key];
    for (const s of shards) {
      const data = s.data()!;
      for (const key of COUNT_FIELDS) if (data[key] !== undefined) merged[key] = typeof data[key] === "number" ? (merged[key] ?? 0) + data[key] : addCounts(merged[key] ?? {}, data[key]);
    }
    const meta = snaps[0].exists ? base : shards[0].data()!;
    tx.set(refs[0], { ...merged, day, shard: 0, timeZone: meta.timeZone ?? "UTC", expiresAt: meta.expiresAt });
    for (const s of shards) tx.delete(s.ref);
    countOps({ writes: 1, deletes: shards.length });
    return shards.length;
  });
}
