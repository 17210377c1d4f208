// How far the scan consumer (scans/consume.ts) is behind the scans it has received: every analytics answer
// carries it as `lagSeconds`, and `pending: true` while it is over PENDING_LAG_MS (figures still catching
// up). Read from the consumer instances' heartbeats (store/scanCounts.ts: one document per instance,
// written at most once a second), a handful of documents, and one outbox entry, at most once a second per
// instance of the API.
import { readConsumerHeartbeats, type ConsumerHeartbeat } from "../store/scanCounts";
import { outboxWaiting } from "../store/scanOutbox";

/** A lag above this is the consumer catching up, not its ordinary second or so of batching. */
export const PENDING_LAG_MS = 2_000;
/** Heartbeats older than this are of instances gone (scaled in, or crashed: Pub/Sub gives their pushes to others). */
export const HEARTBEAT_SEEN_MS = 10 * 60_000;

export interface Freshness {
  /** True while the consumer is catching up with scans it has received but not counted. */
  lagging: boolean;
  lagSeconds: number;
}

/**
 * The consumer's lag at `now`: the largest of its instances', and of what waits in the outbox. An instance
 * holding arrivals is as far behind as the oldest of them (its watermark), and falls further behind while it
 * holds them (or died holding them); an idle one was caught up when it last wrote. Arrivals a consumer has
 * not received (Pub/Sub backing off after failed pushes, or pushing to a consumer that refuses it) show in
 * no heartbeat: those whose publish failed wait in the outbox, and one of them (written at `outboxSince`)
 * is at least as old as the lag it shows.
 */
export function consumerLag(beats: readonly ConsumerHeartbeat[], now: number, outboxSince?: Date): Freshness {
  let lag = outboxSince ? now - outboxSince.getTime() : 0;
  for (const b of beats) lag = Math.max(lag, (b.inFlight > 0 ? now : b.updatedAt.getTime()) - b.watermark.getTime());
  return { lagging: lag > PENDING_LAG_MS, lagSeconds: Math.floor(Math.max(0, lag) / 1000) };
}

let cached: { at: number; value: Promise<Freshness> } | undefined;

/** The consumer's lag now, read at most once a second by this instance (every analytics answer asks). */
export function consumerFreshness(now = Date.now()): Promise<Freshness> {
  if (cached && now - cached.at < 1_000 && now >= cached.at) return cached.value;
  const value = Promise.all([readConsumerHeartbeats(now, HEARTBEAT_SEEN_MS), outboxWaiting()]).then(([beats, outboxSince]) => consumerLag(beats, now, outboxSince));
  cached = { at: now, value };
  value.catch(() => (cached = undefined));
  return value;
}

/** The answer's freshness: `pending` when shards were left out of the read (`more`) or the consumer lags. */
export async function freshnessFields(more: boolean, freshness: Promise<Freshness>): Promise<{ pending: boolean; lagSeconds: number }> {
  const f = await freshness;
  return { pending: more || f.lagging, lagSeconds: f.lagSeconds };
}
