// Freshness is visible: every analytics answer (console REST, MCP tools) says how far the scan consumer is
// behind (`lagSeconds`, from its instances' heartbeats) and `pending` while it catches up; the ops CLI
// prints the lag and the dead letters, peeked without taking them away. The lag here is an arrival no
// consumer instance has received: the redirect marked it published, and no heartbeat has come since
// (scans/freshness.ts); the stack's own consumer then counts it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { consoleApi } from "../helpers/consoleApi";
import { eventually } from "../helpers/poll";
import { adminCli } from "../helpers/admin";
import { projectId } from "../helpers/env";
import { arrivalOf, recordArrival } from "../../functions/src/scans/arrival";
import { HEARTBEAT_SEEN_MS, UNHEARD_MS } from "../../functions/src/scans/freshness";
import { readConsumerHeartbeats } from "../../functions/src/store/scanCounts";
import { arrivalPublishes } from "../../functions/src/store/scanStream";
import { ARRIVAL_MARKS_KEPT_MS } from "../../functions/src/store/scanArrivalMarks";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";

describe("scan freshness: analytics say when the consumer lags, and the ops CLI shows it", function () {
  this.timeout(120_000);
  let m: TestMerchant;
  let code: { codeId: string; uniqueQRCodeID: string };
  const instance = `test-${randomBytes(4).toString("hex")}`;

  /** The three answers that carry scan figures: a code's (console and MCP) and the workspace's summary. */
  const answers = async () => [
    (await consoleApi(`/codes/${code.codeId}/analytics?days=7`, m.idToken)).body,
    (await consoleApi("/analytics?days=7", m.idToken)).body,
    toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7, fields: ["totalScans"] }, m.apiKey)),
    toolResult(await callTool("svc.analytics.scan_summary", { days: 7, fields: ["totalScans"] }, m.apiKey)),
  ];

  before(async () => {
    m = await createMerchant();
    code = toolResult(await callTool("svc.qr.create", { title: "Fresh", destinationUrl: "https://fresh.example/", dynamic: true }, m.apiKey));
  });

  it("carry pending and the lag: true while an arrival waits where no consumer has received it (no heartbeat since), false once the consumer counted it", async () => {
    // Any consumer instance heard from after this test's arrival clears its lag: first the arrivals other
    // files left are done (one the consumer refuses is delivered again every second until its dead letter),
    // signalled by no instance holding one or heard from for UNHEARD_MS. The heartbeats of before this file
    // went with its cleared data, so no heartbeat at all proves nothing at first: the watch lasts at least
    // UNHEARD_MS plus the local redelivery's second and a margin, long enough for a redelivery to have beaten.
    // Nothing else publishes meanwhile.
    const watchedFrom = Date.now();
    await eventually(
      () => readConsumerHeartbeats(Date.now(), HEARTBEAT_SEEN_MS),
      (beats) => Date.now() - watchedFrom > UNHEARD_MS + 2_000 && beats.every((b) => b.inFlight === 0 && Date.now() - b.updatedAt.getTime() > UNHEARD_MS),
      { what: "the scan consumer idle", timeoutMs: 60_000, intervalMs: 250 },
    );
    for (const a of await answers()) {
      assert.equal(typeof a.pending, "boolean", JSON.stringify(a));
      assert.ok(Number.isInteger(a.lagSeconds) && a.lagSeconds >= 0, JSON.stringify(a));
    }
    // A scan whose arrival Pub/Sub took and has not pushed to any consumer (its backoff after refused pushes,
    // a consumer refused by IAM): this publish answers as Pub/Sub does and keeps the message here.
    const held: Array<{ data: Buffer; attributes: Record<string, string> }> = [];
    const publish = arrivalPublishes.publish;
    arrivalPublishes.publish = (data, attributes) => (held.push({ data, attributes }), Promise.resolve("held"));
    try {
      const arrival = await arrivalOf({ method: "GET", headers: { "user-agent": PHONE }, address: "198.51.100.77", place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: code.uniqueQRCodeID, known: { merchantId: m.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" } });
      assert.equal(await recordArrival(arrival, m.merchantId), "recorded");
    } finally {
      arrivalPublishes.publish = publish;
    }
    assert.equal(held.length, 1);
    // Watched through one answer, a second apart (the console's analytics reads are rate limited), then all read.
    const mcp = async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7, fields: ["totalScans"] }, m.apiKey));
    await eventually(mcp, (a) => a.pending === true, { what: "the answer pending", intervalMs: 1_000 });
    const lagging = await answers();
    assert.ok(lagging.every((a) => a.pending === true), JSON.stringify(lagging));
    // At least this arrival's wait; at most the marks' reach (this process's earlier arrivals count too: their
    // heartbeats went with the Firestore data cleared before this file).
    for (const a of lagging) assert.ok(a.lagSeconds >= UNHEARD_MS / 1000 && a.lagSeconds <= ARRIVAL_MARKS_KEPT_MS / 1000 + 60, JSON.stringify({ pending: a.pending, lagSeconds: a.lagSeconds }));
    const cli = await adminCli("scan-consumer");
    assert.equal(cli.pending, true);
    assert.ok(cli.lagSeconds >= UNHEARD_MS / 1000, JSON.stringify(cli));

    // Pushed at last: the consumer counts it and is heard from.
    const res = await fetch(`http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}/topics/${SCAN_STREAM.arrivals}:publish`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: held.map((h) => ({ data: h.data.toString("base64"), attributes: h.attributes })) }),
    });
    assert.equal(res.status, 200, await res.text());
    await eventually(mcp, (a) => a.pending === false && a.totalScans === 1, { what: "the scan counted and the answer not pending", intervalMs: 1_000 });
    const caughtUp = await answers();
    assert.ok(caughtUp.every((a) => a.pending === false), JSON.stringify(caughtUp));
    for (const a of caughtUp) assert.ok(a.lagSeconds < UNHEARD_MS / 1000, JSON.stringify(a.lagSeconds));
    const after = await adminCli("scan-consumer");
    assert.equal(after.pending, false, JSON.stringify(after));
    assert.ok(after.instances.length >= 1, "the instance that counted it is listed");
  });

  it("the ops CLI counts the dead letters without taking them: a second look finds them still there", async () => {
    const before = (await adminCli("scan-consumer")).deadLetters.count;
    const topic = `http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}/topics/${SCAN_STREAM.deadLetters}:publish`;
    const res = await fetch(topic, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: [1, 2].map((i) => ({ data: Buffer.from(`poisoned ${i}`).toString("base64"), attributes: { scan_id: `dead-${instance}-${i}` } })) }),
    });
    assert.equal(res.status, 200, await res.text());
    const first = await eventually(() => adminCli("scan-consumer"), (s) => s.deadLetters.count >= before + 2, { what: "the dead letters counted" });
    assert.ok(first.deadLetters.oldest?.publishTime, JSON.stringify(first.deadLetters));
    const again = await adminCli("scan-consumer");
    assert.ok(again.deadLetters.count >= before + 2, "peeking leaves them for whoever repairs them");
  });
});
