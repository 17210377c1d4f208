// The local Pub/Sub emulator over its REST API: a test subscribes to the scan topic before it scans, then
// pulls what was published (only messages published after a subscription exists reach it).
import { randomBytes } from "node:crypto";
import { SCAN_EVENT_FIELDS, SCAN_STREAM, type ScanEvent } from "../../functions/src/store/scanEvents";
import { projectId } from "./env";
import { eventually } from "./poll";

const emulator = () => {
  const host = process.env.PUBSUB_EMULATOR_HOST;
  if (!host) throw new Error("PUBSUB_EMULATOR_HOST is not set: run the tests through `npm test`");
  return `http://${host}/v1/projects/${projectId()}`;
};

export interface PulledMessage {
  messageId: string;
  /** Microseconds. */
  publishTime: number;
  attributes: Record<string, string>;
  /** The message's JSON as sent (Avro's JSON encoding). */
  wire: Record<string, unknown>;
  /** The event, with Avro's union wrappers taken off. */
  event: ScanEvent;
}

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emulator()}${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`Pub/Sub emulator ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A new pull subscription to the scan topic; returns its name. */
export async function subscribeToScans(): Promise<string> {
  const name = `test-${randomBytes(6).toString("hex")}`;
  await call("PUT", `/subscriptions/${name}`, { topic: `projects/${projectId()}/topics/${SCAN_STREAM.topic}`, ackDeadlineSeconds: 60 });
  return name;
}

export async function topicSchema(): Promise<{ schema?: string; encoding?: string }> {
  return (await call("GET", `/topics/${SCAN_STREAM.topic}`)).schemaSettings ?? {};
}

function unwrap(wire: Record<string, unknown>): ScanEvent {
  const event: Record<string, unknown> = {};
  for (const name of Object.keys(SCAN_EVENT_FIELDS)) {
    const value = wire[name];
    event[name] = value && typeof value === "object" ? ((value as { string?: string; long?: number }).string ?? (value as { long?: number }).long) : value;
  }
  return event as unknown as ScanEvent;
}

/**
 * Pulls and acknowledges messages until `count` of those `keep` accepts have arrived (or the poll gives up),
 * and returns those. `keep` leaves out other tests' rows that the consumer published late (each reaches every
 * subscription of the stream).
 */
export async function pullScans(subscription: string, count: number, keep: (m: PulledMessage) => boolean = () => true): Promise<PulledMessage[]> {
  const got: PulledMessage[] = [];
  await eventually(
    async () => {
      // returnImmediately: the emulator holds a pull of an empty subscription for about 90 s, past the poll's own bound.
      const { receivedMessages = [] } = await call("POST", `/subscriptions/${subscription}:pull`, { maxMessages: 1000, returnImmediately: true });
      if (receivedMessages.length) await call("POST", `/subscriptions/${subscription}:acknowledge`, { ackIds: receivedMessages.map((m: any) => m.ackId) });
      for (const { message } of receivedMessages) {
        const wire = JSON.parse(Buffer.from(message.data, "base64").toString("utf8"));
        const publishTime = Date.parse(message.publishTime) * 1000; // millisecond precision: ties are broken by message id
        const pulled = { messageId: message.messageId, publishTime, attributes: message.attributes ?? {}, wire, event: unwrap(wire) };
        if (keep(pulled)) got.push(pulled);
      }
      return got.length;
    },
    (n) => n >= count,
    { timeoutMs: 20_000, what: `${count} scan messages` },
  );
  return got;
}
