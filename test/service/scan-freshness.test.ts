// Freshness is visible: every analytics answer (console REST, MCP tools) says how far the scan consumer is
// behind (`lagSeconds`, from its instances' heartbeats) and `pending` while it catches up; the ops CLI
// prints the lag and the dead letters, peeked without taking them away. A lagging consumer is a heartbeat
// document as a consumer instance holding old arrivals writes it (store/scanCounts.ts).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { consoleApi } from "../helpers/consoleApi";
import { eventually } from "../helpers/poll";
import { adminCli } from "../helpers/admin";
import { projectId } from "../helpers/env";
import { writeConsumerHeartbeat } from "../../functions/src/store/scanCounts";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";

describe("scan freshness: analytics say when the consumer lags, and the ops CLI shows it", function () {
  this.timeout(120_000);
  let m: TestMerchant;
  let codeId: string;
  const instance = `test-${randomBytes(4).toString("hex")}`;
  const heartbeat = () => firestore().collection("scanConsumers").doc(instance);

  /** The three answers that carry scan figures: a code's (console and MCP) and the workspace's summary. */
  const answers = async () => [
    (await consoleApi(`/codes/${codeId}/analytics?days=7`, m.idToken)).body,
    (await consoleApi("/analytics?days=7", m.idToken)).body,
    toolResult(await callTool("svc.qr.get_analytics", { codeId, days: 7, fields: ["totalScans"] }, m.apiKey)),
    toolResult(await callTool("svc.analytics.scan_summary", { days: 7, fields: ["totalScans"] }, m.apiKey)),
  ];

  before(async () => {
    m = await createMerchant();
    codeId = toolResult(await callTool("svc.qr.create", { title: "Fresh", destinationUrl: "https://fresh.example/", dynamic: true }, m.apiKey)).codeId;
  });
  after(() => heartbeat().delete());

  it("carry pending and the lag: false and small while the consumer keeps up, true while an instance holds arrivals a minute old", async () => {
    for (const a of await answers()) {
      assert.equal(typeof a.pending, "boolean", JSON.stringify(a));
      assert.ok(Number.isInteger(a.lagSeconds) && a.lagSeconds >= 0, JSON.stringify(a));
    }
    // An instance that has held arrivals for 90 s (a Firestore outage, a backlog).
    await writeConsumerHeartbeat(instance, { watermark: new Date(Date.now() - 90_000), inFlight: 40 });
    const lagging = await eventually(answers, (all) => all.every((a) => a.pending === true), { what: "every answer pending" });
    for (const a of lagging) assert.ok(a.lagSeconds >= 90 && a.lagSeconds < 300, JSON.stringify({ pending: a.pending, lagSeconds: a.lagSeconds }));

    const cli = await adminCli("scan-consumer");
    assert.equal(cli.pending, true);
    assert.ok(cli.lagSeconds >= 90);
    assert.ok(cli.instances.some((i: any) => i.instance === instance && i.inFlight === 40 && i.lagSeconds >= 90), JSON.stringify(cli.instances));

    // Caught up: it holds nothing, and its watermark is its beat.
    await writeConsumerHeartbeat(instance, { watermark: new Date(), inFlight: 0 });
    const caughtUp = await eventually(answers, (all) => all.every((a) => a.pending === false), { what: "no answer pending" });
    for (const a of caughtUp) assert.ok(a.lagSeconds < 90, JSON.stringify(a.lagSeconds));
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
