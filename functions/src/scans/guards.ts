// What decides a person's scan across instances, shared by the redirect's synchronous path (scans/record.ts,
// which creates each guard alone) and the consumer (scans/consume.ts, in its transaction): the ids of the
// guard documents (the visitor's first scan of a code in a local day; REPEATS_PER_MINUTE minute slots), and
// how many new people one client (an address, or an IPv6 /64) may bring to a code: real-looking User-Agents
// from one client become new people for a code at most NEWCOMER_SLOTS times per NEWCOMER_WINDOW_MS, past
// the few each instance lets through unchecked (docs/decisions.md, "Who is a person"). Each newcomer past
// those takes a slot document `n~{client}~{window}~{codeId}~{slot}` of its own, drawn at random among the
// slots this instance does not know taken: created once, so no slot document takes more than one write
// however many instances meet one flooding client.
import { randomInt } from "node:crypto";
import { LruMap } from "../core/lru";

/** After its first scan of the day, a visitor's scans of one code beyond this many per clock minute are repeats. */
export const REPEATS_PER_MINUTE = 3;

// Event ids of a person's counted scans (the guards of unique and repeat counting). The visitor hash
// leads, so the ids of a busy code and day spread over the key space instead of filling one range.
export const uniqueEventId = (day: string, codeId: string, visitor: string) => `u~${visitor}~${day}~${codeId}`;
export const minuteEventId = (minute: number, codeId: string, visitor: string, slot: number) => `m~${visitor}~${minute}~${codeId}~${slot}`;

/** New people (real-looking User-Agents) one client may add to one code per window, across instances. */
export const NEWCOMER_SLOTS = 150;
export const NEWCOMER_WINDOW_MS = 10 * 60_000;
/**
 * New people from one client an instance counts per code and window without taking a slot: a couple or a
 * family at one table costs no extra write, and only a client with more newcomers pays for the check.
 */
export const NEWCOMERS_UNCHECKED = 2;
/**
 * Random slots one newcomer tries before the client counts as full for the window: instances that meet the
 * same busy client spread over the slots instead of all walking them from 0.
 */
export const NEWCOMER_PROBES = 6;

/**
 * New people one client may add to a code with a cap or scan-count thresholds per local day, each checked
 * (none unchecked: an attacker's flood is spread over every instance, and each would let its own few
 * through). Such a person's first scan of the day spends an allowance, so the budget is what one address
 * can take of a cap in a day (docs/campaign-rules.md, "A fair count of people").
 */
export const CAPPED_NEWCOMERS_PER_DAY = 5;
/** The window of a capped code's newcomer slots: the scan's local day (its slots are `n~{client}~d{day}~...`). */
export const cappedNewcomerWindow = (day: string) => `d${day}`;
/** A capped code's slot is kept two days past its local day (a local day ends at most 14 hours after its UTC one). */
export const cappedNewcomerSlotExpiry = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 3 * 86_400_000);

/** The guard of a newcomer slot (the client's hash leads, so slots spread over the key space). */
export const newcomerSlotId = (client: string, window: number | string, codeId: string, slot: number) => `n~${client}~${window}~${codeId}~${slot}`;

export const newcomerWindow = (at: Date) => Math.floor(at.getTime() / NEWCOMER_WINDOW_MS);
/** A slot is kept a day past its window. */
export const newcomerSlotExpiry = (window: number) => new Date((window + 1) * NEWCOMER_WINDOW_MS + 86_400_000);

interface ClientState {
  /** A 10-minute window's number, or a capped code's day (cappedNewcomerWindow). */
  window: number | string;
  /** Newcomers this instance let through unchecked from the client for the code in the window. */
  unchecked: number;
  /** Slots known taken (drawn by this instance, whether it took them or found them taken). */
  taken: Set<number>;
}

const clients = new LruMap<string, ClientState>(50_000);

function stateOf(codeId: string, client: string, window: number | string): ClientState {
  const key = `${codeId}~${client}`;
  let state = clients.get(key);
  if (!state || state.window !== window) {
    state = { window, unchecked: 0, taken: new Set() };
    clients.set(key, state);
  }
  return state;
}

/** How many more newcomers from the client this instance may count for the code in the window unchecked. */
export function uncheckedLeft(codeId: string, client: string, window: number): number {
  return Math.max(0, NEWCOMERS_UNCHECKED - stateOf(codeId, client, window).unchecked);
}

/** Records newcomers counted unchecked (once they are: the consumer after its transaction commits). */
export function noteUnchecked(codeId: string, client: string, window: number, n = 1): void {
  stateOf(codeId, client, window).unchecked += n;
}

/**
 * Up to `n` slots for a newcomer to try: drawn at random among those this instance does not know taken, and
 * known taken from now on (one found free and left unused is handed back: freeSlots). None: the client is full.
 */
export function slotsToTry(codeId: string, client: string, window: number | string, n: number, budget = NEWCOMER_SLOTS): number[] {
  const state = stateOf(codeId, client, window);
  const slots: number[] = [];
  while (slots.length < n && state.taken.size < budget) {
    // The k-th slot not known taken, k drawn at random.
    let k = randomInt(budget - state.taken.size);
    let slot = 0;
    for (; ; slot++) if (!state.taken.has(slot) && k-- === 0) break;
    state.taken.add(slot);
    slots.push(slot);
  }
  return slots;
}

/** Slots drawn (slotsToTry) and found free but not taken: others may draw them again. */
export function freeSlots(codeId: string, client: string, window: number, slots: number[]): void {
  const state = stateOf(codeId, client, window);
  for (const slot of slots) state.taken.delete(slot);
}
