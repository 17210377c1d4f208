// Records one scan: classifies it (person, repeat, or a machine with its reason), places it, and writes it
// in one batch (store/scans.ts). Decisions that must hold across instances are made by Firestore itself:
// a scan's event id is a keyed hash of the visitor, so `create` tells whether this visitor already scanned
// this code today (unique) or used up this minute's allowance (repeat). The instance only remembers what
// it learnt, to skip attempts it knows would fail.
//
// One client (an IPv4 address, or an IPv6 /64) cannot mint people by varying its User-Agent: a User-Agent
// that does not read as a real browser (scans/device.ts) stands for no one in particular, so all such
// scans from one client are one visitor; and real-looking ones from one client become new people for a
// code at most NEWCOMER_SLOTS times per NEWCOMER_WINDOW_MS, past the few each instance lets through
// unchecked (docs/decisions.md, "Who is a person").
//
// Privacy: the visitor is HMAC(daily secret, code, client, User-Agent when it reads as a real browser),
// truncated to 96 bits. The address
// and User-Agent are never stored; the secret of a date is destroyed 48 hours after the date begins (UTC),
// after which no hash of that day can be recomputed or linked to another day's.
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";
import { withTimeout } from "../core/firebase";
import { LruMap } from "../core/lru";
import { logScanNotRecorded, logScanNotStreamed } from "../core/log";
import { publishScanEvent } from "../store/scanStream";
import { SCAN_EVENT_VERSION, type ScanEvent } from "../store/scanEvents";
import { allowanceTaken, claimSlot, guardExists, isAlreadyExists, scanNotWritten, writeScan, type ScanClass, type ScanFacts, type ScanRule } from "../store/scans";
import type { DocumentReference } from "firebase-admin/firestore";
import { clientHash, visitorHash, visitorKey } from "./visitors";
import { botReason } from "./classify";
import { agentOf } from "./device";
import { localMoment } from "./localTime";
import { newScanId } from "./arrival";
import { CAPPED_NEWCOMERS_PER_DAY, cappedNewcomerSlotExpiry, cappedNewcomerWindow, minuteEventId, NEWCOMER_PROBES, newcomerSlotExpiry, newcomerSlotId, newcomerWindow, noteUnchecked, REPEATS_PER_MINUTE, slotsToTry, uncheckedLeft, uniqueEventId } from "./guards";

export { REPEATS_PER_MINUTE, uniqueEventId } from "./guards";


export interface CodeIdentity {
  merchantId: string;
  codeId: string;
  campaign: string | null;
  timeZone: string;
}

interface ScanRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The client's address (core/clientAddress.ts); used for the visitor hash and the place, then dropped. */
  address: string;
  place: ScanFacts["place"];
  at: Date;
  source: ScanFacts["source"];
  /** A GS1 resolution's link type (gs1/scans.ts). */
  linkType?: string;
  /** Set when the answer itself was for machines (a GS1 linkset): the scan is a machine's with this reason, whoever sent it. */
  machineReason?: string;
  /** Whether the link was read for this scan or answered from last-known-good (redirect/app.ts). */
  servedFrom: ScanEvent["served_from"];
  /** A closed or capped campaign's terms (campaigns/, through the redirect); see countGated. */
  gate?: ScanGate;
  /**
   * A code with campaign rules: which rule answers this scan (campaigns/answer.ts), asked once, just before
   * the scan is written, only when the rules will answer it (not for a closed campaign's answer), with the
   * code's people's scans before this one as far as the gate knows them. Counted in the rollups (`ru`) and
   * the stream, so figures per rule are the answers given.
   */
  chooseRule?: (scanCount: number) => Promise<ScanRule>;
  /** The campaign source and medium the code appends (its UTM template): counted per pair in `ut`. */
  utm?: { source: string; medium: string };
  /** The scan's id when the caller needs it before the answer (its click id names it: attribution/onRedirect.ts); a fresh one otherwise. */
  scanId?: string;
}

export { visitorHash, visitorKey } from "./visitors";

// ---- what this instance learnt about visitors (bounded, forgets after a day) ----

interface VisitorState {
  /** The local day whose unique (first) event exists, or is being written by `first`. */
  firstDay?: string;
  /**
   * The write of that first event: true once it is known to exist (written here, or found taken), false
   * when it failed (firstDay is then cleared). A gated code's later scan waits for it (countScan).
   */
  first?: Promise<boolean>;
  /** The local day this visitor was let in as a newcomer: a first scan that then failed (cap-busy) takes no second slot here. */
  newcomerDay?: string;
  /** The minute whose slots below `nextSlot` are known taken. */
  minute: number;
  nextSlot: number;
}

const VISITORS_MAX = 50_000;
const visitors = new LruMap<string, VisitorState>(VISITORS_MAX);

function stateOf(key: string): VisitorState {
  let state = visitors.get(key);
  if (!state) {
    state = { minute: -1, nextSlot: 0 };
    visitors.set(key, state);
  }
  return state;
}

// ---- newcomers per address: how many new people one address may bring to a code (scans/guards.ts) ----

/**
 * Whether one more new person from this address may count for this code now. Past the unchecked few, each
 * takes a slot document (`create`, so two instances never take the same one), tried at random among those
 * this instance does not know taken; NEWCOMER_PROBES taken ones in a row, or all known taken, and the scan
 * is recorded as a repeat, not lost (an address near its 150 may so stop a few newcomers short).
 */
async function newcomerAdmitted(facts: ScanFacts, addressHash: string, capped: boolean, visitor: string): Promise<boolean> {
  if (capped) return cappedNewcomerAdmitted(facts, addressHash, visitor);
  const window = newcomerWindow(facts.at);
  if (uncheckedLeft(facts.codeId, addressHash, window) > 0) {
    noteUnchecked(facts.codeId, addressHash, window);
    return true;
  }
  for (let probe = 0; probe < NEWCOMER_PROBES; probe++) {
    const [slot] = slotsToTry(facts.codeId, addressHash, window, 1);
    if (slot === undefined) return false;
    if (await claimSlot(facts.merchantId, newcomerSlotId(addressHash, window, facts.codeId, slot), newcomerSlotExpiry(window))) return true;
  }
  return false;
}

/**
 * The same for a code with a cap or scan-count thresholds, where a newcomer's first scan spends an
 * allowance: CAPPED_NEWCOMERS_PER_DAY a local day per client, every one taking its slot (none unchecked).
 * A person this instance has not seen whose first scan of the day exists (counted on another instance) is
 * no newcomer: one read keeps them from taking a second of their address's few slots.
 */
async function cappedNewcomerAdmitted(facts: ScanFacts, addressHash: string, visitor: string): Promise<boolean> {
  if (await guardExists(facts.merchantId, uniqueEventId(facts.day, facts.codeId, visitor))) return true;
  const window = cappedNewcomerWindow(facts.day);
  for (let probe = 0; probe < CAPPED_NEWCOMERS_PER_DAY; probe++) {
    const [slot] = slotsToTry(facts.codeId, addressHash, window, 1, CAPPED_NEWCOMERS_PER_DAY);
    if (slot === undefined) return false;
    if (await claimSlot(facts.merchantId, newcomerSlotId(addressHash, window, facts.codeId, slot), cappedNewcomerSlotExpiry(facts.day))) return true;
  }
  return false;
}

/**
 * `scanCount`: for a code with scanCount conditions, the representative count of people's scans before this
 * one (campaigns/caps.ts scanCountGate): what the rules are evaluated with.
 */
export type ScanOutcome = ({ counted: true; unique: boolean } | { counted: false; reason: string }) & { scanCount?: number };

/** The X-Scan-Counted header of an answer to a scan: true, false with the reason, or unknown (not recorded in time). */
export function scanCountedHeader(outcome: ScanOutcome | undefined): string {
  return outcome === undefined ? "unknown" : outcome.counted ? "true" : `false; reason=${outcome.reason}`;
}

/**
 * How long a scan waits for Pub/Sub to store its event; past it the redirect answers and the publish goes
 * on. The same bound as the Firestore write's (SCAN_WRITE_WAIT_MS): a new instance's first publish loads
 * and authorises the Pub/Sub client, which can take over a second, and an instance stopped right after
 * answering must not lose the event (scan-durability.test.ts). A warm publish takes milliseconds.
 */
export const STREAM_WAIT_MS = 5_000;

/** The stream's message for a scan (store/scanEvents.ts). */
export function scanEventOf(facts: ScanFacts, scanId: string, who: { botReason: string | null; visitor: string | null }, servedFrom: ScanEvent["served_from"], answer: ScanAnswer = {}): ScanEvent {
  return {
    schema_version: SCAN_EVENT_VERSION,
    scan_id: scanId,
    at: facts.at.getTime() * 1000,
    merchant_id: facts.merchantId,
    code_id: facts.codeId,
    unique_qr_code_id: facts.uniqueQRCodeID,
    campaign: facts.campaign,
    kind: who.botReason ? "bot" : "person",
    bot_reason: who.botReason,
    visitor: who.visitor,
    day: facts.day,
    hour: facts.hour,
    time_zone: facts.timeZone,
    country: facts.place.country,
    region: facts.place.state,
    city: facts.place.city,
    device: facts.device.device,
    os: facts.device.os,
    browser: facts.device.browser,
    source: facts.source,
    served_from: servedFrom,
    rule_index: answer.rule?.index ?? null,
    variant: answer.rule?.variant ?? null,
    rule_answered: answer.rule ? 1 : null,
    ended_reason: answer.endedReason ?? null,
    utm_source: facts.utm?.source ?? null,
    utm_medium: facts.utm?.medium ?? null,
    // Published beside its count (a campaign's scan): the stream's queries decide it from the fields above.
    counted: null,
    unique_scan: null,
    not_counted_reason: null,
    host: facts.host ?? null,
  };
}

/** What a campaign's answer adds to a scan's stream event: the rule that answered it, or why it was closed. */
interface ScanAnswer {
  rule?: ScanRule;
  endedReason?: string;
}

/**
 * Publishes a scan's event, waiting at most STREAM_WAIT_MS: never rejects, so the stream failing never
 * fails a scan (the failure is logged, and the library keeps retrying a publish that is late).
 */
export async function streamScan(event: ScanEvent): Promise<void> {
  const facts = { scanId: event.scan_id, merchantId: event.merchant_id };
  const published = publishScanEvent(event).then(
    () => true,
    (error: unknown) => (logScanNotStreamed({ ...facts, pending: false }, error), true),
  );
  const inTime = await withTimeout(published, STREAM_WAIT_MS, "scan stream").catch(() => false);
  if (!inTime) logScanNotStreamed({ ...facts, pending: true });
}

/**
 * A scan under way: its Firestore side (the outcome) and its publish (never rejects; bounded by
 * STREAM_WAIT_MS once the scan's answer is known). `giveUp` lets the publish go without the answer (a
 * campaign's rule) when the write is no longer waited for.
 */
function startScan(code: CodeIdentity, uniqueQRCodeID: string, request: ScanRequest): { counting: Promise<ScanOutcome>; streamed: Promise<void>; giveUp: () => void } {
  const { day, hour } = localMoment(request.at, code.timeZone);
  const ua = request.headers["user-agent"];
  const { device, recognised } = agentOf(typeof ua === "string" ? ua : undefined);
  const facts: ScanFacts = {
    ...code,
    uniqueQRCodeID,
    at: request.at,
    day,
    hour,
    place: request.place,
    device,
    source: request.source,
    ...(request.linkType ? { linkType: request.linkType } : {}),
    retentionDays: getConfig().scanRetentionDays,
    eventRetentionDays: getConfig().scanEventRetentionDays,
  };
  const reason = request.machineReason ?? botReason(request.method, request.headers);
  const visitorOf = reason ? Promise.resolve(null) : visitorHash(day, uniqueQRCodeID, visitorKey(request.address, typeof ua === "string" ? ua : undefined, recognised));
  // Only real-looking browsers can be several people behind one address; the rest are one visitor already.
  const newcomer: Newcomer | null = !reason && recognised ? async (capped, visitor) => newcomerAdmitted(facts, await clientHash(day, uniqueQRCodeID, request.address), capped, visitor) : null;
  const scanId = request.scanId ?? newScanId();
  // A campaign's scan is published once its answer is known (just before its write); any other at once.
  let answered!: (answer: ScanAnswer) => void;
  const answer = new Promise<ScanAnswer>((resolve) => (answered = resolve));
  if (!request.chooseRule && !request.gate) answered({});
  const recorded = request.utm ? { ...facts, utm: request.utm } : facts;
  // A failed secret load fails the count (logged by the caller); the event then goes out without a visitor.
  const streamed = Promise.all([answer, visitorOf.catch(() => null)]).then(([a, visitor]) => streamScan(scanEventOf(recorded, scanId, { botReason: reason, visitor }, request.servedFrom, a)));
  const writer = new ScanWriter(recorded, request.chooseRule, answered);
  const counting = visitorOf
    .then((visitor) => (request.gate ? countGated(writer, reason, visitor, newcomer, request.gate) : countScan(writer, reason, visitor, newcomer && visitor !== null ? () => newcomer(false, visitor) : null)))
    .finally(() => answered({}));
  return { counting, streamed, giveUp: () => answered({}) };
}

/**
 * A person's first scan here is of a visitor this instance has not seen today (countScan): another instance
 * may have counted them already, so the store reads the event id first when the scan waits for a commit.
 */
const READ_GUARD = { readGuardFirst: true };

/**
 * Writes one scan's batch (store/scans.ts), the last step of counting it. For a code with rules it first
 * asks which rule answers the scan (once, whatever the retries) and tells the stream, so the rollups and
 * the event name the rule the answer follows; a closed campaign's scan names its reason instead.
 */
class ScanWriter {
  private rule: Promise<ScanRule> | undefined;
  constructor(
    readonly facts: ScanFacts,
    private readonly chooseRule: ((scanCount: number) => Promise<ScanRule>) | undefined,
    private readonly answered: (answer: ScanAnswer) => void,
  ) {}

  /** The code's people's scans as this instance knows them, for scans that take no allowance (countGated). */
  knownScanCount: (() => number) | undefined;

  /** `scanCount`: the code's people's scans before this one as the gate found them (else as known, else 0). */
  async write(cls: ScanClass, options: { scanCount?: number; unanswered?: boolean } = {}): Promise<void> {
    if (cls.kind === "ended" || options.unanswered || !this.chooseRule) {
      this.answered(cls.kind === "ended" ? { endedReason: cls.reason } : {});
      return writeScan(this.facts, cls, READ_GUARD);
    }
    this.rule ??= this.chooseRule(options.scanCount ?? this.knownScanCount?.() ?? 0);
    const rule = await this.rule;
    this.answered({ rule });
    return writeScan({ ...this.facts, rule }, cls, READ_GUARD);
  }
}


/** Whether one more new person (this visitor) from this scan's client may count for its code (`capped`: under the capped codes' daily budget). */
type Newcomer = (capped: boolean, visitor: string) => Promise<boolean>;

/** The Firestore side of a scan: a person's event (the unique and repeat guard) and the rollup change. */
async function countScan(
  writer: ScanWriter,
  reason: string | null,
  visitor: string | null,
  newcomerAdmits: (() => Promise<boolean>) | null,
  writePerson = (unique: boolean, eventId: string) => writer.write({ kind: "human", unique, eventId }),
  botOptions: Parameters<ScanWriter["write"]>[1] = {},
  gated = false,
): Promise<ScanOutcome> {
  const { facts } = writer;
  if (reason || visitor === null) {
    await writer.write({ kind: "bot", reason: reason ?? "unknown" }, botOptions);
    return { counted: false, reason: reason ?? "unknown" };
  }
  const { day, codeId } = facts;
  const state = stateOf(`${codeId}~${visitor}`);
  if (gated) {
    // A gated code lets a person's later scan of the day in free only once their first is known written: a
    // reload after a first whose answer was late (the one-moment page) waits for that first, and tries as a
    // first itself when it failed (docs/campaign-rules.md, "A fair count of people").
    while (state.firstDay === day && state.first && !(await state.first));
  }
  if (state.firstDay !== day) {
    state.firstDay = day; // claimed before the await: this visitor's concurrent scans go to the minute slots
    let settle!: (known: boolean) => void;
    const first = (state.first = new Promise<boolean>((resolve) => (settle = resolve)));
    const failed = () => {
      if (state.first === first) {
        state.firstDay = undefined;
        state.first = undefined;
      }
      settle(false);
    };
    try {
      if (newcomerAdmits && state.newcomerDay !== day) {
        if (!(await newcomerAdmits())) {
          failed(); // counted later, in a window with room
          await writer.write({ kind: "repeat" });
          return { counted: false, reason: "repeat" };
        }
        state.newcomerDay = day;
      }
      await writePerson(true, uniqueEventId(day, codeId, visitor));
      settle(true);
      return { counted: true, unique: true };
    } catch (error) {
      if (!isAlreadyExists(error)) {
        failed();
        throw error;
      }
      settle(true); // the first event exists: this is the person's later scan
    }
  }
  const minute = Math.floor(facts.at.getTime() / 60_000);
  if (state.minute !== minute) {
    state.minute = minute;
    state.nextSlot = 0;
  }
  while (state.nextSlot < REPEATS_PER_MINUTE) {
    const slot = state.nextSlot++;
    try {
      await writePerson(false, minuteEventId(minute, codeId, visitor, slot));
      return { counted: true, unique: false };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  await writer.write({ kind: "repeat" });
  return { counted: false, reason: "repeat" };
}

// ---- campaign gates (docs/campaign-rules.md, "Schedules, caps and the ended answer") ----

/** One allowance of a capped code: a person's scan spends it by creating `spent` in its own batch. */
export interface ScanAllowance {
  spent: DocumentReference;
  /** Whether the scan's batch may have created `spent` (false: it surely did not; the allowance is reused). */
  release(used: boolean): void;
}

/**
 * A code with scanCount conditions (campaigns/caps.ts scanCountGate): `take` gives a person's scan one
 * allowance from every threshold counter not known exhausted and the representative count (or
 * "cap-busy"); `known` is the representative from what this instance knows, for bots and repeats (which
 * take nothing).
 */
export interface ScanThresholds {
  take(): Promise<{ allowances: ScanAllowance[]; scanCount: number } | "cap-busy">;
  known(): number;
}

/**
 * What a code's campaign asks of a person's scan: closed (not started, ended), or an allowance per person
 * (else why none: "capped", or "cap-busy" when none came in time; campaigns/caps.ts), and allowances from
 * its scan-count thresholds.
 */
export interface ScanGate {
  closed?: "not-started" | "ended";
  allowance?: () => Promise<ScanAllowance | "capped" | "cap-busy">;
  /** Whether this instance knows the cap reached (a machine's scan, or a person's later scan of the day, then gets the closed answer). */
  reached?: () => boolean;
  /** False for a scan answered by the password page: it spends nothing, yet its newcomers are held to the capped codes' budget. */
  spends?: boolean;
  thresholds?: ScanThresholds;
}

class CapReached extends Error {
  constructor(readonly reason: "capped" | "cap-busy") {
    super(reason);
  }
}

/** A person's allowances: the cap's, then one from each threshold counter not known exhausted, with the representative count. */
async function takeAllowances(gate: ScanGate): Promise<{ allowances: ScanAllowance[]; scanCount?: number }> {
  const allowances: ScanAllowance[] = [];
  try {
    if (gate.allowance) {
      const took = await gate.allowance();
      if (typeof took === "string") throw new CapReached(took);
      allowances.push(took);
    }
    if (!gate.thresholds) return { allowances };
    const got = await gate.thresholds.take();
    if (got === "cap-busy") throw new CapReached("cap-busy");
    allowances.push(...got.allowances);
    return { allowances, scanCount: got.scanCount };
  } catch (error) {
    for (const allowance of allowances) allowance.release(false);
    throw error;
  }
}

/**
 * countScan under a campaign's terms. Bots and repeats are counted as always and consume nothing (their
 * representative scan count is what the instance knows). A person's scan of a closed code, or of a capped
 * code with no allowance left, is counted as "ended" with the reason (never as a person's scan, never
 * lost); a person's scan of a capped code, or of a code with scan-count thresholds, is written with its
 * allowances' `spent` documents, atomically.
 */
async function countGated(writer: ScanWriter, reason: string | null, visitor: string | null, newcomer: Newcomer | null, gate: ScanGate): Promise<ScanOutcome> {
  const known = (outcome: ScanOutcome, scanCount?: number): ScanOutcome => (gate.thresholds ? { ...outcome, scanCount: scanCount ?? gate.thresholds.known() } : outcome);
  // Scans that take no allowance (machines, repeats) are answered by the count as this instance knows it.
  writer.knownScanCount = gate.thresholds ? () => gate.thresholds!.known() : undefined;
  // A machine's scan of a code this instance knows capped gets the closed answer: no rule answers it.
  if (reason || visitor === null) return known(await countScan(writer, reason, visitor, null, undefined, { unanswered: gate.reached?.() === true }));
  if (gate.closed) {
    await writer.write({ kind: "ended", reason: gate.closed });
    return { counted: false, reason: gate.closed };
  }
  if (!gate.allowance && !gate.thresholds) return countScan(writer, reason, visitor, newcomer && (() => newcomer(gate.spends === false, visitor)));
  let allowances: ScanAllowance[] | null = null;
  /** The representative count of people's scans before this person's scan (scanCount conditions), known before its write. */
  let scanCount: number | undefined;
  let used = false;
  try {
    const outcome = await countScan(writer, reason, visitor, newcomer && (() => newcomer(true, visitor)), async (unique, eventId) => {
      // Only a person's first counted scan of the day spends (docs/campaign-rules.md, "A fair count of people"):
      // a later one (its first exists: the person was let in today) counts as a person's scan and takes nothing.
      if (!unique) return writer.write({ kind: "human", unique, eventId });
      if (!allowances) ({ allowances, scanCount } = await takeAllowances(gate));
      used = true;
      try {
        await writer.write({ kind: "human", unique, eventId, spent: allowances.map((a) => a.spent) }, { scanCount });
      } catch (error) {
        // Handed back only when surely not written (read back, or never sent): after a failure whose write may
        // have landed the allowance stays spent, and the lease's settle counts what exists (store/scans.ts).
        if (scanNotWritten(error) && !allowanceTaken(error)) used = false;
        throw error;
      }
    }, undefined, true);
    return known(outcome, scanCount);
  } catch (error) {
    if (!(error instanceof CapReached)) throw error;
    await writer.write({ kind: "ended", reason: error.reason });
    return { counted: false, reason: error.reason };
  } finally {
    for (const allowance of (allowances as ScanAllowance[] | null) ?? []) allowance.release(used);
  }
}

/**
 * How long a redirect waits for its scan to be recorded. Past it the redirect answers with the count
 * unknown (the write may still land), so a stalled write never holds a scanner for long.
 */
export const SCAN_WRITE_WAIT_MS = 5_000;

/**
 * Classifies and records one scan of a known code (a capped or threshold code's, through the redirect; a
 * GS1 resolution's): resolves once it is durable in Firestore and its event is in the stream, both at once.
 * A failure or a write past SCAN_WRITE_WAIT_MS is logged and resolves undefined (the count unknown), never a
 * failed redirect. Only the write is held to that bound; the publish has its own (STREAM_WAIT_MS, from when the
 * scan's answer is known), so a slow publish never makes a recorded scan's count unknown.
 */
export async function recordScanSafely(code: CodeIdentity, uniqueQRCodeID: string, request: ScanRequest): Promise<ScanOutcome | undefined> {
  const notRecorded = (error: unknown) => (logScanNotRecorded({ merchantId: code.merchantId, codeId: code.codeId }, error), undefined);
  let scan: ReturnType<typeof startScan>;
  try {
    scan = startScan(code, uniqueQRCodeID, request); // throws when the scan cannot be described (a stored time zone that names no zone)
  } catch (error) {
    return notRecorded(error);
  }
  // Past the write's bound the event goes out as it stands (a campaign scan's rule may not be chosen yet).
  const counted = withTimeout(scan.counting, SCAN_WRITE_WAIT_MS, "scan write").catch((error: unknown) => (scan.giveUp(), notRecorded(error)));
  const [recorded] = await Promise.all([counted, scan.streamed]);
  return recorded;
}
