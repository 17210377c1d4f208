// The dead letters' replay (`npm run admin -- scan-consumer --replay`, scripts/lib/scanReplay.ts) against
// the Pub/Sub emulator: dead-lettered arrivals go back to the arrivals topic without Pub/Sub's dead-letter
// attributes, the consumer counts them, and a message is acknowledged only once its publish succeeded (a
// failed one stays in the dead letters). The test's own dead-letter topic and subscription stand in for
// scan-arrivals-dead and its kept subscription, which other tests' poisoned messages share.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { countedAnalytics } from "../helpers/scans";
import { projectId } from "../helpers/env";
import { eventually } from "../helpers/poll";
import { arrivalOf } from "../../functions/src/scans/arrival";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { replayDeadLetters } from "../../scripts/lib/scanReplay";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";

async function pubsub(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`Pub/Sub emulator ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** What a subscription holds now: pulled and handed straight back (or acknowledged, with `take`). */
async function held(subscription: string, take = false): Promise<any[]> {
  // returnImmediately: an empty subscription answers at once (the emulator otherwise holds the pull open).
  const { receivedMessages = [] } = await pubsub("POST", `/subscriptions/${subscription}:pull`, { maxMessages: 100, returnImmediately: true });
  const ackIds = receivedMessages.map((m: any) => m.ackId);
  if (ackIds.length) await pubsub("POST", `/subscriptions/${subscription}:${take ? "acknowledge" : "modifyAckDeadline"}`, take ? { ackIds } : { ackIds, ackDeadlineSeconds: 0 });
  return receivedMessages.map((m: any) => m.message);
}

describe("scan consumer: the dead letters' replay", function () {
  this.timeout(60_000);
  const suffix = randomBytes(4).toString("hex");
  const dead = { topic: `test-dead-${suffix}`, subscription: `test-dead-kept-${suffix}` };
  const watch = `test-arrivals-${suffix}`;
  let merchant: TestMerchant;
  let code: { codeId: string; uniqueQRCodeID: string };

  before(async () => {
    merchant = await createMerchant();
    code = toolResult(await callTool("svc.qr.create", { title: "replayed", destinationUrl: "https://example.com/replayed", dynamic: true }, merchant.apiKey));
    await pubsub("PUT", `/topics/${dead.topic}`, {});
    await pubsub("PUT", `/subscriptions/${dead.subscription}`, { topic: `projects/${projectId()}/topics/${dead.topic}`, ackDeadlineSeconds: 60 });
    // Sees what the replay publishes to the arrivals topic (beside the consumer's push subscription).
    await pubsub("PUT", `/subscriptions/${watch}`, { topic: `projects/${projectId()}/topics/${SCAN_STREAM.arrivals}`, ackDeadlineSeconds: 60 });
  });
  after(async () => {
    for (const path of [`/subscriptions/${dead.subscription}`, `/subscriptions/${watch}`, `/topics/${dead.topic}`]) await pubsub("DELETE", path).catch(() => undefined);
  });

  it("publishes each dead letter again (without the dead-letter attributes), acknowledges it only once published, and the consumer counts it", async () => {
    const arrivals = await Promise.all(
      ["198.51.100.70", "198.51.100.71"].map((address) =>
        arrivalOf({ method: "GET", headers: { "user-agent": PHONE }, address, place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: code.uniqueQRCodeID, known: { merchantId: merchant.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" } }),
      ),
    );
    // As Pub/Sub moves a message to the dead letters: its own attributes and the CloudPubSubDeadLetter* ones.
    const deadLettered = (a: (typeof arrivals)[number]) => ({ data: a.data.toString("base64"), attributes: { ...a.attributes, CloudPubSubDeadLetterSourceSubscription: SCAN_STREAM.consumer, CloudPubSubDeadLetterSourceDeliveryCount: "25" } });
    await pubsub("POST", `/topics/${dead.topic}:publish`, { messages: arrivals.map(deadLettered) });

    // A publish that fails (no such topic) acknowledges nothing: both stay in the dead letters.
    const failed = await replayDeadLetters(projectId(), 100, { subscription: dead.subscription, topic: `no-such-topic-${suffix}` });
    assert.equal(failed.replayed, 0);
    assert.equal(failed.failed, 2);
    assert.match(failed.error ?? "", /NOT_FOUND|not found/i);
    assert.deepEqual((await held(dead.subscription)).map((m) => m.attributes.scan_id).sort(), arrivals.map((a) => a.scanId).sort());

    const replayed = await replayDeadLetters(projectId(), 100, { subscription: dead.subscription, topic: SCAN_STREAM.arrivals });
    assert.deepEqual(replayed, { replayed: 2, failed: 0 });
    assert.deepEqual(await held(dead.subscription), [], "acknowledged once published");
    const republished: any[] = [];
    await eventually(async () => republished.push(...(await held(watch, true))), () => republished.length >= 2, { what: "the replayed arrivals on the arrivals topic" });
    assert.deepEqual(
      republished.map((m) => ({ data: m.data, attributes: m.attributes })).sort((x, y) => x.attributes.scan_id.localeCompare(y.attributes.scan_id)),
      arrivals.map((a) => ({ data: a.data.toString("base64"), attributes: a.attributes })).sort((x, y) => x.attributes.scan_id.localeCompare(y.attributes.scan_id)),
      "the arrival as the redirect published it",
    );
    const figures = await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)), 2);
    assert.equal(figures.totalScans, 2);
    assert.equal(figures.uniqueScanners, 2);
  });
});
