// Publishes scan events (store/scanEvents.ts) to Pub/Sub: a scan's arrival (the redirect, before it answers:
// the scan's one durable record) and its resolved, counted event (the consumer, to the stream topic that
// BigQuery reads). The client library batches concurrent messages of one instance into one request and
// retries a failed request with the same messages (within PUBLISH_BOUNDS), so a retried scan keeps its
// scan_id. The library is loaded on the first publish, not when the function starts (it is large), and each
// topic's publisher is reused.
// Under the emulator suite PUBSUB_EMULATOR_HOST points the library at the local emulator.
import type { PubSub, Topic } from "@google-cloud/pubsub";
import { projectId } from "../core/config";
import { SCAN_STREAM, SCAN_EVENT_FIELDS, type ScanEvent } from "./scanEvents";
import { CONVERSION_EVENT_FIELDS, CONVERSION_STREAM, conversionEventOf, type ConversionEvent } from "./conversionEvents";
import type { Conversion } from "./conversions";
import { logError } from "../core/log";

/**
 * Each topic's bounds. Pub/Sub's defaults retry a publish for up to 10 minutes (60 s a call), holding its
 * message all that time; and the library's flowControlOptions only act through topic.flowControlled(), whose
 * publish waits for room (a scan must not) and which keeps every message id until all() is called. So the
 * retries are bounded by gaxOpts, and the messages in flight by a count kept here: past it a publish is
 * refused at once, as a failed one (an arrival goes to the outbox).
 *  - arrivals: 800 ms in all (one call, or quick retries of a refused one), under the redirect's 1 s wait
 *    (scans/arrival.ts PUBLISH_WAIT_MS): the library has given up before the redirect writes the outbox
 *    copy, so a publish cannot land after it and count a machine's or repeat's scan twice. 2,000 messages
 *    or 4 MiB in flight: 0.8 s at 2,500 scans/s of about 1 KB on one instance.
 *  - the stream: 2.5 s a call, 5 s in all: the record.ts redirect waits 5 s for it (STREAM_WAIT_MS), and it
 *    is a twelfth of the consumer's 60 s push deadline, so a stuck publish never holds a batch past it.
 *    5,000 messages or 8 MiB in flight: 5 s at 1,000 events/s.
 */
export const PUBLISH_BOUNDS = {
  arrivals: { callMs: 800, totalMs: 800, maxMessages: 2_000, maxBytes: 4 * 1024 * 1024 },
  stream: { callMs: 2_500, totalMs: 5_000, maxMessages: 5_000, maxBytes: 8 * 1024 * 1024 },
} as const;

export interface PublishBounds {
  callMs: number;
  totalMs: number;
  maxMessages: number;
  maxBytes: number;
}

/** A publisher of one topic within its bounds; `inFlight` is what it holds now. */
export interface BoundedPublisher {
  publish(data: Buffer, attributes: Record<string, string>): Promise<string>;
  readonly inFlight: { messages: number; bytes: number };
  close(): Promise<void>;
}

/** Pub/Sub's codes a publish is retried on (the library's own list), within the bounds' total. */
const RETRIED = [1, 2, 4, 8, 10, 13, 14]; // CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE

/**
 * One topic's publisher with `bounds`, on a client of its own (`apiEndpoint`: where a test's Pub/Sub is;
 * else PUBSUB_EMULATOR_HOST's or Google's). `waitMs`: how long the publisher gathers messages before a
 * request. An arrival's redirect waits for it, so 1 ms (concurrent scans still share a request); the
 * consumer's republish is off every answer's path.
 */
export function boundedPublisher(name: string, waitMs: number, bounds: PublishBounds, client: { apiEndpoint?: string } = {}): BoundedPublisher {
  const { PubSub: Client } = require("@google-cloud/pubsub") as { PubSub: new (options: object) => PubSub };
  const pubsub = new Client({ projectId: projectId(), ...client });
  const topic: Topic = pubsub.topic(name, {
    batching: { maxMessages: 500, maxMilliseconds: waitMs },
    gaxOpts: {
      timeout: bounds.totalMs,
      retry: {
        retryCodes: RETRIED,
        backoffSettings: {
          initialRetryDelayMillis: 50,
          retryDelayMultiplier: 2,
          maxRetryDelayMillis: 1_000,
          initialRpcTimeoutMillis: bounds.callMs,
          rpcTimeoutMultiplier: 1,
          maxRpcTimeoutMillis: bounds.callMs,
          totalTimeoutMillis: bounds.totalMs,
        },
      },
    },
  });
  const inFlight = { messages: 0, bytes: 0 };
  return {
    inFlight,
    close: () => pubsub.close(),
    publish(data, attributes) {
      const bytes = data.length + Object.entries(attributes).reduce((n, [k, v]) => n + k.length + v.length, 0);
      if (inFlight.messages + 1 > bounds.maxMessages || inFlight.bytes + bytes > bounds.maxBytes) {
        return Promise.reject(Object.assign(new Error(`${name}: ${inFlight.messages} messages (${inFlight.bytes} bytes) already in flight`), { code: 8 }));
      }
      inFlight.messages++;
      inFlight.bytes += bytes;
      return topic.publishMessage({ data, attributes }).finally(() => {
        inFlight.messages--;
        inFlight.bytes -= bytes;
      });
    },
  };
}

const publishers = new Map<string, BoundedPublisher>();

function publisherOf(name: string, waitMs: number, bounds: PublishBounds): BoundedPublisher {
  let publisher = publishers.get(name);
  if (!publisher) {
    publisher = boundedPublisher(name, waitMs, bounds);
    publishers.set(name, publisher);
  }
  return publisher;
}

/** Each field's place in the wire form: its name, the Avro branch a set nullable value is wrapped in, and its length bound. */
const wireOf = (fields: Record<string, { type: string; nullable?: boolean; max?: number }>) =>
  Object.entries(fields).map(([name, spec]) => ({
    name,
    branch: spec.nullable ? (spec.type === "string" ? "string" : "long") : undefined,
    max: spec.type === "string" ? spec.max : undefined,
  }));
const WIRE = wireOf(SCAN_EVENT_FIELDS);
const CONVERSION_WIRE = wireOf(CONVERSION_EVENT_FIELDS);

function encodeWire(wireFields: ReturnType<typeof wireOf>, event: Record<string, unknown>): Buffer {
  const wire: Record<string, unknown> = {};
  for (const { name, branch, max } of wireFields) {
    let value: unknown = event[name];
    if (max !== undefined && typeof value === "string" && value.length > max) value = value.slice(0, max);
    wire[name] = branch && value !== null && value !== undefined ? { [branch]: value } : (value ?? null);
  }
  return Buffer.from(JSON.stringify(wire));
}

/**
 * The message's bytes in Avro's JSON encoding, which the stream topic's schema enforces: a set nullable
 * field is wrapped in its type. No schema parse per message: the fields are taken from the one field list
 * (nothing else goes out) and strings are cut to their bound; test/unit/scan-stream.test.ts checks the
 * output against the zod and Avro schemas.
 */
export function encodeScanEvent(event: ScanEvent): Buffer {
  return encodeWire(WIRE, event);
}

/** A conversion's message bytes, encoded as a scan event's are (test/unit/conversion-stream.test.ts checks them). */
export function encodeConversionEvent(event: ConversionEvent): Buffer {
  return encodeWire(CONVERSION_WIRE, event);
}

/** The event a message's bytes hold, with Avro's union wrappers taken off (not yet validated). */
export function decodeScanEvent(data: Buffer): Record<string, unknown> {
  const wire = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
  const event: Record<string, unknown> = {};
  for (const { name, branch } of WIRE) {
    const value = wire[name];
    // A nullable field an older layout did not have (an arrival published before a deploy) reads as null.
    event[name] = branch && value && typeof value === "object" ? (value as Record<string, unknown>)[branch] : branch ? (value ?? null) : value;
  }
  return event;
}

/** What an arrival carries beside its event, for the consumer only (never in the stream's table). */
export type ArrivalAttributes = Record<string, string>;

/** The arrivals' publish, replaced by tests that make it fail (test/service/scan-consumer.test.ts); nothing else does. */
export const arrivalPublishes = { publish: (data: Buffer, attributes: ArrivalAttributes): Promise<string> => publisherOf(SCAN_STREAM.arrivals, 1, PUBLISH_BOUNDS.arrivals).publish(data, attributes) };

/** Publishes a scan's arrival; resolves with the message id once Pub/Sub has stored it. */
export function publishArrival(data: Buffer, attributes: ArrivalAttributes): Promise<string> {
  return arrivalPublishes.publish(data, attributes);
}

/** Publishes a resolved, counted event to the stream topic (BigQuery's). */
export function publishScanEvent(event: ScanEvent): Promise<string> {
  return publisherOf(SCAN_STREAM.topic, 10, PUBLISH_BOUNDS.stream).publish(encodeScanEvent(event), { schema_version: String(event.schema_version), scan_id: event.scan_id, merchant_id: event.merchant_id });
}

/** Publishes a counted conversion to the conversion stream topic (BigQuery's `conversion_events`). */
export function publishConversionEvent(event: ConversionEvent): Promise<string> {
  return publisherOf(CONVERSION_STREAM.topic, 10, PUBLISH_BOUNDS.stream).publish(encodeConversionEvent(event), { schema_version: String(event.schema_version), conversion_id: String(event.conversion_id), merchant_id: String(event.merchant_id) });
}

/**
 * Streams conversions the consumer has just counted, one message each. Their count is final by now: a
 * publish that fails is logged (`conversion.not_streamed`) and not retried, and the rollups stay right; a
 * second counting cannot happen (store/conversions.ts marks each counted once), and a retried publish
 * stores a second row with the same conversion_id, which the documented view keeps once.
 */
export async function streamConversions(merchantId: string, conversions: readonly Conversion[]): Promise<void> {
  await Promise.all(
    conversions.map((c) =>
      publishConversionEvent(conversionEventOf(merchantId, c)).catch((error: unknown) => logError("conversion.not_streamed", "a counted conversion was not streamed", error, { merchantId, conversionId: c.id })),
    ),
  );
}
