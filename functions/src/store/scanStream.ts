// Publishes scan events to the Pub/Sub topic (store/scanEvents.ts). The client library batches messages
// of concurrent scans on one instance into one publish request and retries a failed request with the same
// messages, so a retried scan keeps its scan_id (Pub/Sub is at-least-once; queries remove duplicates by it).
// The library is loaded on the first scan, not when the function starts (it is large), and the topic
// handle is reused. Under the emulator suite PUBSUB_EMULATOR_HOST points the library at the local emulator.
import type { PubSub, Topic } from "@google-cloud/pubsub";
import { projectId } from "../core/config";
import { SCAN_STREAM, ScanEventSchema, SCAN_EVENT_FIELDS, type ScanEvent } from "./scanEvents";

/** How long the publisher gathers messages before sending a batch: short, since the redirect waits on it. */
const BATCH_WAIT_MS = 2;
const BATCH_MAX_MESSAGES = 500;

let topic: Topic | undefined;
let publishes = 0;

function scanTopic(): Topic {
  if (!topic) {
    const { PubSub: Client } = require("@google-cloud/pubsub") as { PubSub: new (options: object) => PubSub };
    topic = new Client({ projectId: projectId() }).topic(SCAN_STREAM.topic, {
      batching: { maxMessages: BATCH_MAX_MESSAGES, maxMilliseconds: BATCH_WAIT_MS },
    });
  }
  return topic;
}

/** Nullable fields and the Avro type name a set value is wrapped in (a union's branch is named by its type). */
const nullable = new Map(
  Object.entries(SCAN_EVENT_FIELDS)
    .filter(([, spec]) => "nullable" in spec && spec.nullable)
    .map(([name, spec]) => [name, spec.type === "string" ? "string" : "long"]),
);

/** The message's bytes in Avro's JSON encoding, which the topic's schema enforces: a set nullable field is wrapped in its type. */
export function encodeScanEvent(event: ScanEvent): Buffer {
  const wire: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ScanEventSchema.parse(event))) {
    const branch = nullable.get(name);
    wire[name] = branch && value !== null ? { [branch]: value } : value;
  }
  return Buffer.from(JSON.stringify(wire));
}

/** Publishes one scan event; resolves with the message id once Pub/Sub has stored it. */
export async function publishScanEvent(event: ScanEvent): Promise<string> {
  publishes++;
  return scanTopic().publishMessage({ data: encodeScanEvent(event), attributes: { schema_version: String(event.schema_version), scan_id: event.scan_id, merchant_id: event.merchant_id } });
}

/** Messages this instance has published (the bench prints them per scan). */
export function publishCount(): number {
  return publishes;
}
