// The scan consumer: counts the arrivals the redirect published (scans/arrival.ts) with the rules the
// redirect used to apply itself (people, uniques, repeats, newcomers per address, machines), off every
// scan's answer. Pub/Sub pushes each arrival to the consumer's function (redirect/scanConsumer.ts); the
// arrivals that reach one instance while a batch is being counted go together in the next batch (group
// commit), counted in ONE transaction (store/scanCounts.ts):
//  - a person's scan creates its guard: `u~{visitor}~{day}~{codeId}` for the visitor's first counted scan of
//    the code that local day, else one of REPEATS_PER_MINUTE slots `m~{visitor}~{minute}~{codeId}~{k}`, else
//    it is a repeat; each guard is the scan's event (the newest-scans list) and holds the scan's id;
//  - a new person from a client (address or /64) with a real browser takes one of the code's NEWCOMER_SLOTS
//    for that client and window, past the first NEWCOMERS_UNCHECKED an instance lets through unchecked;
//  - the batch's rollup changes go to this instance's own shards (one merged change per rollup, each shard
//    written at most once a second: store/rollups.ts), folded as before (scans/maintenance.ts).
// A batch reads each visitor-minute's slots lowest first, only as far as its scans need (decideBatch), and
// the links of its codes as they are (linksOf).
// Exact under redelivery for people and uniques: a redelivered scan finds its id in its guard and changes
// nothing. Machines' and repeats' scans have no guard: the instance remembers the scans it counted
// (`committed`), so one delivered to it again is not counted again; one delivered again to another instance
// after its transaction landed (a crash between commit and answer) counts twice (docs/scan-stream.md,
// "Reconciliation").
// After the transaction: each scan's resolved event, with its count decided, goes to the stream topic
// (BigQuery), and it is queued for the code's webhook subscribers with the person and unique flags decided
// (scanNotices). The answer (ack) follows; a failure is answered as one (a failure after the commit is tried
// again by the later steps alone), and Pub/Sub delivers the arrival again, up to
// CONSUMER_DELIVERY.maxAttempts times, then moves it to the dead-letter topic.
import type { DocumentReference } from "firebase-admin/firestore";
import { z } from "zod";
import { getConfig } from "../core/config";
import { Coalescer } from "../core/coalescer";
import { AppError } from "../core/errors";
import { withTimeout } from "../core/firebase";
import { LruMap } from "../core/lru";
import { logError, logWarn } from "../core/log";
import { readLinks, type Link } from "../store/codes";
import { countInTransaction, guardKey, writeConsumerHeartbeat, type CountTransaction, type Guard } from "../store/scanCounts";
import { decodeScanEvent, publishScanEvent } from "../store/scanStream";
import { deleteOutbox, readOutbox } from "../store/scanOutbox";
import { parseArrival, type ScanEvent } from "../store/scanEvents";
import { INSTANCE_ID } from "../store/rollups";
import { countOps } from "../store/opCounter";
import { readWorkspaceTimeZone } from "../store/workspaces";
import type { ScanClass, ScanFacts } from "../store/scans";
import { localMoment } from "./localTime";
import type { ScanOutcome } from "./record";
import { freeSlots, minuteEventId, NEWCOMER_PROBES, newcomerSlotExpiry, newcomerSlotId, newcomerWindow, noteUnchecked, REPEATS_PER_MINUTE, slotsToTry, uncheckedLeft, uniqueEventId } from "./guards";

export { REPEATS_PER_MINUTE, NEWCOMER_SLOTS, NEWCOMER_WINDOW_MS, NEWCOMERS_UNCHECKED } from "./guards";

/** An arrival as delivered: by Pub/Sub's push, or read from the outbox. */
export interface Delivery {
  data: Buffer;
  attributes: Record<string, string>;
  /** When Pub/Sub stored it (absent for the outbox's). */
  publishTime?: Date;
  /** The outbox document it came from: deleted in the transaction that counts it. */
  outbox?: DocumentReference;
}

/** An arrival that can never be counted (undecodable or invalid): answered so, never retried into a count. */
export class PoisonArrival extends Error {}

/**
 * What became of an arrival: counted (and queued for the code's subscribers), dropped, or left in the outbox
 * for a consumer instance (a drain that cannot queue notices: scanNotices).
 */
export type Consumed = { outcome: "dropped" } | { outcome: "left" } | { outcome: ScanOutcome };

/** What the code's webhook subscribers hear of a counted scan. */
export interface ScanNoticeFacts {
  link: Link;
  uniqueQRCodeID: string;
  at: Date;
  place: ScanFacts["place"];
  device: ScanFacts["device"];
  scanId: string;
}

/**
 * Queues a counted scan for its link's subscribers, skipping the webhooks in `queued` and adding each one it
 * queued (a retry after a partial failure queues only the rest). Set by the surface that loads the webhooks
 * (redirect/scanConsumer.ts): this domain cannot import them. Unset (the maintenance job's drain of the
 * outbox), arrivals of codes with subscribers are left in the outbox for a consumer instance.
 */
export type NoticeSink = (notice: ScanNoticeFacts, outcome: ScanOutcome, queued: Set<string>) => Promise<void>;
export const scanNotices: { queue?: NoticeSink } = {};

/** The stream publish after a count, replaced by tests that make it fail (test/service/scan-consumer-commits.test.ts); nothing else does. */
export const afterCount = { publish: (event: ScanEvent): Promise<unknown> => publishScanEvent(event) };

// ---- resolving: the code, its workspace's zone, the scan's local day and the visitor's hash of that day ----

/** A workspace's zone, for arrivals published without it: a change applies within the minute, as on the redirect. */
const ZONE_TTL_MS = 60_000;
/** Workspaces' zones one consumer instance remembers. */
const REMEMBERED_MAX = 10_000;
/**
 * The longest the consumer waits for a read of its own (links, zones): past it the batch fails and is tried
 * again (consumeHeld, then Pub/Sub's redelivery), where the SDK alone would keep retrying a read for minutes.
 */
export const CONSUMER_READ_MS = 5_000;

/**
 * Values read by key, each kept `ttlMs` (the least recently used forgotten first), shared by the batches that
 * want them meanwhile. Neither a failed read nor one that found nothing is kept.
 */
function remembered<V>(ttlMs: number, what: string, read: (keys: string[]) => Promise<Array<V | undefined>>) {
  const memory = new LruMap<string, { value: Promise<V | undefined>; at: number }>(REMEMBERED_MAX);
  return async (keys: string[], now: number): Promise<Map<string, V | undefined>> => {
    const wanted = [...new Set(keys)];
    const entries = new Map(wanted.map((k) => [k, memory.get(k)]));
    const missing = wanted.filter((k) => !entries.get(k) || now - entries.get(k)!.at >= ttlMs);
    if (missing.length) {
      const values = withTimeout(read(missing), CONSUMER_READ_MS, what);
      missing.forEach((k, i) => {
        const entry = { value: values.then((v) => v[i]), at: now };
        const forget = () => void (memory.get(k) === entry && memory.delete(k));
        entry.value.then((v) => v === undefined && forget(), forget);
        memory.set(k, entry);
        entries.set(k, entry);
      });
    }
    const values = await Promise.all(wanted.map((k) => entries.get(k)!.value));
    return new Map(wanted.map((k, i) => [k, values[i]]));
  };
}

/**
 * The links of a batch's codes, read for every batch, never remembered: what counting takes from a link
 * (its workspace and code, its campaign, its webhook subscriptions, a takedown, when its rules last changed)
 * is as it is when the scan is counted, so a subscription added, a campaign renamed or a takedown applies to
 * the very next scan counted. (Remembering them 10 s saved about $0.13 a million scans.)
 */
async function linksOf(ids: string[]): Promise<Map<string, Link | undefined>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  countOps({ reads: wanted.length });
  const links = await withTimeout(readLinks(wanted), CONSUMER_READ_MS, "the consumer's link read");
  return new Map(wanted.map((id, i) => [id, links[i]]));
}

const zonesOf = remembered<string>(ZONE_TTL_MS, "the consumer's zone read", (merchants) => {
  countOps({ reads: merchants.length });
  return Promise.all(merchants.map(readWorkspaceTimeZone));
});

/**
 * Whether the code had campaign rules at `atMs`: as it has them now, unless they were set or removed since
 * (`rulesChangedAt`: then the other way). Only the last change is kept: rules both set and removed between a
 * scan and its count (within the consumer's lag, seconds) judge that scan by the state before the last one.
 */
function rulesAt(link: Link, atMs: number): boolean {
  const now = Boolean(link.campaignRules);
  return link.rulesChangedAt && link.rulesChangedAt.getTime() > atMs ? !now : now;
}

interface Resolved {
  delivery: Delivery;
  event: ScanEvent;
  link: Link;
  facts: ScanFacts;
  visitor: string | null;
  client: string | null;
}

/** An arrival's event, or PoisonArrival (its push answered 422: the dead letters) when it is undecodable or invalid. */
export function decodeArrival(delivery: Delivery): ScanEvent {
  let raw: Record<string, unknown>;
  try {
    raw = decodeScanEvent(delivery.data);
  } catch (error) {
    throw new PoisonArrival(`undecodable arrival: ${String(error)}`);
  }
  // Checked whole, event and attributes, each id, day and zone in its exact shape (store/scanEvents.ts):
  // these become document ids and zone lookups, so anything else can never be counted.
  const parsed = parseArrival(raw, delivery.attributes);
  if ("error" in parsed) throw new PoisonArrival(`invalid arrival: ${(typeof parsed.error === "string" ? parsed.error : z.prettifyError(parsed.error)).slice(0, 500)}`);
  return parsed.event;
}

/** The visitor's and client's hashes for the scan's local day: published resolved, or picked from the day candidates (`vd`). */
function hashesFor(event: ScanEvent, attributes: Record<string, string>, day: string): { visitor: string | null; client: string | null } {
  if (event.visitor) return { visitor: event.visitor, client: attributes.cl || null };
  for (const entry of (attributes.vd ?? "").split(";")) {
    const [d, visitor, client] = entry.split(",");
    if (d === day) return { visitor: visitor || null, client: client || null };
  }
  return { visitor: null, client: null };
}

async function resolve(deliveries: Array<{ delivery: Delivery; event: ScanEvent }>, now: number): Promise<Array<Resolved | "dropped">> {
  const resolvedByRedirect = ({ delivery }: { delivery: Delivery }) => delivery.attributes.plain === "1" || delivery.attributes.ruled === "1";
  const links = await linksOf(deliveries.map((d) => d.event.unique_qr_code_id));
  const linkOf = (d: (typeof deliveries)[number]) => links.get(d.event.unique_qr_code_id);
  const zones = await zonesOf(deliveries.flatMap((d) => (!d.event.time_zone && linkOf(d) ? [linkOf(d)!.merchantId] : [])), now);
  return deliveries.map(({ delivery, event }) => {
    const link = linkOf({ delivery, event });
    // No such code (the redirect answered 404), or a code that had campaign rules when scanned, published
    // before its read (first seen there): its redirect published the rules' answer as an arrival of its own,
    // with the same scan id (`ruled`), or counted it itself where a cap or thresholds admit it (scans/record.ts).
    if (!link || (!resolvedByRedirect({ delivery }) && rulesAt(link, event.at / 1000))) return "dropped" as const;
    // A code taken down answers its scans with a warning page (410): such a scan is no one's visit, and its
    // subscribers hear nothing of it. Published before the redirect read the link, it is dropped here (a
    // takedown applies to the next scan counted, as any change of the link).
    if (link.takenDown) return "dropped" as const;
    const at = new Date(Math.floor(event.at / 1000));
    const timeZone = event.time_zone || zones.get(link.merchantId)!;
    const { day, hour } = event.day ? event : localMoment(at, timeZone);
    const { visitor, client } = event.kind === "person" ? hashesFor(event, delivery.attributes, day) : { visitor: null, client: null };
    const resolved: ScanEvent = { ...event, merchant_id: link.merchantId, code_id: link.codeId, campaign: link.campaign ?? null, time_zone: timeZone, day, hour, visitor };
    const facts: ScanFacts = {
      merchantId: link.merchantId,
      codeId: link.codeId,
      uniqueQRCodeID: event.unique_qr_code_id,
      campaign: link.campaign ?? null,
      at,
      day,
      hour,
      timeZone,
      place: { country: event.country, state: event.region, city: event.city },
      device: { device: event.device, os: event.os, browser: event.browser },
      source: event.source,
      ...(event.host ? { host: event.host } : {}),
      retentionDays: getConfig().scanRetentionDays,
      eventRetentionDays: getConfig().scanEventRetentionDays,
      // What the code's rules answered, as the redirect decided it (a ruled arrival): counted per rule and per UTM pair.
      ...(event.rule_answered === 1 ? { rule: { index: event.rule_index, ...(event.variant === null ? {} : { variant: event.variant }) } } : {}),
      ...(event.utm_source !== null && event.utm_medium !== null ? { utm: { source: event.utm_source, medium: event.utm_medium } } : {}),
    };
    return { delivery, event: resolved, link, facts, visitor, client };
  });
}

// ---- counting: one transaction per batch ----

/** A newcomer slot a batch drew (scans/guards.ts), and whether its scan took it. */
interface DrawnSlot {
  codeId: string;
  client: string;
  window: number;
  slot: number;
  id: string;
  used: boolean;
}

/** Decides each scan's class in order of arrival time, from the guards read in the transaction. */
async function decideBatch(tx: CountTransaction, scans: Resolved[], outcomes: ScanOutcome[], admittedUnchecked: Array<{ codeId: string; client: string; window: number }>, drawn: DrawnSlot[]) {
  const people = scans.map((s, i) => ({ s, i })).filter(({ s }) => s.visitor !== null);
  const firstIds = people.map(({ s }) => ({ merchantId: s.facts.merchantId, id: uniqueEventId(s.facts.day, s.facts.codeId, s.visitor!) }));
  const guards = await tx.read(firstIds);
  // Possible newcomers (their first-scan guard is free) from a real-looking browser: this instance's unchecked
  // few per client, code and window, then each a slot of the client's budget (scans/guards.ts), drawn at
  // random and read in rounds, one slot per newcomer still without one, NEWCOMER_PROBES rounds at most.
  const newcomerOf = new Map<Resolved, "unchecked" | DrawnSlot | null>();
  const uncheckedFor = new Map<string, number>();
  let wanting: Resolved[] = [];
  for (const [n, { s }] of people.entries()) {
    if (!s.client || guards.get(guardKey(s.facts.merchantId, firstIds[n].id)) !== null || newcomerOf.has(s)) continue;
    const window = newcomerWindow(s.facts.at);
    const key = `${s.facts.codeId}~${s.client}~${window}`;
    const left = uncheckedFor.get(key) ?? uncheckedLeft(s.facts.codeId, s.client, window);
    uncheckedFor.set(key, Math.max(0, left - 1));
    newcomerOf.set(s, left > 0 ? "unchecked" : null);
    if (left <= 0) wanting.push(s);
  }
  for (let round = 0; round < NEWCOMER_PROBES && wanting.length; round++) {
    const tries = wanting.flatMap((s) => {
      const window = newcomerWindow(s.facts.at);
      const [slot] = slotsToTry(s.facts.codeId, s.client!, window, 1);
      return slot === undefined ? [] : [{ s, drawn: { codeId: s.facts.codeId, client: s.client!, window, slot, id: newcomerSlotId(s.client!, window, s.facts.codeId, slot), used: false } }];
    });
    const found = await tx.read(tries.map((t) => ({ merchantId: t.s.facts.merchantId, id: t.drawn.id })));
    const seated = new Set<Resolved>();
    for (const t of tries) {
      if (found.get(guardKey(t.s.facts.merchantId, t.drawn.id)) !== null) continue;
      drawn.push(t.drawn);
      newcomerOf.set(t.s, t.drawn);
      seated.add(t.s);
    }
    wanting = tries.filter((t) => !seated.has(t.s)).map((t) => t.s);
  }
  // Scans whose first-scan guard is another scan's (or goes to an earlier scan of this batch) need their
  // visitor-minute's slots. Slots are taken lowest first and none is freed before it expires, so a scan's own
  // slot never lies past a free one: they are read one index at a time, and only for the visitor-minutes
  // whose slots read so far neither hold nor can seat this batch's scans of them. A returning visitor's
  // scan, most often the first of its minute, reads one slot.
  const firstTaken = new Set<string>();
  const minutes = new Map<string, { merchantId: string; codeId: string; visitor: string; minute: number; scans: Set<string>; seats: number }>();
  for (const [n, { s }] of people.entries()) {
    const key = guardKey(s.facts.merchantId, firstIds[n].id);
    const guard = guards.get(key);
    if ((guard && guard.sid !== s.event.scan_id) || firstTaken.has(key)) {
      const minute = Math.floor(s.facts.at.getTime() / 60_000);
      const group = `${key}~${minute}`;
      if (!minutes.has(group)) minutes.set(group, { merchantId: s.facts.merchantId, codeId: s.facts.codeId, visitor: s.visitor!, minute, scans: new Set(), seats: 0 });
      minutes.get(group)!.scans.add(s.event.scan_id);
    }
    firstTaken.add(key);
  }
  for (let k = 0; k < REPEATS_PER_MINUTE; k++) {
    const open = [...minutes.values()].filter((m) => m.seats < m.scans.size);
    if (!open.length) break;
    const ids = open.map((m) => ({ merchantId: m.merchantId, id: minuteEventId(m.minute, m.codeId, m.visitor, k) }));
    const slots = await tx.read(ids);
    open.forEach((m, n) => {
      const slot = slots.get(guardKey(ids[n].merchantId, ids[n].id));
      guards.set(guardKey(ids[n].merchantId, ids[n].id), slot ?? null);
      // A free slot seats one scan; one holding a scan of this batch seats that one (counted already).
      if (!slot || m.scans.has(slot.sid ?? "")) m.seats++;
    });
  }
  const taken = new Set<string>();
  const counted: Array<{ facts: ScanFacts; cls: ScanClass }> = [];
  const mine = (key: string, s: Resolved) => (guards.get(key) as Guard | null | undefined)?.sid === s.event.scan_id;
  // Read and found empty (a slot past the ones read is not free: it is not needed).
  const free = (key: string) => guards.get(key) === null && !taken.has(key);
  const decided = new Map<string, number>();
  for (const [i, s] of scans.entries()) {
    // The same arrival twice in one batch (published twice with its id): decided once, counted once.
    const twin = decided.get(s.event.scan_id);
    if (twin !== undefined) {
      outcomes[i] = outcomes[twin];
      continue;
    }
    decided.set(s.event.scan_id, i);
    const { facts } = s;
    if (s.visitor === null) {
      const reason = s.event.bot_reason ?? "unknown";
      counted.push({ facts, cls: { kind: "bot", reason } });
      outcomes[i] = { counted: false, reason };
      continue;
    }
    if (s.event.ended_reason) {
      // A person's scan of a code its schedule had closed: counted apart with the reason, never as a person's.
      counted.push({ facts, cls: { kind: "ended", reason: s.event.ended_reason } });
      outcomes[i] = { counted: false, reason: s.event.ended_reason };
      continue;
    }
    const firstId = uniqueEventId(facts.day, facts.codeId, s.visitor);
    const minute = Math.floor(facts.at.getTime() / 60_000);
    const slots = Array.from({ length: REPEATS_PER_MINUTE }, (_, k) => minuteEventId(minute, facts.codeId, s.visitor!, k));
    const key = (id: string) => guardKey(facts.merchantId, id);
    // Counted already (a redelivery): its own id is in its guard.
    if (mine(key(firstId), s)) {
      outcomes[i] = { counted: true, unique: true };
      continue;
    }
    const ownSlot = slots.find((id) => mine(key(id), s));
    if (ownSlot) {
      outcomes[i] = { counted: true, unique: false };
      continue;
    }
    if (free(key(firstId)) && admitNewcomer(s)) {
      taken.add(key(firstId));
      tx.createEvent(facts, firstId, true, s.event.scan_id);
      counted.push({ facts, cls: { kind: "human", unique: true, eventId: firstId } });
      outcomes[i] = { counted: true, unique: true };
      continue;
    }
    const slot = free(key(firstId)) ? undefined : slots.find((id) => free(key(id)));
    if (slot) {
      taken.add(key(slot));
      tx.createEvent(facts, slot, false, s.event.scan_id);
      counted.push({ facts, cls: { kind: "human", unique: false, eventId: slot } });
      outcomes[i] = { counted: true, unique: false };
      continue;
    }
    counted.push({ facts, cls: { kind: "repeat" } });
    outcomes[i] = { counted: false, reason: "repeat" };
  }
  return counted;

  /** Whether a new person may count for this code now: the client's unchecked few, then a slot of its budget. */
  function admitNewcomer(s: Resolved): boolean {
    const newcomer = newcomerOf.get(s);
    if (newcomer === undefined) return true; // only real-looking browsers can be several people behind one client
    if (newcomer === "unchecked") {
      admittedUnchecked.push({ codeId: s.facts.codeId, client: s.client!, window: newcomerWindow(s.facts.at) });
      return true;
    }
    if (newcomer === null) return false;
    tx.createSlot(s.facts.merchantId, newcomer.id, newcomerSlotExpiry(newcomer.window));
    newcomer.used = true;
    return true;
  }
}

/**
 * Counts a batch in one transaction. An arrival drained from the outbox whose document is gone when the
 * transaction reads it was counted by another drain (another instance's): it is left out ("gone").
 */
async function countBatch(resolved: Resolved[]): Promise<Array<ScanOutcome | "gone">> {
  const scans = [...resolved].sort((a, b) => a.event.at - b.event.at);
  let outcomes: Array<ScanOutcome | "gone"> = [];
  let admittedUnchecked: Array<{ codeId: string; client: string; window: number }> = [];
  let drawn: DrawnSlot[] = [];
  // Slots drawn and not created (an attempt that did not land, or a scan that did not need its slot) are
  // handed back, so this instance may draw them again.
  const handBack = (slots: DrawnSlot[]) => slots.forEach((d) => freeSlots(d.codeId, d.client, d.window, [d.slot]));
  try {
    await countInTransaction(async (tx) => {
      handBack(drawn);
      drawn = [];
      const fromOutbox = [...new Map(scans.flatMap((s) => (s.delivery.outbox ? [[s.delivery.outbox.path, s.delivery.outbox] as const] : []))).values()];
      const present = await tx.present(fromOutbox);
      const gone = new Set(fromOutbox.filter((_, i) => !present[i]).map((ref) => ref.path));
      const live = scans.filter((s) => !s.delivery.outbox || !gone.has(s.delivery.outbox.path));
      const decided = new Array<ScanOutcome>(live.length);
      admittedUnchecked = [];
      const counted = await decideBatch(tx, live, decided, admittedUnchecked, drawn);
      for (const ref of fromOutbox) if (!gone.has(ref.path)) tx.deleteOutbox(ref);
      const byScan = new Map(live.map((s, i) => [s, decided[i]]));
      outcomes = scans.map((s) => byScan.get(s) ?? "gone");
      return counted;
    });
  } catch (error) {
    handBack(drawn);
    throw error;
  }
  handBack(drawn.filter((d) => !d.used));
  for (const u of admittedUnchecked) noteUnchecked(u.codeId, u.client, u.window);
  const byScan = new Map(scans.map((s, i) => [s, outcomes[i]]));
  return resolved.map((s) => byScan.get(s)!);
}

// ---- after counting: the stream, the webhooks ----

function countedEvent(s: Resolved, outcome: ScanOutcome): ScanEvent {
  return {
    ...s.event,
    counted: outcome.counted ? 1 : 0,
    unique_scan: outcome.counted && outcome.unique ? 1 : 0,
    not_counted_reason: outcome.counted ? null : outcome.reason,
  };
}

const hasSubscribers = (link: Link) => Boolean(link.webhookIds?.length || link.machineWebhookIds?.length);

/**
 * A scan whose count committed on this instance: what it was counted as, and the steps after the commit not
 * yet done (its stream event, its notice, the webhooks it was queued for). Once the commit lands the scan is
 * counted: a failure of a later step is retried by that step alone (this push held, or delivered again),
 * never by counting the scan again, which would count its machine's, repeat's or closed campaign's scan again.
 */
interface Committed {
  outcome: ScanOutcome;
  notice?: ScanNoticeFacts;
  /** Its stream event, until published. */
  event?: ScanEvent;
  queued: Set<string>;
  finishing?: Promise<void>;
  done: boolean;
}

/**
 * Scans counted by this instance, by scan id (the least recently used forgotten first). Pub/Sub delivers a
 * failed push again within minutes (its backoff), mostly to the same instance; one forgotten or delivered
 * elsewhere is counted again only if it has no guard (docs/scan-stream.md, "Reconciliation").
 */
const committed = new LruMap<string, Committed>(50_000);

/** Runs the steps after a scan's commit that are not done yet; concurrent deliveries of one scan share the run. */
function finish(c: Committed): Promise<void> {
  if (c.done) return Promise.resolve();
  c.finishing ??= (async () => {
    if (c.event) {
      await afterCount.publish(c.event);
      c.event = undefined;
    }
    if (c.notice) await scanNotices.queue!(c.notice, c.outcome, c.queued);
    c.done = true;
    c.notice = undefined;
  })().finally(() => (c.finishing = undefined));
  return c.finishing;
}

// ---- the batches ----

/** Arrivals one transaction counts at most (each writes at most an event, a counter, two rollups and an outbox delete). */
const BATCH_MAX = 90;
/**
 * A busy instance (its last batch held more than one arrival) starts a batch at most this often
 * (getConfig().consumerGatherMs: a second deployed, core/config.ts CONSUMER_GATHER_MS), or when BATCH_MAX
 * arrivals wait: each of its rollups then takes one write for a second's scans (one shard a second:
 * store/rollups.ts) instead of one for every few scans, and the fold reads as few shards. An idle instance,
 * or one fed one arrival at a time, counts each at once (core/coalescer.ts). On the emulators it does not
 * gather: a test that counts ten arrivals at a time and waits for them would wait a second a round.
 */
const gatherMs = () => getConfig().consumerGatherMs;

/** Deliveries this instance holds (not yet answered), with when Pub/Sub stored each: the watermark. */
const inFlight = new Map<Delivery, number>();

const batches = new Coalescer<Delivery, Consumed | Error>(async (deliveries) => {
  const results: Array<Consumed | Error> = new Array(deliveries.length);
  const decoded: Array<{ delivery: Delivery; event: ScanEvent; at: number }> = [];
  deliveries.forEach((delivery, i) => {
    try {
      decoded.push({ delivery, event: decodeArrival(delivery), at: i });
    } catch (error) {
      results[i] = error as Error;
    }
  });
  const now = Date.now();
  const attempt = async (group: typeof decoded) => {
    // A scan this instance counted already is not resolved or counted again: only its later steps are run.
    const resolved = await resolve(group.filter((d) => !committed.has(d.event.scan_id)), now);
    // Left for a consumer instance: a scan its subscribers must hear of, where no one can tell them.
    const left = new Set(resolved.filter((r): r is Resolved => r !== "dropped" && hasSubscribers(r.link) && !scanNotices.queue));
    const fresh = resolved.filter((r): r is Resolved => r !== "dropped" && !left.has(r));
    const outcomes = fresh.length ? await countBatch(fresh) : [];
    fresh.forEach((s, k) => {
      const outcome = outcomes[k];
      if (outcome === "gone" || committed.has(s.event.scan_id)) return; // counted by another drain; a twin of this batch remembered once
      const notice = hasSubscribers(s.link) ? { link: s.link, uniqueQRCodeID: s.event.unique_qr_code_id, at: s.facts.at, place: s.facts.place, device: s.facts.device, scanId: s.event.scan_id } : undefined;
      committed.set(s.event.scan_id, { outcome, event: countedEvent(s, outcome), ...(notice ? { notice } : {}), queued: new Set(), done: false });
    });
    await Promise.all([...new Set(group.flatMap((d) => committed.get(d.event.scan_id) ?? []))].map(finish));
    const leftIds = new Set([...left].map((r) => r.event.scan_id));
    for (const d of group) {
      const c = committed.get(d.event.scan_id);
      results[d.at] = c ? { outcome: c.outcome } : leftIds.has(d.event.scan_id) ? { outcome: "left" } : { outcome: "dropped" };
    }
  };
  try {
    await attempt(decoded);
  } catch (error) {
    // One arrival may be what fails the batch: each is tried alone, so the others are not held back with it
    // (those whose count committed only finish their later steps).
    if (decoded.length === 1) results[decoded[0].at] = error as Error;
    else await Promise.all(decoded.map((d) => attempt([d]).catch((e: unknown) => (results[d.at] = e as Error))));
  }
  return results;
}, BATCH_MAX, undefined, gatherMs);

/** Counts one arrival with whatever else reaches this instance meanwhile; resolves once it is counted (or dropped). */
export async function consumeArrival(delivery: Delivery): Promise<Consumed> {
  inFlight.set(delivery, delivery.publishTime?.getTime() ?? Date.now());
  heartbeat();
  try {
    const result = await batches.submit(delivery);
    if (result instanceof Error) throw result;
    return result;
  } finally {
    inFlight.delete(delivery);
    heartbeat();
  }
}

/**
 * How long the consumer holds one push whose counting fails for a reason that may pass (Firestore
 * unavailable, a transaction that keeps meeting others), trying it again, before it answers the failure and
 * lets Pub/Sub deliver it again: an outage shorter than this costs no delivery attempt at all, so none of
 * the subscription's attempts (CONSUMER_DELIVERY) are spent and nothing reaches the dead letters. Within the
 * function's timeout and the subscription's acknowledgement deadline (60 s).
 */
export const CONSUMER_HOLD_MS = 45_000;
/** The longest pause between two tries of a held push: how long after an outage ends the consumer catches up. */
const HOLD_RETRY_MAX_MS = 1_000;

/**
 * Whether a failure may pass by itself: Firestore unavailable, out of time, aborted or out of quota (gRPC
 * codes 14, 4, 10, 8, or their HTTP 503/429), or a read of the consumer's own that did not answer in time.
 * Any other (an arrival or a workspace Firestore refuses) is answered at once and left to Pub/Sub's
 * backoff, so it never holds the batches of other scans.
 */
function mayPass(error: unknown): boolean {
  if (error instanceof PoisonArrival) return false;
  if (error instanceof AppError) return error.code === "UNAVAILABLE"; // a read of ours past CONSUMER_READ_MS
  const { code, httpStatusCode } = (error ?? {}) as { code?: unknown; httpStatusCode?: unknown };
  return code === 14 || code === 4 || code === 10 || code === 8 || httpStatusCode === 503 || httpStatusCode === 429;
}

/**
 * The longest one try of a held push takes: its link and zone reads (CONSUMER_READ_MS each), then the
 * transaction's attempts, each of whose reads is bounded (store/scanCounts.ts COUNT_READ_MS), with their
 * commits. A try starts only while the hold has this long left, so the last one ends within the hold and the
 * push is answered before its acknowledgement deadline (Pub/Sub would otherwise deliver it again meanwhile).
 */
export const CONSUMER_ATTEMPT_MS = 15_000;

/** consumeArrival, tried again for up to `holdMs` while it fails for a reason that may pass (mayPass), each try started only while `attemptMs` is left. */
export async function consumeHeld(delivery: Delivery, holdMs = CONSUMER_HOLD_MS, attemptMs = CONSUMER_ATTEMPT_MS): Promise<Consumed> {
  const until = Date.now() + holdMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, HOLD_RETRY_MAX_MS)) {
    try {
      return await consumeArrival(delivery);
    } catch (error) {
      if (!mayPass(error) || Date.now() + pause + attemptMs > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

let lastBeat = 0;
let beating = false;
let changed = false;
let trailing: NodeJS.Timeout | undefined;

/**
 * Writes this instance's watermark, at most once a second: the oldest arrival it holds, or now when it holds
 * none. A change within the second is written when the second is over (so an instance that went idle says
 * so), and an instance holding a push beats every second while it holds it (its lag grows where seen).
 */
function heartbeat(): void {
  changed = true;
  if (beating || trailing) return;
  const wait = lastBeat + 1_000 - Date.now();
  if (wait > 0) trailing = setTimeout(() => ((trailing = undefined), heartbeat()), wait).unref();
  else beat();
}

function beat(): void {
  beating = true;
  changed = false;
  lastBeat = Date.now();
  let oldest = lastBeat;
  for (const t of inFlight.values()) oldest = Math.min(oldest, t);
  writeConsumerHeartbeat(INSTANCE_ID, { watermark: new Date(oldest), inFlight: inFlight.size })
    .catch((error: unknown) => logWarn("scan.consumer_heartbeat_failed", "the scan consumer's heartbeat was not written", { error: String(error) }))
    .finally(() => {
      beating = false;
      if (changed || inFlight.size) heartbeat();
    });
}

/** Outbox entries one drain takes at most (pages of OUTBOX_PAGE, in document order). */
const OUTBOX_DRAIN_MAX = 2_000;
const OUTBOX_PAGE = 200;

/**
 * Counts what waits in the outbox (arrivals whose publish failed): called by the maintenance job and by a
 * consumer instance at most every OUTBOX_DRAIN_INTERVAL_MS. Pages through the outbox in document order, so
 * entries that stay (left for a consumer instance, or failing) never hide the ones behind them. An entry
 * dropped (no such code, ruled, taken down) or that can never be counted is deleted (logged), as Pub/Sub
 * would move it to the dead letters; one counted is deleted by the transaction that counts it. Returns how
 * many were counted or dropped.
 */
export async function drainOutbox(max = OUTBOX_DRAIN_MAX): Promise<number> {
  let done = 0;
  let after: string | undefined;
  for (let taken = 0; taken < max; ) {
    const entries = await readOutbox(Math.min(OUTBOX_PAGE, max - taken), after);
    if (!entries.length) break;
    taken += entries.length;
    after = entries[entries.length - 1].ref.id;
    await Promise.all(
      entries.map(async (entry) => {
        try {
          const consumed = await consumeArrival({ data: entry.data, attributes: entry.attributes, outbox: entry.ref });
          if (consumed.outcome === "left") return;
          // Counted in this drain, it went with its count; counted before (its own push reached this
          // instance too) or dropped, it goes here (a delete of a document already gone changes nothing).
          await deleteOutbox(entry.ref);
          done++;
        } catch (error) {
          if (!(error instanceof PoisonArrival)) return logError("scan.outbox_drain_failed", "an outbox arrival was not counted", error, { scanId: entry.ref.id });
          logWarn("scan.arrival_poisoned", "an outbox arrival that can never be counted: deleted", { scanId: entry.ref.id, error: error.message, data: entry.data.toString("base64").slice(0, 2_000) });
          await deleteOutbox(entry.ref).catch((e: unknown) => logError("scan.outbox_drain_failed", "a poisoned outbox arrival was not deleted", e, { scanId: entry.ref.id }));
        }
      }),
    );
    if (entries.length < OUTBOX_PAGE) break;
  }
  return done;
}
