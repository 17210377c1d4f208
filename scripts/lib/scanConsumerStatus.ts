// The scan consumer as an operator sees it (`npm run admin -- scan-consumer`): its lag as the analytics
// answers say it (scans/freshness.ts: its instances' heartbeats, the outbox, the redirect's arrival marks),
// and the arrivals in its dead letters. The dead letters are counted by peeking the subscription that keeps
// them, as in production: a synchronous pull that takes up to `max` messages and at once hands each back
// (acknowledgement deadline 0) without acknowledging it, so they stay for whoever repairs them (docs/deploy.md, "Scan consumer").
import { PubSub, v1 } from "@google-cloud/pubsub";
import { consumerLag, readConsumerLag } from "../../functions/src/scans/freshness";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";

export interface DeadLetterPeek {
  /** Messages seen (at most `max`: `more` says the subscription may hold others). */
  count: number;
  more: boolean;
  /** The oldest seen: its publish time and scan id, where it has one. */
  oldest: { publishTime: string; scanId: string | null } | null;
}

/** Settings for Pub/Sub's generated clients: the PubSub client's, which carry the emulator's (PUBSUB_EMULATOR_HOST) when one is named. */
export async function gapicConfig(project: string) {
  const { port, ...config } = await new PubSub({ projectId: project }).getClientConfig();
  return { ...config, ...(port === undefined ? {} : { port: Number(port) }) };
}

/** Peeks the dead-letter subscription: pulls up to `max` messages and hands them straight back, unacknowledged. */
export async function peekDeadLetters(project: string, max = 1000): Promise<DeadLetterPeek> {
  const client = new v1.SubscriberClient(await gapicConfig(project));
  const subscription = `projects/${project}/subscriptions/${SCAN_STREAM.deadLetterSubscription}`;
  try {
    const seen = new Map<string, { publishTime: string; scanId: string | null }>();
    // Several pulls: one answers at most what the server has ready; a message seen twice ends the peek.
    for (let round = 0; round < 5 && seen.size < max; round++) {
      // On the emulator a pull of an empty subscription is held until its deadline (about 9 s here), so the
      // peek asks it to answer at once; Pub/Sub itself answers a synchronous pull promptly.
      const [answer] = await client.pull({ subscription, maxMessages: max - seen.size, ...(process.env.PUBSUB_EMULATOR_HOST ? { returnImmediately: true } : {}) }, { timeout: 10_000 });
      const received = answer.receivedMessages ?? [];
      if (received.length) await client.modifyAckDeadline({ subscription, ackIds: received.map((m) => m.ackId!), ackDeadlineSeconds: 0 });
      let fresh = 0;
      for (const m of received) {
        const id = m.message?.messageId ?? "";
        if (seen.has(id)) continue;
        fresh++;
        const seconds = Number(m.message?.publishTime?.seconds ?? 0);
        seen.set(id, { publishTime: new Date(seconds * 1000 + Math.floor((m.message?.publishTime?.nanos ?? 0) / 1e6)).toISOString(), scanId: m.message?.attributes?.scan_id ?? null });
      }
      if (!fresh) break;
    }
    const all = [...seen.values()].sort((a, b) => a.publishTime.localeCompare(b.publishTime));
    return { count: seen.size, more: seen.size >= max, oldest: all[0] ?? null };
  } finally {
    await client.close();
  }
}

/** The consumer's instances seen in the last HEARTBEAT_SEEN_MS (scans/freshness.ts), its lag, and its dead letters. */
export async function scanConsumerStatus(project: string, now = Date.now()) {
  const [{ beats, freshness: lag }, deadLetters] = await Promise.all([readConsumerLag(now), peekDeadLetters(project)]);
  return {
    lagSeconds: lag.lagSeconds,
    pending: lag.lagging,
    instances: beats.map((b) => ({ instance: b.instance, watermark: b.watermark.toISOString(), inFlight: b.inFlight, beatAt: b.updatedAt.toISOString(), lagSeconds: consumerLag([b], now).lagSeconds })),
    deadLetters,
  };
}
