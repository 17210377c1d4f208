// How far the scan consumer (scans/consume.ts) is behind the scans it has received: every analytics answer
// carries it as `lagSeconds`, and `pending: true` while it is over PENDING_LAG_MS (figures still catching
// up). Read from the consumer instances' heartbeats (store/scanCounts.ts: one document per instance,
// written at most once a second), the redirect instances' arrival marks (store/scanArrivalMarks.ts: one
// per instance), a handful of documents each, and one outbox entry, at most once a second per instance of
// the API.
import { readConsumerHeartbeats, type ConsumerHeartbeat } from "../store/scanCounts";
import { readArrivalMarks } from "../store/scanArrivalMarks";
import { outboxWaiting } from "../store/scanOutbox";

/** A lag above this is the consumer catching up, not its ordinary second or so of batching. */
export const PENDING_LAG_MS = 2_000;
/** Heartbeats older than this are of instances gone (scaled in, or crashed: Pub/Sub gives their pushes to others). */
export const HEARTBEAT_SEEN_MS = 10 * 60_000;
/**
 * An arrival published this long ago with no consumer instance heard from since is waiting where no
 * heartbeat shows it. A consumer that received it beats within a second or so (its heartbeats' own
 * second, the write): more than PENDING_LAG_MS, so that a consumer keeping up never shows pending for it.
 */
export const UNHEARD_MS = 3_000;

export interface Freshness {
  /** True while the consumer is catching up with scans it has received but not counted. */
  lagging: boolean;
  lagSeconds: number;
}

/** What waits where no consumer instance's heartbeat shows it. */
export interface Unheld {
  /** When one outbox entry was written (its publish failed): a lower bound of the oldest's. */
  outboxSince?: Date;
  /** When the redirect's instances published recent arrivals (their marks). */
  arrivals?: readonly Date[];
}

/**
 * The consumer's lag at `now`: the largest of its instances', and of what waits where none holds it. An
 * instance holding arrivals is as far behind as the oldest of them (its watermark), and falls further behind
 * while it holds them (or died holding them); an idle one was caught up when it last wrote. Arrivals a
 * consumer has not received (Pub/Sub backing off after failed pushes, or pushing to a consumer that refuses
 * it or does not run) show in no heartbeat: those whose publish failed wait in the outbox; one published
 * after the last heartbeat of any instance, and more than UNHEARD_MS ago, has reached none (its mark: a
 * consumer that received it would have beaten since).
 */
export function consumerLag(beats: readonly ConsumerHeartbeat[], now: number, unheld: Unheld = {}): Freshness {
  let lag = unheld.outboxSince ? now - unheld.outboxSince.getTime() : 0;
  for (const b of beats) lag = Math.max(lag, (b.inFlight > 0 ? now : b.updatedAt.getTime()) - b.watermark.getTime());
  const heard = Math.max(-Infinity, ...beats.map((b) => b.updatedAt.getTime()));
  for (const at of unheld.arrivals ?? []) if (at.getTime() > heard && now - at.getTime() > UNHEARD_MS) lag = Math.max(lag, now - at.getTime());
  return { lagging: lag > PENDING_LAG_MS, lagSeconds: Math.floor(Math.max(0, lag) / 1000) };
}

/** The consumer's heartbeats of the last HEARTBEAT_SEEN_MS and its lag at `now`, read (the API's answers, the ops CLI). */
export async function readConsumerLag(now: number): Promise<{ beats: ConsumerHeartbeat[]; freshness: Freshness }> {
  const [beats, outboxSince, arrivals] = await Promise.all([readConsumerHeartbeats(now, HEARTBEAT_SEEN_MS), outboxWaiting(), readArrivalMarks(now)]);
  return { beats, freshness: consumerLag(beats, now, { outboxSince, arrivals }) };
}

let cached: { at: number; value: Promise<Freshness> } | undefined;

/** The consumer's lag now, read at most once a second by this instance (every analytics answer asks). */
export function consumerFreshness(now = Date.now()): Promise<Freshness> {
  if (cached && now - cached.at < 1_000 && now >= cached.at) return cached.value;
  const value = readConsumerLag(now).then((read) => read.freshness);
  cached = { at: now, value };
  value.catch(() => (cached = undefined));
  return value;
}

/** The answer's freshness: `pending` when shards were left out of the read (`more`) or the consumer lags. */
export async function freshnessFields(more: boolean, freshness: Promise<Freshness>): Promise<{ pending: boolean; lagSeconds: number }> {
  const f = await freshness;
  return { pending: more || f.lagging, lagSeconds: f.lagSeconds };
}
