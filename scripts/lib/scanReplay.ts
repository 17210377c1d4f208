// The dead letters' replay (`npm run admin -- scan-consumer --replay`): once the cause that sent arrivals to
// the dead letters is repaired (a bug fixed, a zone restored), their messages go back to the arrivals topic
// and the consumer counts them (docs/scan-stream.md, "Reconciliation"). Each message is pulled from the kept
// dead letters, published again with its data and its own attributes (Pub/Sub's CloudPubSubDeadLetter* ones
// dropped), and acknowledged only once that publish succeeded: a failed publish hands its messages back, so a
// replay stopped half way loses nothing. A message replayed twice (its ack lost) is one person to the
// consumer (guards keyed by scan id); a machine's or repeat's scan would count twice, as any redelivery.
import { PubSub, v1 } from "@google-cloud/pubsub";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { gapicConfig } from "./scanConsumerStatus";

/** Messages per pull and per publish: one publish request, well under Pub/Sub's 10 MB and 1,000 messages. */
const BATCH = 100;
/** One publish's bound, inside the kept dead letters' acknowledgement deadline (60 s: DEAD_LETTERS_KEPT). */
const PUBLISH_TIMEOUT_MS = 20_000;

export interface ReplayResult {
  /** Published again to the arrivals topic and acknowledged. */
  replayed: number;
  /** Pulled but not replayed (their publish failed): handed back, still in the dead letters. */
  failed: number;
  /** Why the replay stopped early, when it did. */
  error?: string;
}

/** Where to replay from and to: the kept dead letters and the arrivals topic, unless a test names its own. */
export interface ReplayRoute {
  subscription: string;
  topic: string;
}

const DEAD_LETTER_ATTRIBUTE = /^CloudPubSubDeadLetter/;

/** A pulled message's data (gRPC gives bytes; the JSON form, base64). */
const bytes = (data: Uint8Array | string | null | undefined): Buffer => (typeof data === "string" ? Buffer.from(data, "base64") : Buffer.from(data ?? new Uint8Array()));

/** Replays up to `max` dead letters; stops at the first failed publish, or when a pull finds none. */
export async function replayDeadLetters(project: string, max = 10_000, route: ReplayRoute = { subscription: SCAN_STREAM.deadLetterSubscription, topic: SCAN_STREAM.arrivals }): Promise<ReplayResult> {
  const subscriber = new v1.SubscriberClient(await gapicConfig(project));
  const pubsub = new PubSub({ projectId: project });
  // One request per pulled batch, not retried: a failure hands the batch back instead.
  const topic = pubsub.topic(route.topic, { batching: { maxMessages: BATCH, maxMilliseconds: 10 }, gaxOpts: { timeout: PUBLISH_TIMEOUT_MS, retry: null } });
  const subscription = `projects/${project}/subscriptions/${route.subscription}`;
  const result: ReplayResult = { replayed: 0, failed: 0 };
  try {
    while (result.replayed < max) {
      // returnImmediately: an empty subscription answers at once (else a pull waits for messages to come).
      const received = await subscriber.pull({ subscription, maxMessages: Math.min(BATCH, max - result.replayed), returnImmediately: true }, { timeout: 10_000 }).then(
        ([answer]) => (answer.receivedMessages ?? []).filter((m) => m.ackId && m.message),
        (error: { code?: number }) => {
          if (error.code === 4) return []; // DEADLINE_EXCEEDED: nothing came within the pull's wait
          throw error;
        },
      );
      if (!received.length) break;
      const ackIds = received.map((m) => m.ackId!);
      try {
        await Promise.all(
          received.map(({ message }) =>
            topic.publishMessage({
              data: bytes(message!.data),
              attributes: Object.fromEntries(Object.entries(message!.attributes ?? {}).filter(([name]) => !DEAD_LETTER_ATTRIBUTE.test(name))),
            }),
          ),
        );
      } catch (error) {
        result.failed += received.length;
        result.error = String(error);
        await subscriber.modifyAckDeadline({ subscription, ackIds, ackDeadlineSeconds: 0 }).catch(() => undefined);
        break;
      }
      await subscriber.acknowledge({ subscription, ackIds });
      result.replayed += received.length;
    }
    return result;
  } finally {
    await Promise.all([subscriber.close(), pubsub.close()]);
  }
}
