// The scan consumer (functions/src/scans/consume.ts) behind the Pub/Sub emulator's own push, redelivery and
// dead-letter policy: an arrival published twice counts once (asserted once every push is answered), an arrival whose publish fails is kept in the
// outbox and counted from there, a message that can never be counted reaches the dead-letter topic, and a
// consumer whose Firestore writes fail for a while loses nothing and catches up.
import assert from "node:assert/strict";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { arrivalCounts, arrivalOf, recordArrival } from "../../functions/src/scans/arrival";
import { drainOutbox, REPEATS_PER_MINUTE } from "../../functions/src/scans/consume";
import { arrivalPublishes } from "../../functions/src/store/scanStream";
import { outboxWrites } from "../../functions/src/store/scanOutbox";
import { CONSUMER_DELIVERY, SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { countedAnalytics } from "../helpers/scans";
import { eventually } from "../helpers/poll";
import { projectId } from "../helpers/env";
import { scaled } from "../helpers/scale";
import { startFirestoreProxy, type FirestoreProxy } from "../helpers/firestoreProxy";
import { startConsumerInstance, type ConsumerInstance } from "../helpers/consumerInstance";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const emulator = () => `http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}`;

async function pubsub(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emulator()}${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`Pub/Sub emulator ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

describe("scan consumer: redelivery, outbox and dead letters", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;
  let code: { codeId: string; uniqueQRCodeID: string };
  let repeated: { codeId: string; uniqueQRCodeID: string };
  const analytics = async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey));
  const arrival = (address: string) =>
    arrivalOf({ method: "GET", headers: { "user-agent": PHONE }, address, place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: code.uniqueQRCodeID, known: { merchantId: merchant.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" } });

  // Consumer instances of this file's own, started once while the workspace is made: one the redelivery
  // tests publish to in turn, one behind a Firestore proxy for the outage.
  let consumer: ConsumerInstance;
  let proxy: FirestoreProxy;
  let outageConsumer: ConsumerInstance;
  const OUTAGE_MS = scaled(30_000, 8_000);

  before(async () => {
    const started = Promise.all([
      startConsumerInstance({}),
      startFirestoreProxy().then(async (p) => [p, await startConsumerInstance({ FIRESTORE_EMULATOR_HOST: p.host, CONSUMER_HOLD_MS: String(OUTAGE_MS / 4) })] as const),
    ]);
    void started.catch(() => undefined); // awaited below
    merchant = await createMerchant();
    code = toolResult(await callTool("svc.qr.create", { title: "c", destinationUrl: "https://example.com/consumer", dynamic: true }, merchant.apiKey));
    repeated = toolResult(await callTool("svc.qr.create", { title: "r", destinationUrl: "https://example.com/repeats", dynamic: true }, merchant.apiKey));
    [consumer, [proxy, outageConsumer]] = await started;
  });
  after(async () => {
    await Promise.all([consumer?.stop(), outageConsumer?.stop()]);
    await proxy?.close();
  });

  /** Publishes to the file's consumer instance and waits until it has answered every push of them (redeliveries too). */
  const publishAndSettle = async (messages: Array<{ data: Buffer; attributes: Record<string, string> }>) => {
    const before = (await consumer.stats()).answers[204] ?? 0;
    await consumer.publish(messages);
    return eventually(
      () => consumer.stats(),
      (s) => (s.answers[204] ?? 0) - before >= messages.length && Object.values(s.answers).reduce((a, b) => a + b, 0) === s.pushes,
      { timeoutMs: 60_000, what: `every push of ${messages.length} answered`, intervalMs: 50 },
    );
  };

  it("an arrival delivered twice by Pub/Sub (published twice, one scan id) counts one person, one unique", async () => {
    const a = await arrival("198.51.100.20");
    const b = await arrival("198.51.100.21");
    const stats = await publishAndSettle([a, a, b]);
    const figures = await analytics();
    assert.equal(figures.totalScans, 2, JSON.stringify({ figures, stats }));
    assert.equal(figures.uniqueScanners, 2);
  });

  it("one person's scans of one minute, each delivered twice: the first unique, the next REPEATS_PER_MINUTE counted once each, the rest repeats", async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const scans = await Promise.all(
      Array.from({ length: REPEATS_PER_MINUTE + 3 }, (_, i) =>
        arrivalOf({ method: "GET", headers: { "user-agent": PHONE }, address: "198.51.100.40", place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(minute + i * 10), uniqueQRCodeID: repeated.uniqueQRCodeID, known: { merchantId: merchant.merchantId, codeId: repeated.codeId, campaign: null, timeZone: "UTC" } }),
      ),
    );
    const stats = await publishAndSettle([...scans, ...scans]);
    const a = toolResult(await callTool("svc.qr.get_analytics", { codeId: repeated.codeId, days: 1 }, merchant.apiKey));
    assert.equal(a.totalScans, 1 + REPEATS_PER_MINUTE, JSON.stringify({ a, stats }));
    assert.equal(a.uniqueScanners, 1);
    // Every copy answered by one instance: a second copy of a repeat is known counted (scans/consume.ts committed).
    assert.equal(a.repeatScans, 2, `${a.repeatScans} repeats`);
  });

  it("an arrival whose publish fails is written to the outbox, answered recorded, and counted from there; with the outbox failing too it is unknown", async () => {
    const publish = arrivalPublishes.publish;
    const create = outboxWrites.create;
    arrivalPublishes.publish = () => Promise.reject(Object.assign(new Error("14 UNAVAILABLE: Pub/Sub is away"), { code: 14 }));
    const before = { ...arrivalCounts };
    try {
      const a = await arrival("198.51.100.30");
      assert.equal(await recordArrival(a, merchant.merchantId), "recorded");
      assert.equal(arrivalCounts.outbox, before.outbox + 1);
      assert.equal((await firestore().collection("scanOutbox").doc(a.scanId).get()).exists, true);
      outboxWrites.create = () => Promise.reject(new Error("14 UNAVAILABLE: Firestore is away too"));
      assert.equal(await recordArrival(await arrival("198.51.100.31"), merchant.merchantId), "unknown");
      assert.equal(arrivalCounts.unknown, before.unknown + 1);
      outboxWrites.create = create;
      assert.ok((await drainOutbox()) >= 1);
      assert.equal((await firestore().collection("scanOutbox").doc(a.scanId).get()).exists, false, "deleted in the transaction that counted it");
      const figures = await analytics();
      assert.equal(figures.totalScans, 3);
      assert.equal(figures.uniqueScanners, 3);
    } finally {
      arrivalPublishes.publish = publish;
      outboxWrites.create = create;
    }
  });

  it("a message that can never be counted is delivered again by the emulator, then reaches the dead-letter topic", async () => {
    const poison = Buffer.from(`not an arrival ${Date.now()}`).toString("base64");
    await pubsub("POST", `/topics/${SCAN_STREAM.arrivals}:publish`, { messages: [{ data: poison }] });
    const dead = await eventually<any>(
      async () => {
        // returnImmediately: the emulator holds a pull of an empty subscription for about 90 s otherwise.
        const { receivedMessages = [] } = await pubsub("POST", `/subscriptions/${SCAN_STREAM.deadLetterSubscription}:pull`, { maxMessages: 100, returnImmediately: true });
        if (receivedMessages.length) await pubsub("POST", `/subscriptions/${SCAN_STREAM.deadLetterSubscription}:acknowledge`, { ackIds: receivedMessages.map((m: any) => m.ackId) });
        return receivedMessages.find((m: any) => m.message.data === poison);
      },
      Boolean,
      { timeoutMs: 40_000, intervalMs: 200, what: "the poisoned message on the dead-letter topic" },
    );
    assert.equal(dead.message.attributes.CloudPubSubDeadLetterSourceSubscription, SCAN_STREAM.consumer);
    assert.equal(Number(dead.message.attributes.CloudPubSubDeadLetterSourceDeliveryCount), CONSUMER_DELIVERY.local.maxAttempts);
  });

  // 30 s at full size (8 s at a tenth: still about 3 deliveries of each arrival). Each commit times out (DEADLINE_EXCEEDED: the SDK does not re-send it; a refused one,
  // UNAVAILABLE, it re-sends for as long as the outage lasts, holding the push). The instance holds a failing
  // push a quarter of the outage (deployed: 45 s, which would outlast it), so its pushes are answered as
  // failures and Pub/Sub delivers them again (about 3 times each, below the local dead-letter policy's 5):
  // only Pub/Sub's redelivery carries the arrivals through.
  it(`a consumer whose writes fail for ${OUTAGE_MS / 1000} s loses nothing to the dead letters, is delivered again by Pub/Sub, and catches up within seconds`, async function () {
    this.timeout(OUTAGE_MS + 60_000);
    const consumer = outageConsumer;
    try {
      const outage = toolResult(await callTool("svc.qr.create", { title: "outage", destinationUrl: "https://example.com/outage", dynamic: true }, merchant.apiKey));
      const scanOf = (address: string, ua = PHONE) =>
        arrivalOf({ method: "GET", headers: { "user-agent": ua }, address, place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: outage.uniqueQRCodeID, known: { merchantId: merchant.merchantId, codeId: outage.codeId, campaign: null, timeZone: "UTC" } });
      const people = scaled(40, 8);
      let refused = 0;
      proxy.rule = (r) => (r.method === "commit" ? (refused++, "time-out") : "pass");
      const started = Date.now();
      // Half the arrivals come as the writes start failing, half midway through the outage.
      const half = Math.floor(people / 2);
      await consumer.publish([...(await Promise.all(Array.from({ length: half }, (_, i) => scanOf(`198.51.100.${100 + i}`)))), await scanOf("198.51.100.99", "facebookexternalhit/1.1")]);
      await eventually(async () => Date.now() - started, (ms) => ms >= OUTAGE_MS / 2, { timeoutMs: OUTAGE_MS, intervalMs: 250, what: "midway through the outage" });
      await consumer.publish([...(await Promise.all(Array.from({ length: people - half }, (_, i) => scanOf(`198.51.100.${100 + half + i}`)))), await scanOf("198.51.100.98", "facebookexternalhit/1.1")]);
      await eventually(async () => Date.now() - started, (ms) => ms >= OUTAGE_MS, { timeoutMs: OUTAGE_MS, intervalMs: 250, what: "the end of the outage" });
      assert.ok(refused > 0, "the consumer tried to write during the outage");
      proxy.rule = () => "pass";
      const ended = Date.now();
      const figures = await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: outage.codeId, days: 1 }, merchant.apiKey)), people + 2);
      const catchUp = Date.now() - ended;
      assert.equal(figures.totalScans, people);
      assert.equal(figures.uniqueScanners, people);
      assert.equal(figures.botScans.total, 2);
      assert.equal(await consumer.deadLetters(), 0, "nothing reached the dead letters");
      const { pushes, redeliveries, answers } = await consumer.stats();
      assert.ok(redeliveries > 0 && (answers[503] ?? 0) > 0, `pushes answered as failures and delivered again by Pub/Sub (${pushes} pushes, ${redeliveries} redeliveries, answers ${JSON.stringify(answers)})`);
      assert.ok(catchUp < 10_000, `caught up ${catchUp} ms after the outage ended`);
    } finally {
      proxy.rule = () => "pass";
    }
  });
});
