// The scan consumer's HTTPS function: Pub/Sub's push subscription to the arrivals topic POSTs each arrival
// here (one message per request). The answer is the acknowledgement: 204 once the scan is counted (or
// dropped: no such code), 422 for a message that can never be counted, 503 when counting still failed after
// the push was held CONSUMER_HOLD_MS (scans/consume.ts consumeHeld: a shorter Firestore outage costs no delivery).
// Any answer but 2xx makes Pub/Sub deliver the message again, with its backoff, and after
// CONSUMER_DELIVERY.maxAttempts deliveries move it to the dead-letter topic (store/scanEvents.ts SCAN_STREAM).
// Deployed so that only the subscription's service account may invoke it (docs/deploy.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { logError, logWarn } from "../core/log";
import { CONVERSION_ATTRIBUTE } from "../attribution/service";
import { CONSUMER_ATTEMPT_MS, CONSUMER_HOLD_MS, consumeHeld, drainOutbox, PoisonArrival, scanNotices } from "../scans/consume";

// Loaded on the first counted scan of a code with a subscription.
let webhookScans: typeof import("../webhooks/scans") | undefined;
const webhooks = () => (webhookScans ??= require("../webhooks/scans") as typeof import("../webhooks/scans"));
// The consumer queues each scan it counts for the code's subscribers before the scan's push is answered
// (pushed or drained from the outbox): a failed enqueue fails the push and only the enqueue is tried again
// (scans/consume.ts finish); the notice keeps the scan's id, so a subscriber sees one scan.
scanNotices.queue = (notice, outcome, queued) => webhooks().queueScanNotice(notice.link, notice.uniqueQRCodeID, notice.at, notice.place, notice.device, outcome, notice.scanId, queued);

/** A push request's body (Pub/Sub's wrapped payload). */
const PushBody = z.object({
  message: z.object({
    data: z.string().max(100_000),
    attributes: z.record(z.string(), z.string().max(2_000)).optional(),
    messageId: z.string().max(200).optional(),
    publishTime: z.string().max(64).optional(),
  }),
  subscription: z.string().max(300).optional(),
  deliveryAttempt: z.number().optional(),
});

/**
 * How long this instance holds a push whose counting fails for a reason that may pass, and the time a try
 * must have left to start (scans/consume.ts consumeHeld). A test fixture (test/fixtures/scan-consumer-server.ts)
 * shortens both, so that an outage outlasts the hold and Pub/Sub's own redelivery carries the arrivals
 * through; nothing else changes them.
 */
export const consumerHold = { ms: CONSUMER_HOLD_MS, attemptMs: CONSUMER_ATTEMPT_MS };

/** A consumer instance drains the outbox at most this often, while arrivals reach it. */
const OUTBOX_DRAIN_INTERVAL_MS = 10_000;
let lastDrain = 0;

function answer(res: ServerResponse, status: number, body?: object): void {
  res.writeHead(status, body ? { "Content-Type": "application/json" } : {}).end(body ? JSON.stringify(body) : undefined);
}

// Loaded on the first conversion message or sweep (docs/attribution.md, "Counting").
let conversionCounting: typeof import("../attribution/consume") | undefined;
const conversions = () => (conversionCounting ??= require("../attribution/consume") as typeof import("../attribution/consume"));

/** A message naming conversions the tracking API recorded: counted once each into this instance's shards, as scans are. */
async function countConversions(res: ServerResponse, data: string, messageId: string | undefined): Promise<void> {
  const counting = conversions();
  try {
    await counting.consumeConversions(Buffer.from(data, "base64"));
    answer(res, 204);
  } catch (error) {
    if (error instanceof counting.PoisonConversion) {
      logWarn("attribution.message_poisoned", "a conversion message that can never be counted: refused", { messageId, error: error.message });
      return answer(res, 422, { error: "unprocessable_arrival", message: error.message });
    }
    logError("attribution.count_failed", "conversions were not counted: Pub/Sub delivers them again", error, { messageId });
    answer(res, 503, { error: "not_counted", message: "counting failed; delivered again" });
  }
}

export async function scanConsumerApp(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
  if (req.method !== "POST") return answer(res, 405, { error: "method_not_allowed", message: "POST a Pub/Sub push message" });
  const parsed = PushBody.safeParse(req.body);
  if (!parsed.success) return answer(res, 400, { error: "invalid_push", message: "not a Pub/Sub push message" });
  const { message } = parsed.data;
  const publishTime = message.publishTime ? new Date(message.publishTime) : undefined;
  if (Date.now() - lastDrain > OUTBOX_DRAIN_INTERVAL_MS) {
    lastDrain = Date.now();
    void drainOutbox().catch((error: unknown) => logError("scan.outbox_drain_failed", "the outbox could not be read", error));
    void conversions()
      .sweepUncounted()
      .catch((error: unknown) => logError("attribution.sweep_failed", "uncounted conversions could not be read", error));
  }
  if (message.attributes?.[CONVERSION_ATTRIBUTE] === "1") return countConversions(res, message.data, message.messageId);
  try {
    await consumeHeld({ data: Buffer.from(message.data, "base64"), attributes: message.attributes ?? {}, publishTime: publishTime && !isNaN(publishTime.getTime()) ? publishTime : undefined }, consumerHold.ms, consumerHold.attemptMs);
    answer(res, 204);
  } catch (error) {
    if (error instanceof PoisonArrival) {
      logWarn("scan.arrival_poisoned", "an arrival that can never be counted: refused (it goes to the dead-letter topic)", { messageId: message.messageId, error: error.message });
      return answer(res, 422, { error: "unprocessable_arrival", message: error.message });
    }
    logError("scan.consumer_failed", "an arrival was not counted: Pub/Sub delivers it again", error, { messageId: message.messageId });
    answer(res, 503, { error: "not_counted", message: "counting failed; delivered again" });
  }
}
