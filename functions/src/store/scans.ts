// Scan records. A counted scan is ONE atomic batch, made before its redirect is answered:
//  - an event   workspaces/{m}/scans/{eventId}     (people only: time, local day and hour, place, device)
//  - its code's rollup change and its workspace's, each in this instance's shard of that day
//    (store/rollups.ts: instance-owned shards, at most one write a second each, folded later)
// Bots, previews and repeats write only the rollup changes (a batch of nothing else adds one commit mark
// `scanCommits/{commitId}`: see proofOf). Nothing runs later per scan: no trigger.
// The event id doubles as the guard for unique and repeat counting (scans/record.ts): the first scan of a
// code by a visitor on a local day is created as `u~{visitor}~{day}~{codeId}`, later ones take one of a few
// per-minute slots `m~{visitor}~{minute}~{codeId}~{k}` (the visitor hash leads: no increasing key range).
// Newcomer slots `n~{address hash}~{window}~{codeId}~{k}` (claimSlot) live beside them, with no other field.
// `create` fails when the id exists, failing the whole batch, so a rollup is never incremented for a scan
// whose event was not written, on any instance.
import { randomBytes } from "node:crypto";
import { Timestamp, type DocumentData, type DocumentReference, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { COMMIT_RETRY_BUDGET_MS, db, withTimeout } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";
import { Coalescer } from "../core/coalescer";
import { addInto, addRollupWrite, slotKey, whenShardsFree, type Counts, type RollupTarget } from "./rollups";
import { spentData } from "./campaignCaps";

/** Map keys for campaigns: "none" for codes without one, "c:<name>" otherwise (no collisions). */
export function campaignKey(campaign: string | null): string {
  return campaign === null ? "none" : `c:${campaign}`;
}

export function campaignFromKey(key: string): string | null {
  return key === "none" ? null : key.slice(2);
}

const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);
export const scanEvents = (merchantId: string) => workspace(merchantId).collection("scans");
/** Commit marks (proofOf): apart from the events, which are people's scans only. */
export const scanCommitMarks = (merchantId: string) => workspace(merchantId).collection("scanCommits");

const ALREADY_EXISTS = 6; // gRPC status of a create() whose document exists

export function isAlreadyExists(error: unknown): boolean {
  return (error as { code?: number }).code === ALREADY_EXISTS;
}

/**
 * Why writeScan failed, and whether its scan was written: "no" only when that is known (the commit was
 * read back and had not landed, or the scan was never sent); "unknown" when it may have landed (the read
 * back failed, or an attempt may still land). Only a scan known unwritten keeps ALREADY_EXISTS as its
 * code: that alone means "this event id is taken" to scans/record.ts.
 */
export class ScanWriteError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly written: "no" | "unknown",
    readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** Whether writeScan's error says surely nothing of the scan was written (an allowance it carried may be reused). */
export function scanNotWritten(error: unknown): boolean {
  return error instanceof ScanWriteError && error.written === "no";
}

const UNKNOWN = 2; // gRPC status UNKNOWN: what a scan whose write may have landed is failed with
const RESOURCE_EXHAUSTED = 8;

/** Where a scan came from, as recorded (scans/classify.ts and scans/geo.ts fill it). */
export interface ScanPlace {
  /** ISO 3166-1 alpha-2 country code, or "unknown". */
  country: string;
  /** First-level subdivision (state, province) as the database names it, or "unknown". */
  state: string;
  city: string;
}

/** A scan's device, as recorded: coarse names from closed sets (scans/device.ts). */
export interface ScanDevice {
  /** mobile, tablet, desktop, tv, or unknown. */
  device: string;
  os: string;
  browser: string;
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
  source: "redirect" | "app" | "gs1";
  /** A GS1 resolution's link type (a GS1 Web Vocabulary term, a closed set): counted per type in `lt`. */
  linkType?: string;
  /** Which of the code's campaign rules answered the scan (campaigns/answer.ts): people counted per rule and variant in `ru`. */
  rule?: ScanRule;
  /** The campaign source and medium of the UTM parameters the code appends: people counted per pair in `ut`. */
  utm?: { source: string; medium: string };
  /** Days the day's rollups are kept. */
  retentionDays: number;
  /** Days a person's individual event is kept (the newest-scans list); absent: as the rollups. */
  eventRetentionDays?: number;
}

/** A campaign rule's answer to a scan: the rule's position (null: no rule matched, the code's destination) and an A/B variant. */
export interface ScanRule {
  index: number | null;
  variant?: number;
}

/** The `ru` key of a rule's answer: "d" (the destination), "3" (rule 3), "3.1" (rule 3's variant 1). */
export function ruleKey(rule: ScanRule): string {
  return rule.index === null ? "d" : rule.variant === undefined ? String(rule.index) : `${rule.index}.${rule.variant}`;
}

/** The `ut` key of a source and medium (rollup keys hold no "|" of their own). */
export const utmKey = (utm: { source: string; medium: string }) => `${safeKey(utm.source)}|${safeKey(utm.medium)}`;

export type ScanClass =
  /** `spent`: a capped code's allowance documents (store/campaignCaps.ts: the cap's, scan-count thresholds'), created in the same batch. */
  | { kind: "human"; unique: boolean; eventId: string; spent?: DocumentReference | DocumentReference[] }
  | { kind: "repeat" }
  | { kind: "bot"; reason: string }
  /** A closed or capped campaign's answer (campaigns/): counted under `e` by reason, never as a person's scan. */
  | { kind: "ended"; reason: string };

/** Firestore field names may not look like `__x__`, and rollup keys come from databases and parsers. */
function safeKey(value: string): string {
  const v = value.replace(/[|]/g, " ").trim() || "unknown";
  return /^__.*__$/.test(v) ? `_${v}` : v;
}

const regionKey = (p: ScanPlace) => `${safeKey(p.country)}|${safeKey(p.state)}`;
const cityKey = (p: ScanPlace) => `${safeKey(p.country)}|${safeKey(p.state)}|${safeKey(p.city)}`;

function one(key: string): Counts {
  return { [key]: 1 };
}

/** One scan's counts: a person's breakdowns, or a repeat, or a machine by reason. */
function scanCounts(facts: ScanFacts, cls: ScanClass): Counts {
  if (cls.kind === "bot") return { b: one(safeKey(cls.reason)) };
  if (cls.kind === "repeat") return { r: 1 };
  if (cls.kind === "ended") return { e: one(safeKey(cls.reason)) };
  return {
    n: 1,
    ...(cls.unique ? { u: 1 } : {}),
    co: one(safeKey(facts.place.country)),
    rg: one(regionKey(facts.place)),
    ci: one(cityKey(facts.place)),
    dv: one(safeKey(facts.device.device)),
    os: one(safeKey(facts.device.os)),
    br: one(safeKey(facts.device.browser)),
    h: one(String(facts.hour)),
    ...(facts.linkType ? { lt: one(safeKey(facts.linkType)) } : {}),
    ...(facts.rule ? { ru: one(ruleKey(facts.rule)) } : {}),
    ...(facts.utm ? { ut: one(utmKey(facts.utm)) } : {}),
  };
}

const expiry = (facts: ScanFacts, days = facts.retentionDays) => Timestamp.fromMillis(Date.parse(`${facts.day}T00:00:00Z`) + (days + 1) * 86_400_000);

/**
 * A scan's two rollup changes: its code's day (the breakdowns) and its workspace's day (the same
 * breakdowns summed, plus people-scans per campaign and per code, both capped).
 */
export function rollupChanges(facts: ScanFacts, cls: ScanClass): Array<{ target: RollupTarget; counts: Counts }> {
  const counts = scanCounts(facts, cls);
  // Rule positions mean something only within one code: the workspace's day has no `ru`.
  const { ru: _ru, ...workspaceCounts } = counts;
  const people = cls.kind === "human" ? { n: 1, ...(cls.unique ? { u: 1 } : {}) } : undefined;
  const common = { day: facts.day, timeZone: facts.timeZone, expiresAt: expiry(facts) };
  return [
    {
      target: { merchantId: facts.merchantId, kind: "codeDays", baseId: `${facts.codeId}~${facts.day}`, fields: { ...common, codeId: facts.codeId, k: campaignKey(facts.campaign) } },
      counts,
    },
    {
      target: { merchantId: facts.merchantId, kind: "scanDays", baseId: facts.day, fields: common },
      counts: people ? { ...workspaceCounts, cp: { [campaignKey(facts.campaign)]: people }, c: { [facts.codeId]: people } } : workspaceCounts,
    },
  ];
}

/**
 * Index lanes of a code's events. The newest-scans index is `codeId, lane, at`: each event takes a random
 * lane, so a hot code's new entries land at the ends of 16 ranges instead of one, and the index takes 16
 * times the ~500 writes a second Firestore advises for one increasing range (docs/data-model.md).
 */
export const SCAN_EVENT_LANES = 16;
const ALL_LANES = Array.from({ length: SCAN_EVENT_LANES }, (_, i) => i);

export function eventData(facts: ScanFacts, unique: boolean, commitId?: string): DocumentData {
  return {
    // The commit that wrote it: read back after a failed commit (commitLanded).
    ...(commitId ? { cm: commitId } : {}),
    codeId: facts.codeId,
    lane: Math.floor(Math.random() * SCAN_EVENT_LANES),
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
    ...(facts.linkType ? { linkType: facts.linkType } : {}),
    ...(facts.rule ? { rule: facts.rule.index, ...(facts.rule.variant === undefined ? {} : { variant: facts.rule.variant }) } : {}),
    // Individual events are the newest-scans list: kept a short while (store cost), totals stay in the rollups.
    expiresAt: expiry(facts, Math.min(facts.retentionDays, facts.eventRetentionDays ?? facts.retentionDays)),
  };
}

type Writer = Pick<WriteBatch, "create" | "set">;

interface PendingScan {
  facts: ScanFacts;
  cls: ScanClass;
  /** Whether the person's event id was found taken while the scan waited (writeScan); `taken` unset: not known (yet). */
  guard?: { read: Promise<unknown>; done: boolean; taken?: boolean; heldOnce?: boolean };
}

export type RollupChanges = Map<string, { target: RollupTarget; counts: Counts }>;

/** The rollup changes of several scans, one merged change per rollup. */
export function mergedChanges(scans: Array<Pick<PendingScan, "facts" | "cls">>): RollupChanges {
  const changes: RollupChanges = new Map();
  for (const { facts, cls } of scans) {
    for (const { target, counts } of rollupChanges(facts, cls)) {
      const key = slotKey(target);
      const change = changes.get(key) ?? { target, counts: {} };
      addInto(change.counts, counts);
      changes.set(key, change);
    }
  }
  return changes;
}

/** How long a commit's mark (a batch without people's events) is kept (TTL): far past any read back of it. */
export const COMMIT_MARK_RETENTION_MS = 2 * 86_400_000;

/**
 * The document that proves a commit landed: its first person's event, which carries the commit's id
 * (`cm`), or for a batch of bots, repeats and ended scans only, a mark `scanCommits/{commitId}` created with it.
 * Either is a `create`, so a re-sent batch that already landed is refused whole (ALREADY_EXISTS) instead
 * of adding its rollup increments twice; and neither is ever deleted before its TTL (a rollup shard is
 * deleted by the fold at any time, so its absence would prove nothing).
 */
function proofOf(scans: PendingScan[], commitId: string): { ref: DocumentReference; mark: boolean } {
  const person = scans.find((s) => s.cls.kind === "human");
  if (person && person.cls.kind === "human") return { ref: scanEvents(person.facts.merchantId).doc(person.cls.eventId), mark: false };
  return { ref: scanCommitMarks(scans[0].facts.merchantId).doc(commitId), mark: true };
}

/**
 * Adds the writes of several scans to one batch: each event, and each merged rollup change in a shard free
 * at `now` (called by whenShardsFree), and with a commit id, the mark that proves the batch landed
 * (proofOf). Returns the write count.
 */
function addScanWrites(writer: Writer, scans: PendingScan[], changes: RollupChanges, now: number, commitId?: string): number {
  let events = 0;
  if (commitId) {
    const proof = proofOf(scans, commitId);
    if (proof.mark) {
      writer.create(proof.ref, { cm: commitId, expiresAt: Timestamp.fromMillis(now + COMMIT_MARK_RETENTION_MS) });
      events++;
    }
  }
  for (const { facts, cls } of scans) {
    if (cls.kind !== "human") continue;
    writer.create(scanEvents(facts.merchantId).doc(cls.eventId), eventData(facts, cls.unique, commitId));
    events++;
    for (const spent of [cls.spent ?? []].flat()) {
      writer.create(spent, spentData(facts.at));
      events++;
    }
  }
  for (const { target, counts } of changes.values()) addRollupWrite(writer, target, counts, now);
  return events + changes.size;
}

/**
 * Sends a batch of scans. Store tests replace `commit` to fail the way the transport reports a failure
 * (test/service/scan-commits.test.ts); nothing else does.
 */
export const scanBatches = { commit: (batch: WriteBatch): Promise<unknown> => batch.commit() };

/** How long the read back of a failed commit may take; past it the commit's outcome stays unknown. */
const READ_BACK_WAIT_MS = 5_000;

/** Whether the commit `commitId` landed: its proof holds the id (true) or not (false); undefined when the read failed. */
export async function commitLanded(proof: DocumentReference, commitId: string): Promise<boolean | undefined> {
  try {
    const snap = await withTimeout(proof.get(), READ_BACK_WAIT_MS, "a failed scan commit's read back");
    return snap.exists && snap.get("cm") === commitId;
  } catch {
    return undefined;
  } finally {
    countOps({ reads: 1 });
  }
}

/**
 * Failures after which an attempt of the commit was abandoned by this side, not answered by Firestore (a
 * deadline, a cancel, a failure with no status): that attempt may still be applied after the read back,
 * so a read back that finds nothing proves nothing.
 */
const mayLandLater = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "number" || code === 1 /* CANCELLED */ || code === 4 /* DEADLINE_EXCEEDED */;
};

interface CommitFailure {
  error: Error;
  /** True only when the batch surely was not written (read back, or never sent). */
  notApplied: boolean;
}

/**
 * One batch of scans: null when it landed, else its error and whether it surely was not written. Every
 * commit carries a fresh id in its proof (proofOf). Any failed commit is read back before anything else
 * happens: the SDK re-sends a commit by itself (UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED) and its last
 * answer says nothing of the attempts before it; a batch that landed and whose answer was lost is refused
 * when re-sent (ALREADY_EXISTS on its proof), and the read back finds it landed: it is answered as
 * recorded, never split, re-sent or reported as not applied.
 */
async function commitScans(scans: PendingScan[]): Promise<CommitFailure | null> {
  let writes = 0;
  const commitId = randomBytes(12).toString("base64url");
  const batch = db().batch();
  try {
    const changes = mergedChanges(scans);
    writes = await whenShardsFree([...changes.values()].map((c) => c.target), (now) => addScanWrites(batch, scans, changes, now, commitId));
  } catch (error) {
    return { error: error as Error, notApplied: true }; // the batch could not be made: nothing was sent
  } finally {
    countOps({ writes });
  }
  try {
    await scanBatches.commit(batch);
    return null;
  } catch (error) {
    const landed = await commitLanded(proofOf(scans, commitId).ref, commitId);
    if (landed) return null;
    return { error: error as Error, notApplied: landed === false && !mayLandLater(error) };
  }
}

/**
 * The document path an ALREADY_EXISTS names, relative to the database: Firestore says "Document already
 * exists: projects/p/databases/(default)/documents/workspaces/m/scans/u~...", the emulator "entity already
 * exists: EntityRef{..., path=/workspaces/m/scans/u~...}". Undefined when neither shape is found (the
 * batch is then halved instead).
 */
function existingPath(error: Error): string | undefined {
  const message = error.message ?? "";
  return /\/documents\/([^\s"',;)]+)/.exec(message)?.[1] ?? /\bpath=\/([^\s}]+)/.exec(message)?.[1];
}

/** The documents a scan creates: its event and its allowances' spends. */
function createdPaths(scan: PendingScan): string[] {
  if (scan.cls.kind !== "human") return [];
  return [scanEvents(scan.facts.merchantId).doc(scan.cls.eventId).path, ...[scan.cls.spent ?? []].flat().map((r) => r.path)];
}

const codeOf = (error: Error) => ((error as { code?: unknown }).code as number | undefined) ?? UNKNOWN;
const notWritten = (error: Error) => new ScanWriteError(error.message, codeOf(error), "no", error);
const mayBeWritten = (error: Error) => new ScanWriteError(`the scan's write may have landed: ${error.message}`, UNKNOWN, "unknown", error);

/**
 * Refusals that point at some of a batch's scans (a document that exists, one workspace's document refusing
 * the write): the rest of the batch is worth sending again. Any other refusal (UNAVAILABLE, RESOURCE_EXHAUSTED,
 * ABORTED after the SDK's own re-sends, ...) would refuse any part of it as well.
 */
const SCAN_SPECIFIC = new Set([
  3, // INVALID_ARGUMENT
  5, // NOT_FOUND
  ALREADY_EXISTS,
  7, // PERMISSION_DENIED
  9, // FAILED_PRECONDITION
  11, // OUT_OF_RANGE
]);

/**
 * After a batch of scans failed. A batch that may have been written is never sent again: each of its scans
 * gets an error whose write is "unknown" (the redirect answers with the count unknown and logs it; the
 * scan stream has every scan). A batch surely not written, refused for some of its scans: refused for an
 * existing document (ALREADY_EXISTS naming it), the scans that create that document are answered so and
 * the rest go again as one batch; else its halves are committed (two commits at once), and a half that
 * fails so is split in turn, so one refused scan among n costs about 2 log2(n) commits and each scan ends
 * with its own answer. A batch refused whole for another reason, or anything still unsent at `until`
 * (COMMIT_RETRY_BUDGET_MS after the first send: a late re-commit could land past a cap lease's grace), is
 * answered "not written".
 */
async function afterFailure(scans: PendingScan[], failure: CommitFailure, until: number): Promise<Array<Error | null>> {
  if (!failure.notApplied) return scans.map(() => mayBeWritten(failure.error));
  if (scans.length === 1 || !SCAN_SPECIFIC.has(codeOf(failure.error)) || Date.now() > until) return scans.map(() => notWritten(failure.error));
  const path = isAlreadyExists(failure.error) ? existingPath(failure.error) : undefined;
  const conflicting = path ? scans.map((s) => createdPaths(s).includes(path)) : [];
  if (conflicting.some(Boolean) && !conflicting.every(Boolean)) {
    const rest = scans.filter((_, i) => !conflicting[i]);
    const again = await commitScans(rest);
    const restResults = again ? await afterFailure(rest, again, until) : rest.map(() => null);
    return scans.map((_, i) => (conflicting[i] ? notWritten(failure.error) : restResults.shift()!));
  }
  const halves = [scans.slice(0, scans.length >> 1), scans.slice(scans.length >> 1)];
  const failures = await Promise.all(halves.map(commitScans));
  const results: Array<Error | null> = [];
  for (const [i, half] of halves.entries()) {
    const halfFailure = failures[i];
    results.push(...(halfFailure ? await afterFailure(half, halfFailure, until) : half.map(() => null)));
  }
  return results;
}

/** Scans that may wait for this instance's next commit; more are refused at once (ScanWriteError, "no"). */
export const SCAN_QUEUE_MAX = 2_000;
/**
 * A scan still waiting for its commit this long is refused unsent: the redirect answered it long before
 * (SCAN_WRITE_WAIT_MS), and a scan sent later than this could land after its cap lease's grace.
 */
export const SCAN_QUEUE_WAIT_MS = 10_000;

/**
 * Whether a person's first-scan event id (`u~`) exists already, read while the scan waits for a commit in
 * flight: a visitor first counted today on another instance is then answered "taken" without failing the
 * whole group's commit. Each read goes at once, not group-read behind another read: one in flight at a
 * time would finish too late for the commit it waits for. Undefined when the read failed.
 */
async function guardTaken(ref: DocumentReference): Promise<boolean | undefined> {
  try {
    return (await ref.get()).exists;
  } catch {
    return undefined;
  } finally {
    countOps({ reads: 1 });
  }
}

/**
 * Group commit: scans arriving while a commit is in flight on this instance go together in the next one
 * (their events, and one merged change per rollup), so a busy instance writes about one document per
 * scan. An idle instance commits at once. A person's first scan that waits for the next commit has its
 * event id read meanwhile (guardTaken): one found taken is answered ALREADY_EXISTS without being sent. A
 * batch refused (an event id taken anyway, or one workspace's document refusing the write) goes again
 * without the refused scans (afterFailure), so each scan learns its own answer and one workspace's refusal
 * never loses another's scans. Every commit, re-commits included, writes each rollup in a shard free for a
 * second (whenShardsFree). The queue is bounded (SCAN_QUEUE_MAX, SCAN_QUEUE_WAIT_MS) and so is each
 * commit (core/firebase.ts COMMIT_RETRY_BUDGET_MS): one stuck commit never holds the instance for long.
 */
const scanCommits = new Coalescer<PendingScan, Error | null>(
  async (scans) => {
    // A commit does not wait for a guard read sent during the commit before it: that scan waits for the next
    // commit instead. A read out for a whole commit already is waited for, at most GUARD_WAIT_MS (then the
    // scan goes as it is, and a conflict it meets is dropped by afterFailure).
    const held = scans.map((s) => !!s.guard && !s.guard.done && !s.guard.heldOnce && (s.guard.heldOnce = true));
    const late = scans.filter((s, i) => !held[i] && s.guard && !s.guard.done).map((s) => s.guard!.read);
    if (late.length) await withTimeout(Promise.all(late), GUARD_WAIT_MS, "guard reads").catch(() => undefined);
    const taken = scans.map((s) => s.guard?.taken === true);
    const send = scans.filter((_, i) => !taken[i] && !held[i]);
    const sent = send.length ? await commitAndSettle(send) : [];
    return scans.map((scan, i) => (held[i] ? HELD : taken[i] ? takenError(scan) : sent.shift()!));
  },
  200,
  { maxQueued: SCAN_QUEUE_MAX, maxWaitMs: SCAN_QUEUE_WAIT_MS, refuse: (why) => new ScanWriteError(`scan not written: ${why === "queue-full" ? `${SCAN_QUEUE_MAX} scans already wait for this instance's commit` : `waited over ${SCAN_QUEUE_WAIT_MS} ms for its commit`}`, RESOURCE_EXHAUSTED, "no") },
);

async function commitAndSettle(scans: PendingScan[]): Promise<Array<Error | null>> {
  const until = Date.now() + COMMIT_RETRY_BUDGET_MS;
  const failure = await commitScans(scans);
  return failure ? afterFailure(scans, failure, until) : scans.map(() => null);
}

/** The longest a commit waits for the guard reads of scans held back once already (a read that slow is in trouble). */
const GUARD_WAIT_MS = 250;

/** A scan held back for the next commit while its guard read is out (never a caller's answer). */
const HELD = new Error("held for the next commit");

function takenError(scan: PendingScan): Error {
  const id = scan.cls.kind === "human" ? scan.cls.eventId : "";
  return new ScanWriteError(`event ${id} exists already (read before the commit)`, ALREADY_EXISTS, "no");
}

/**
 * Records one scan: its event (people only) and its rollup changes, atomically. Rejects with a
 * ScanWriteError: ALREADY_EXISTS (see isAlreadyExists) when a person's event id is taken, nothing written
 * then; `written: "unknown"` when the write may have landed.
 */
export async function writeScan(facts: ScanFacts, cls: ScanClass, options: { readGuardFirst?: boolean } = {}): Promise<void> {
  const scan: PendingScan = { facts, cls };
  // `readGuardFirst`: the caller cannot tell whether the person's first-scan event exists (scans/record.ts:
  // a visitor this instance has not seen today). Only a scan that will wait anyway is read first: an idle
  // instance's scan goes straight to its commit (a conflict then costs its own re-commit, nobody else's).
  if (options.readGuardFirst && cls.kind === "human" && cls.unique && scanCommits.busy) {
    const read = guardTaken(scanEvents(facts.merchantId).doc(cls.eventId)).then((taken) => Object.assign(guard, { done: true, taken }));
    const guard: NonNullable<PendingScan["guard"]> = (scan.guard = { read, done: false });
  }
  const since = Date.now(); // a held scan's wait counts from here (SCAN_QUEUE_WAIT_MS)
  let error = await scanCommits.submit(scan, since);
  while (error === HELD) error = await scanCommits.submit(scan, since);
  if (error) throw error;
}

/**
 * Creates a guard document. Store tests replace `create` to fail the way the transport reports a failure
 * (test/service/scan-truth.test.ts); nothing else does.
 */
export const scanSlots = { create: (ref: DocumentReference, data: DocumentData): Promise<unknown> => ref.create(data) };

/**
 * Takes a guard document among a workspace's scan events (scans/record.ts, newcomers per address): true
 * when this call created it, false when it was already taken. It holds only its expiry (TTL).
 */
export async function claimSlot(merchantId: string, slotId: string, expiresAt: Date): Promise<boolean> {
  try {
    await scanSlots.create(scanEvents(merchantId).doc(slotId), { expiresAt: Timestamp.fromDate(expiresAt) });
    return true;
  } catch (error) {
    if (isAlreadyExists(error)) return false;
    throw error;
  } finally {
    countOps({ writes: 1 });
  }
}

/** The service's app reports a user's scan of a code at most once per this interval. */
export const APP_SCAN_REPEAT_MS = 10 * 60 * 1000;

/**
 * Counts an app scan unless the same user's last counted scan of the same code is less than
 * APP_SCAN_REPEAT_MS old. The mark (appScanMarks/{markId}: countedAt, expiresAt TTL), the unique check and
 * the scan are one transaction, so concurrent reports count once.
 */
export async function countAppScan(markId: string, facts: ScanFacts, uniqueEventId: string, repeatEventId: string): Promise<{ counted: true; unique: boolean } | { counted: false }> {
  const markRef = db().collection(COLLECTIONS.appScanMarks).doc(markId);
  const uniqueRef = scanEvents(facts.merchantId).doc(uniqueEventId);
  return db().runTransaction(
    async (tx: Transaction) => {
      const [mark, first] = await Promise.all([tx.get(markRef), tx.get(uniqueRef)]);
      const last = mark.exists ? (mark.get("countedAt") as Timestamp).toMillis() : -Infinity;
      if (last > facts.at.getTime() - APP_SCAN_REPEAT_MS) return { counted: false as const };
      tx.set(markRef, { countedAt: Timestamp.fromDate(facts.at), expiresAt: Timestamp.fromMillis(facts.at.getTime() + APP_SCAN_REPEAT_MS) });
      const unique = !first.exists;
      const scans = [{ facts, cls: { kind: "human", unique, eventId: unique ? uniqueEventId : repeatEventId } as const }];
      const changes = mergedChanges(scans);
      const writes = await whenShardsFree([...changes.values()].map((c) => c.target), (now) => addScanWrites(tx as unknown as Writer, scans, changes, now));
      countOps({ reads: 2, writes: writes + 1 });
      return { counted: true as const, unique };
    },
    { maxAttempts: 30 },
  );
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
  /** The campaign rule that answered it (null: the code's destination) and the A/B variant; absent when no rule chose. */
  rule?: number | null;
  variant?: number;
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
    ...(typeof data.rule === "number" || data.rule === null ? { rule: data.rule as number | null } : {}),
    ...(typeof data.variant === "number" ? { variant: data.variant as number } : {}),
  };
}

/** The newest scan events of one code since `since`, at most `limit`. */
export async function recentScans(merchantId: string, codeId: string, since: Date, limit: number): Promise<ScanEvent[]> {
  if (limit <= 0) return [];
  const snap = await scanEvents(merchantId)
    .where("codeId", "==", codeId)
    .where("lane", "in", ALL_LANES) // Firestore merges the lanes' ranges, newest first
    .where("at", ">=", Timestamp.fromDate(since))
    .orderBy("at", "desc")
    .limit(limit)
    .get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => eventFrom(d.data()));
}
