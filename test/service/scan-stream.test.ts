// The scan stream end to end: every scan made through the local front end (people, repeats, machines)
// reaches the Pub/Sub emulator's topic as a message that its Avro schema accepted, with a stable scan id,
// before its redirect answered; a scan published twice is one row after the documented de-duplication;
// and the documented queries, run on the messages, give the figures the Firestore rollups give.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { BROWSERS } from "../fixtures/user-agents";
import { pullScans, subscribeToScans, topicSchema } from "../helpers/pubsub";
import { ScanEventSchema, SCAN_EVENT_VERSION, SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { publishScanEvent, PUBLISH_BOUNDS } from "../../functions/src/store/scanStream";
import { drainOutbox } from "../../functions/src/scans/consume";
import { OUTBOX_WAIT_MS, PUBLISH_WAIT_MS } from "../../functions/src/scans/arrival";
import { documentedQueries, streamDatabase } from "../helpers/scanStreamSql";

const scan = (client: TestClient, id: string, ua: string, method = "GET") =>
  client.fetch(`${baseUrl()}/qr/${id}`, { method, redirect: "manual", headers: { "User-Agent": ua } });

describe("scan stream: every scan reaches Pub/Sub", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("people, repeats and machines are each one message the topic's schema accepted, with the consumer's count decided", async () => {
    assert.deepEqual(await topicSchema(), { schema: `projects/${process.env.GCLOUD_PROJECT}/schemas/${SCAN_STREAM.schema}`, encoding: "JSON" });
    const subscription = await subscribeToScans();
    const code = toolResult(await callTool("svc.qr.create", { title: "stream", destinationUrl: "https://example.com/stream", dynamic: true }, merchant.apiKey));
    const [alice, bob, crawler] = [newClient(), newClient(), newClient()];
    const statuses: Array<{ status: number; counted: string | null }> = [];
    const record = async (r: Response) => statuses.push({ status: r.status, counted: r.headers.get("X-Scan-Counted") });
    // Alice: first scan, then 5 more at once (a minute allows 3 more, the rest are repeats); Bob once; a machine twice.
    await record(await scan(alice, code.uniqueQRCodeID, BROWSERS[0].ua));
    for (const r of await Promise.all(Array.from({ length: 5 }, () => scan(alice, code.uniqueQRCodeID, BROWSERS[0].ua)))) await record(r);
    await record(await scan(bob, code.uniqueQRCodeID, BROWSERS[3].ua));
    await record(await scan(crawler, code.uniqueQRCodeID, BROWSERS[0].ua, "HEAD"));
    await record(await scan(crawler, code.uniqueQRCodeID, "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"));
    assert.ok(statuses.every((s) => s.status === 302), JSON.stringify(statuses));

    const messages = await pullScans(subscription, statuses.length, (m) => m.event.unique_qr_code_id === code.uniqueQRCodeID);
    assert.equal(messages.length, statuses.length, "one message per scan, none more");
    for (const m of messages) {
      assert.deepEqual(ScanEventSchema.safeParse(m.event).error, undefined);
      assert.equal(m.attributes.scan_id, m.event.scan_id);
      assert.equal(m.attributes.schema_version, String(SCAN_EVENT_VERSION));
      assert.equal(m.event.code_id, code.codeId);
      assert.equal(m.event.merchant_id, merchant.merchantId);
      // Published at arrival, beside the link read (a plain code's scan); the consumer adds its count.
      assert.equal(m.event.served_from, "arrival");
      assert.ok(m.event.counted === 0 || m.event.counted === 1);
    }
    assert.equal(new Set(messages.map((m) => m.event.scan_id)).size, messages.length, "scan ids are unique");
    const people = messages.filter((m) => m.event.kind === "person");
    const bots = messages.filter((m) => m.event.kind === "bot");
    assert.equal(people.length, 7);
    assert.deepEqual(bots.map((m) => m.event.bot_reason).sort(), ["head-request", "preview"]);
    assert.ok(bots.every((m) => m.event.visitor === null));
    assert.equal(new Set(people.map((m) => m.event.visitor)).size, 2, "two people, two visitor hashes");
    // Nothing that identifies a client travels in the stream.
    const text = JSON.stringify(messages.map((m) => m.wire));
    for (const c of [alice, bob, crawler]) assert.ok(!text.includes(c.presentedAs) && !text.includes(c.address));
    assert.ok(!text.includes(BROWSERS[0].ua));

    // A publish repeated with the same scan (what a retry after a lost answer does): two messages, one row.
    const again = people[0].event;
    await publishScanEvent(again);
    const [copy] = await pullScans(subscription, 1);
    assert.equal(copy.event.scan_id, again.scan_id);
    assert.notEqual(copy.messageId, people[0].messageId);
    const rows = [...messages, copy].map((m) => ({ ...m.event, message_id: m.messageId, publish_time: m.publishTime }));
    const { query } = await streamDatabase(rows);
    assert.deepEqual(query(`SELECT COUNT(*) AS n FROM scan_events_once WHERE scan_id = '${again.scan_id}'`), [{ n: 1 }]);

    // The documented day summary gives what the Firestore rollups give.
    const [, , summary] = documentedQueries();
    const [row] = query(summary);
    const a = toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey));
    assert.deepEqual(
      { scans: row.scans, uniqueScanners: row.unique_scanners, repeatScans: row.repeat_scans, botScans: row.bot_scans },
      { scans: a.totalScans, uniqueScanners: a.uniqueScanners, repeatScans: a.repeatScans, botScans: a.botScans.total },
    );
    // 7 people's scans: counted or repeats (how many of Alice's burst count depends on the minutes it spans).
    assert.deepEqual([a.totalScans + a.repeatScans, a.uniqueScanners, a.botScans.total], [7, 2, 2]);
    assert.ok(a.repeatScans >= 1 || a.totalScans === 7);
  });

  it("a stalled Pub/Sub holds an answer at most the publish's bound, then the outbox keeps the scan: recorded, and counted once", async () => {
    const subscription = await subscribeToScans();
    const code = toolResult(await callTool("svc.qr.create", { title: "stalled stream", destinationUrl: "https://example.com/stalled", dynamic: true }, merchant.apiKey));
    assert.equal((await scan(newClient(), code.uniqueQRCodeID, BROWSERS[0].ua)).status, 302); // a warm instance and Pub/Sub client
    // The Pub/Sub emulator stopped in its tracks: connections are accepted and nothing is answered.
    const port = (process.env.PUBSUB_EMULATOR_HOST ?? "").split(":").pop();
    const listener = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
    const pid = Number(/pid=(\d+)/.exec(listener)?.[1]);
    assert.ok(pid > 0, `the Pub/Sub emulator's process: ${listener}`);
    process.kill(pid, "SIGSTOP");
    let answer: Response;
    let ms: number;
    try {
      const started = performance.now();
      answer = await scan(newClient(), code.uniqueQRCodeID, BROWSERS[1].ua);
      ms = performance.now() - started;
    } finally {
      process.kill(pid, "SIGCONT");
    }
    assert.equal(answer.status, 302);
    // The answer waited for the publish's bound (the library gives up first: PUBLISH_BOUNDS), then for the outbox write: recorded all the same.
    assert.equal(answer.headers.get("x-scan-counted"), "recorded");
    assert.ok(ms >= PUBLISH_BOUNDS.arrivals.totalMs && ms < PUBLISH_WAIT_MS + OUTBOX_WAIT_MS, `answered after ${Math.round(ms)} ms`);
    // The outbox copy is the scan's record: the consumer counts it (drained here; the next push would too)
    // and both scans reach the stream once the emulator runs again.
    await drainOutbox();
    const messages = await pullScans(subscription, 2, (m) => m.event.unique_qr_code_id === code.uniqueQRCodeID);
    assert.equal(new Set(messages.map((m) => m.event.scan_id)).size, 2);
  });
});
