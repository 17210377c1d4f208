// The scan consumer (functions/src/scans/consume.ts) once a batch's count has committed: a failure of a later
// step (the stream publish, the webhook enqueue) is retried by that step alone, never by counting again; what
// it drops (taken-down codes, codes that had rules at the scan's time) and what waits in the outbox (paged,
// dropped entries deleted, one entry drained by several instances counted once, its notice queued).
import assert from "node:assert/strict";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { arrivalOf, recordArrival, type KnownCode } from "../../functions/src/scans/arrival";
import { afterCount, consumeArrival, consumeHeld, drainOutbox, REPEATS_PER_MINUTE, scanNotices, type NoticeSink } from "../../functions/src/scans/consume";
import { arrivalPublishes } from "../../functions/src/store/scanStream";
import { setTakenDown } from "../../functions/src/store/codes";
import { startConsumerInstance } from "../helpers/consumerInstance";
import { eventually } from "../helpers/poll";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const CRAWLER = "facebookexternalhit/1.1";
const place = { country: "US", state: "Oregon", city: "Portland" };
const unavailable = () => Object.assign(new Error("14 UNAVAILABLE: away for a moment"), { code: 14 });

describe("scan consumer: after the commit, drops and the outbox", function () {
  this.timeout(90_000);
  let merchant: TestMerchant;
  const newCode = async (title: string) => {
    const code = toolResult(await callTool("svc.qr.create", { title, destinationUrl: `https://example.com/${title}`, dynamic: true }, merchant.apiKey)) as { codeId: string; uniqueQRCodeID: string };
    return { ...code, known: { merchantId: merchant.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" } as KnownCode };
  };
  const analytics = async (codeId: string) => toolResult(await callTool("svc.qr.get_analytics", { codeId, days: 1 }, merchant.apiKey));
  const scanOf = (code: { uniqueQRCodeID: string; known?: KnownCode }, address: string, at = new Date(), ua = PHONE, known = true) =>
    arrivalOf({ method: "GET", headers: { "user-agent": ua }, address, place, at, uniqueQRCodeID: code.uniqueQRCodeID, ...(known ? { known: code.known } : {}) });
  /** Writes arrivals to the outbox as the redirect does when its publish fails. */
  const throughOutbox = async (arrivals: Array<Awaited<ReturnType<typeof scanOf>>>) => {
    const publish = arrivalPublishes.publish;
    arrivalPublishes.publish = () => Promise.reject(unavailable());
    try {
      for (const a of arrivals) assert.equal(await recordArrival(a, merchant.merchantId), "recorded");
    } finally {
      arrivalPublishes.publish = publish;
    }
  };
  const inOutbox = async (scanId: string) => (await firestore().collection("scanOutbox").doc(scanId).get()).exists;

  before(async () => {
    merchant = await createMerchant();
  });

  it("a stream publish that fails after the count committed is tried again alone: machines and repeats count once", async () => {
    const code = await newCode("after-commit");
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    // One person's scans of one minute (a first scan, REPEATS_PER_MINUTE slots, two repeats) and a crawler's.
    const scans = [
      ...(await Promise.all(Array.from({ length: REPEATS_PER_MINUTE + 3 }, (_, i) => scanOf(code, "198.51.100.60", new Date(minute + i * 10))))),
      await scanOf(code, "198.51.100.61", new Date(minute + 100), CRAWLER),
    ];
    // The stream publish fails for every scan of the first round, and once more for the crawler's held push.
    let failing = true;
    let failNext = 0;
    let publishes = 0;
    const publish = afterCount.publish;
    afterCount.publish = (event) => (publishes++, failing || failNext-- > 0 ? Promise.reject(unavailable()) : publish(event));
    try {
      const delivery = (a: (typeof scans)[number]) => ({ data: a.data, attributes: a.attributes });
      // All at once (a batch that fails, then each tried alone), each failing after its commit...
      const first = await Promise.all(scans.map((a) => consumeArrival(delivery(a)).then(() => "ok", (e: Error) => e.message)));
      assert.ok(first.every((r) => /UNAVAILABLE/.test(r)), JSON.stringify(first));
      failing = false;
      // ...then delivered again, as Pub/Sub does; the crawler's push held by the instance through one more failure.
      for (const a of scans.slice(0, -1)) assert.notEqual((await consumeArrival(delivery(a))).outcome, "dropped");
      failNext = 1;
      assert.deepEqual((await consumeHeld(delivery(scans[scans.length - 1]), 20_000)).outcome, { counted: false, reason: "preview" });
    } finally {
      afterCount.publish = publish;
    }
    assert.ok(publishes >= 2 * scans.length + 1, `${publishes} publishes`);
    const a = await analytics(code.codeId);
    assert.equal(a.totalScans, 1 + REPEATS_PER_MINUTE, JSON.stringify(a));
    assert.equal(a.uniqueScanners, 1);
    assert.equal(a.repeatScans, 2, "each repeat counted once");
    assert.equal(a.botScans.total, 1, "the crawler's scan counted once");
  });

  it("a webhook enqueue that fails for one subscription after the commit queues only that one again, and counts nothing again", async () => {
    const code = await newCode("notice-retry");
    await firestore().collection("links").doc(code.uniqueQRCodeID).update({ webhookIds: ["w-ok", "w-flaky"], machineWebhookIds: ["w-ok", "w-flaky"] });
    const calls: Array<{ scanId: string; before: string[] }> = [];
    const sink: NoticeSink = async (notice, _outcome, queued) => {
      calls.push({ scanId: notice.scanId, before: [...queued].sort() });
      for (const id of notice.link.webhookIds ?? []) {
        if (queued.has(id)) continue;
        if (id === "w-flaky" && calls.length === 1) throw unavailable();
        queued.add(id);
      }
    };
    const saved = scanNotices.queue;
    scanNotices.queue = sink;
    try {
      const bot = await scanOf(code, "198.51.100.62", new Date(), CRAWLER);
      await assert.rejects(consumeArrival({ data: bot.data, attributes: bot.attributes }), /UNAVAILABLE/);
      assert.deepEqual((await consumeArrival({ data: bot.data, attributes: bot.attributes })).outcome, { counted: false, reason: "preview" });
      assert.deepEqual(calls, [
        { scanId: bot.scanId, before: [] },
        { scanId: bot.scanId, before: ["w-ok"] },
      ]);
    } finally {
      scanNotices.queue = saved;
    }
    assert.equal((await analytics(code.codeId)).botScans.total, 1);
  });

  it("a scan of a code taken down is dropped: never counted, no one told", async () => {
    const code = await newCode("taken-down");
    await setTakenDown(code.uniqueQRCodeID, { reason: "phishing", at: new Date().toISOString(), reportId: null });
    const saved = scanNotices.queue;
    let told = 0;
    scanNotices.queue = async () => void told++;
    try {
      for (const a of [await scanOf(code, "198.51.100.63"), await scanOf(code, "198.51.100.64", new Date(), PHONE, false), await scanOf(code, "198.51.100.65", new Date(), CRAWLER)]) {
        assert.deepEqual(await consumeArrival({ data: a.data, attributes: a.attributes }), { outcome: "dropped" });
      }
    } finally {
      scanNotices.queue = saved;
    }
    const a = await analytics(code.codeId);
    assert.equal(a.totalScans + a.repeatScans + a.botScans.total, 0, JSON.stringify(a));
    assert.equal(told, 0);
  });

  it("an arrival published before its redirect read the code is judged by the rules the code had at the scan's time", async () => {
    const code = await newCode("rules-later");
    const setRules = async (rules: unknown[]) => toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules } }, merchant.apiKey));
    const deliver = async (a: Awaited<ReturnType<typeof scanOf>>) => (await consumeArrival({ data: a.data, attributes: a.attributes })).outcome;
    // Scanned while the code was plain; its rules came before the consumer read it: the scan (302'd) is counted.
    const before = await scanOf(code, "198.51.100.66", new Date(), PHONE, false);
    await setRules([{ when: { country: ["AQ"] }, then: { type: "redirect", url: "https://example.com/aq" } }]);
    assert.deepEqual(await deliver(before), { counted: true, unique: true });
    // Scanned while it had rules, counted after they were removed: its redirect answered it by the rules
    // (an arrival of its own), so this one is dropped.
    const during = await scanOf(code, "198.51.100.67", new Date(), PHONE, false);
    await setRules([]);
    assert.equal(await deliver(during), "dropped");
    // Scanned after they were removed: counted.
    assert.deepEqual(await deliver(await scanOf(code, "198.51.100.68", new Date(), PHONE, false)), { counted: true, unique: true });
    assert.equal((await analytics(code.codeId)).totalScans, 2);
  });

  it("the outbox: a drained scan's notice is queued (left for a consumer instance when none can queue it); dropped and poisoned entries are deleted", async () => {
    const code = await newCode("outbox-notice");
    await firestore().collection("links").doc(code.uniqueQRCodeID).update({ webhookIds: ["w-outbox"] });
    const gone = await newCode("outbox-dropped");
    await setTakenDown(gone.uniqueQRCodeID, { reason: "phishing", at: new Date().toISOString(), reportId: null });
    const scan = await scanOf(code, "198.51.100.70");
    const dropped = await scanOf(gone, "198.51.100.71");
    await throughOutbox([scan, dropped]);
    const poisoned = `poison-${Date.now()}`;
    await firestore().collection("scanOutbox").doc(poisoned).set({ data: Buffer.from("not an arrival"), attributes: {}, expiresAt: new Date(Date.now() + 86_400_000) });
    const saved = scanNotices.queue;
    try {
      // The maintenance job's drain: no one there can queue a notice, so the scan waits for an instance.
      scanNotices.queue = undefined;
      await drainOutbox();
      assert.equal(await inOutbox(scan.scanId), true, "left for a consumer instance");
      assert.equal(await inOutbox(dropped.scanId), false, "a scan of a code taken down: dropped and deleted");
      assert.equal(await inOutbox(poisoned), false, "an entry that can never be counted: deleted");
      const told: Array<{ scanId: string; outcome: unknown }> = [];
      scanNotices.queue = async (notice, outcome, queued) => {
        told.push({ scanId: notice.scanId, outcome });
        queued.add("w-outbox");
      };
      assert.ok((await drainOutbox()) >= 1);
      assert.deepEqual(told, [{ scanId: scan.scanId, outcome: { counted: true, unique: true } }]);
      assert.equal(await inOutbox(scan.scanId), false);
    } finally {
      scanNotices.queue = saved;
    }
    assert.equal((await analytics(code.codeId)).uniqueScanners, 1);
  });

  it("the same outbox entries drained by two instances and this process at once are counted once", async () => {
    const code = await newCode("double-drain");
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const scans = [
      ...(await Promise.all(Array.from({ length: REPEATS_PER_MINUTE + 3 }, (_, i) => scanOf(code, "198.51.100.80", new Date(minute + i * 10))))),
      ...(await Promise.all(Array.from({ length: 6 }, (_, i) => scanOf(code, `198.51.100.${81 + i}`, new Date(minute + 200 + i), CRAWLER)))),
      ...(await Promise.all(Array.from({ length: 6 }, (_, i) => scanOf(code, `198.51.100.${90 + i}`, new Date(minute + 300 + i))))),
    ];
    await throughOutbox(scans);
    // Each instance drains the outbox on its first push (redirect/scanConsumer.ts): one push each, at once.
    const instances = await Promise.all([startConsumerInstance({}), startConsumerInstance({})]);
    try {
      const other = await newCode("double-drain-push");
      const push = await scanOf(other, "198.51.100.99");
      await Promise.all([...instances.map((i) => i.publish([{ data: push.data, attributes: push.attributes }])), drainOutbox()]);
      await eventually(async () => (await Promise.all(scans.map((s) => inOutbox(s.scanId)))).some(Boolean), (left) => !left, { timeoutMs: 60_000, what: "the outbox drained" });
      await eventually(async () => Promise.all(instances.map((i) => i.stats())), (stats) => stats.every((s) => s.pushes >= 1 && Object.values(s.answers).reduce((a, b) => a + b, 0) === s.pushes), { what: "every push answered" });
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
    const a = await analytics(code.codeId);
    assert.equal(a.totalScans, 1 + REPEATS_PER_MINUTE + 6, JSON.stringify(a));
    assert.equal(a.uniqueScanners, 7);
    assert.equal(a.repeatScans, 2, "each repeat counted once");
    assert.equal(a.botScans.total, 6, "each crawler's scan counted once");
  });
});
