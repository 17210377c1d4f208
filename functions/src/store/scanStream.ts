// Publishes scan events (store/scanEvents.ts) to Pub/Sub: a scan's arrival (the redirect, before it answers:
// the scan's one durable record) and its resolved, counted event (the consumer, to the stream topic that
// BigQuery reads). The client library batches concurrent messages of one instance into one request and
// retries a failed request with the same messages, so a retried scan keeps its scan_id. The library is
// loaded on the first publish, not when the function starts (it is large), and each topic handle is reused.
// Under the emulator suite PUBSUB_EMULATOR_HOST points the library at the local emulator.
import type { PubSub, Topic } from "@google-cloud/pubsub";
import { projectId } from "../core/config";
import { SCAN_STREAM, SCAN_EVENT_FIELDS, type ScanEvent, type ScanEventField } from "./scanEvents";

const topics = new Map<string, Topic>();

/**
 * `waitMs`: how long the publisher gathers messages before a request. An arrival's redirect waits for it,
 * so 1 ms (concurrent scans still share a request); the consumer's republish is off every answer's path.
 */
function topicOf(name: string, waitMs: number): Topic {
  let topic = topics.get(name);
  if (!topic) {
    const { PubSub: Client } = require("@google-cloud/pubsub") as { PubSub: new (options: object) => PubSub };
    topic = new Client({ projectId: projectId() }).topic(name, { batching: { maxMessages: 500, maxMilliseconds: waitMs } });
    topics.set(name, topic);
  }
  return topic;
}

/** Each field's place in the wire form: its name, the Avro branch a set nullable value is wrapped in, and its length bound. */
const WIRE = (Object.entries(SCAN_EVENT_FIELDS) as Array<[ScanEventField, { type: string; nullable?: boolean; max?: number }]>).map(([name, spec]) => ({
  name,
  branch: spec.nullable ? (spec.type === "string" ? "string" : "long") : undefined,
  max: spec.type === "string" ? spec.max : undefined,
}));

/**
 * The message's bytes in Avro's JSON encoding, which the stream topic's schema enforces: a set nullable
 * field is wrapped in its type. No schema parse per message: the fields are taken from the one field list
 * (nothing else goes out) and strings are cut to their bound; test/unit/scan-stream.test.ts checks the
 * output against the zod and Avro schemas.
 */
export function encodeScanEvent(event: ScanEvent): Buffer {
  const wire: Record<string, unknown> = {};
  for (const { name, branch, max } of WIRE) {
    let value: unknown = event[name];
    if (max !== undefined && typeof value === "string" && value.length > max) value = value.slice(0, max);
    wire[name] = branch && value !== null && value !== undefined ? { [branch]: value } : (value ?? null);
  }
  return Buffer.from(JSON.stringify(wire));
}

/** The event a message's bytes hold, with Avro's union wrappers taken off (not yet validated). */
export function decodeScanEvent(data: Buffer): Record<string, unknown> {
  const wire = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
  const event: Record<string, unknown> = {};
  for (const { name, branch } of WIRE) {
    const value = wire[name];
    event[name] = branch && value && typeof value === "object" ? (value as Record<string, unknown>)[branch] : value;
  }
  return event;
}

/** What an arrival carries beside its event, for the consumer only (never in the stream's table). */
export type ArrivalAttributes = Record<string, string>;

/** The arrivals' publish, replaced by tests that make it fail (test/service/scan-consumer.test.ts); nothing else does. */
export const arrivalPublishes = { publish: (data: Buffer, attributes: ArrivalAttributes): Promise<string> => topicOf(SCAN_STREAM.arrivals, 1).publishMessage({ data, attributes }) };

/** Publishes a scan's arrival; resolves with the message id once Pub/Sub has stored it. */
export function publishArrival(data: Buffer, attributes: ArrivalAttributes): Promise<string> {
  return arrivalPublishes.publish(data, attributes);
}

/** Publishes a resolved, counted event to the stream topic (BigQuery's). */
export function publishScanEvent(event: ScanEvent): Promise<string> {
  return topicOf(SCAN_STREAM.topic, 10).publishMessage({ data: encodeScanEvent(event), attributes: { schema_version: String(event.schema_version), scan_id: event.scan_id, merchant_id: event.merchant_id } });
}
