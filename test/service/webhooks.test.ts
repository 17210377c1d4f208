import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { readFileSync } from "node:fs";
import { appUrl, baseUrl, functionsUrl } from "../helpers/env";
import { sealTask } from "../../functions/src/core/taskSeal";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, signUp, type TestMerchant } from "../helpers/merchants";
import { addMember, removeMember } from "../../functions/src/store/workspaces";
import { revokeApiKey } from "../../functions/src/store/apiKeys";
import { newClient } from "../helpers/clients";
import { consoleAs } from "../helpers/consoleApi";
import { eventually } from "../helpers/poll";
import { DISABLE_AFTER_FAILURES } from "../../functions/src/webhooks/deliver";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

interface Received {
  id: string;
  body: string;
  headers: IncomingHttpHeaders;
  verified: boolean;
  at: number;
}

/** A receiver on loopback that verifies every request with the standardwebhooks library. */
class Receiver {
  requests: Received[] = [];
  /** Answer 500 to this many requests first. */
  failFirst = 0;
  /** Hold each request this long before answering (a slow receiver). */
  holdMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  secrets: string[] = [];
  private server: Server;
  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      res.on("close", () => this.inFlight--);
      req.on("data", (c: Buffer) => chunks.push(c));
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- nothing in it rejects (the hold is a timer)
      req.on("end", async () => {
        if (this.holdMs) await new Promise((r) => setTimeout(r, this.holdMs));
        const body = Buffer.concat(chunks).toString("utf8");
        const verified = this.secrets.some((s) => {
          try {
            new Webhook(s).verify(body, req.headers as Record<string, string>);
            return true;
          } catch {
            return false;
          }
        });
        this.requests.push({ id: String(req.headers["webhook-id"]), body, headers: req.headers, verified, at: Date.now() });
        if (this.failFirst > 0) {
          this.failFirst--;
          res.writeHead(500).end("not yet");
        } else res.writeHead(verified ? 204 : 401).end();
      });
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  close() {
    this.server.close();
  }
  /** Verified messages, once each by webhook-id (the receiver deduplicates). */
  messages(): Array<{ id: string; event: any }> {
    const seen = new Map<string, any>();
    for (const r of this.requests) if (r.verified && !seen.has(r.id)) seen.set(r.id, JSON.parse(r.body));
    return [...seen].map(([id, event]) => ({ id, event }));
  }
  async until(what: string, ok: () => boolean, ms = 60_000) {
    await eventually(() => this.requests.length, () => ok(), { timeoutMs: ms, intervalMs: 100, what: `receiver: ${what} (requests so far)` });
  }
}

const tool = async (merchant: TestMerchant, name: string, args: unknown) => toolResult(await callTool(name, args, merchant.apiKey));

describe("signed scan webhooks", function () {
  this.timeout(180_000);
  const client = newClient();
  let merchant: TestMerchant;
  let receiver: Receiver;
  let url: string;
  beforeEach(async () => {
    merchant = await createMerchant();
    receiver = new Receiver();
    url = await receiver.listen();
  });
  afterEach(() => receiver.close());

  const scan = (id: string) => client.fetch(`${baseUrl()}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": PHONE } });

  it("delivers every event of a run exactly once by webhook-id, verified, after the receiver answered 500 to the first three attempts", async () => {
    const spring = await tool(merchant, "svc.qr.create", { title: "table", destinationUrl: "https://example.com/a", dynamic: true, campaign: "spring" });
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["scan.created", "code.created", "code.updated"] });
    assert.match(created.webhookId, /^wh_/);
    assert.match(created.secret, /^whsec_/);
    receiver.secrets = [created.secret];
    receiver.failFirst = 3;
    const later = await tool(merchant, "svc.qr.create", { title: "window", destinationUrl: "https://example.com/b", dynamic: true });
    await tool(merchant, "svc.qr.update", { codeId: spring.codeId, title: "table 4" });
    for (const id of [spring.uniqueQRCodeID, later.uniqueQRCodeID, spring.uniqueQRCodeID]) assert.equal((await scan(id)).status, 302);
    const scansOf = () => receiver.messages().filter((m) => m.event.type === "scan.created").flatMap((m) => m.event.data.scans);
    await receiver.until("3 scans, a code.created and a code.updated", () => scansOf().length >= 3 && receiver.messages().length >= 3);
    // Settled, not slept on: everything expected has arrived, every delivery the service logged has
    // succeeded, and the receiver holds exactly those webhook-ids.
    const typesIn = () => new Set(receiver.messages().map((m) => m.event.type));
    await eventually(
      async () => (await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId, limit: 100 })).deliveries,
      (logged: any[]) =>
        scansOf().length >= 3 && typesIn().has("code.created") && typesIn().has("code.updated") && logged.every((d) => d.status === "succeeded") && logged.length === receiver.messages().length,
      { what: "every expected event received, every logged delivery succeeded and received once", timeoutMs: 60_000 },
    );
    const messages = receiver.messages();
    const types = messages.map((m) => m.event.type).sort();
    assert.deepEqual(types.filter((t) => t !== "scan.created"), ["code.created", "code.updated"]);
    const scans = scansOf();
    assert.equal(scans.length, 3, "each scan once");
    assert.equal(new Set(scans.map((s: any) => s.scanId)).size, 3);
    assert.deepEqual(scans.map((s: any) => s.uniqueQRCodeID).sort(), [spring.uniqueQRCodeID, spring.uniqueQRCodeID, later.uniqueQRCodeID].sort());
    const first = scans.find((s: any) => s.campaign === "spring");
    assert.equal(first.codeId, spring.codeId);
    assert.equal(first.human, true);
    assert.equal(first.device, "mobile");
    assert.ok(typeof first.country === "string" && typeof first.region === "string" && typeof first.city === "string");
    assert.equal(scans.filter((s: any) => s.unique === true).length, 2, "first scan of each code unique, the second of spring a repeat");
    // The three 500s were retried: those webhook-ids arrived more than once, and every request verified.
    assert.ok(receiver.requests.length >= messages.length + 3);
    assert.ok(receiver.requests.every((r) => r.verified));
    const log = await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId });
    assert.ok(log.deliveries.every((d: any) => d.status === "succeeded"));
    assert.ok(log.deliveries.some((d: any) => d.attempts > 1 && d.last.responseCode === 204));
    assert.ok(log.deliveries.every((d: any) => d.attemptLog === undefined), "the list keeps to the last attempt");
    // One delivery asked by id: every kept attempt, the 500s and then the 204, oldest first.
    const retried = log.deliveries.find((d: any) => d.attempts > 1);
    const full = (await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId, deliveryId: retried.deliveryId })).deliveries[0];
    assert.equal(full.attemptLog.length, retried.attempts);
    assert.deepEqual(full.attemptLog.map((a: any) => a.attempt), Array.from({ length: retried.attempts }, (_, i) => i + 1));
    assert.deepEqual(full.attemptLog.map((a: any) => a.responseCode), [...Array(retried.attempts - 1).fill(500), 204]);
  });

  it("signatures fail when a delivery is tampered with or replayed later", async () => {
    const code = await tool(merchant, "svc.qr.create", { title: "t", destinationUrl: "https://example.com/t", dynamic: true });
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["scan.created"] });
    receiver.secrets = [created.secret];
    await scan(code.uniqueQRCodeID);
    await receiver.until("a scan", () => receiver.messages().length === 1);
    const { body, headers } = receiver.requests[0];
    const wh = new Webhook(created.secret);
    const h = { "webhook-id": String(headers["webhook-id"]), "webhook-timestamp": String(headers["webhook-timestamp"]), "webhook-signature": String(headers["webhook-signature"]) };
    assert.doesNotThrow(() => wh.verify(body, h));
    assert.throws(() => wh.verify(body.replace('"human":true', '"human":false'), h), /signature/i);
    assert.throws(() => wh.verify(body, { ...h, "webhook-id": "msg_other" }), /signature/i);
    assert.throws(() => wh.verify(body, { ...h, "webhook-timestamp": String(Math.floor(Date.now() / 1000)) + "0" }));
    // The same request replayed ten minutes later is outside the library's tolerance.
    const realNow = Date.now;
    Date.now = () => realNow() + 10 * 60_000;
    try {
      assert.throws(() => wh.verify(body, h), /too old/i);
    } finally {
      Date.now = realNow;
    }
  });

  it("sends scans that are not a person's (bots, previews, HEAD) only to subscriptions that ask for them", async () => {
    const before = await tool(merchant, "svc.qr.create", { title: "before", destinationUrl: "https://example.com/before", dynamic: true });
    const people = await tool(merchant, "svc.webhook.create", { url, events: ["scan.created"] });
    assert.equal(people.webhook.machineScans, false, "off unless asked for");
    const machines = new Receiver();
    const machinesUrl = await machines.listen();
    try {
      const all = await tool(merchant, "svc.webhook.create", { url: machinesUrl, events: ["scan.created"], machineScans: true });
      assert.equal(all.webhook.machineScans, true);
      const listed = await tool(merchant, "svc.webhook.list", {});
      assert.deepEqual(listed.webhooks.map((w: any) => [w.webhookId, w.machineScans]).sort(), [[people.webhookId, false], [all.webhookId, true]].sort());
      receiver.secrets = [people.secret];
      machines.secrets = [all.secret];
      const after = await tool(merchant, "svc.qr.create", { title: "after", destinationUrl: "https://example.com/after", dynamic: true });
      // Both paths that name a link's subscriptions: the sync on subscribing, and a new code's creation.
      for (const code of [before, after]) {
        const at = `${baseUrl()}/qr/${code.uniqueQRCodeID}`;
        assert.equal((await client.fetch(at, { redirect: "manual", headers: { "User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" } })).status, 302);
        assert.equal((await client.fetch(at, { method: "HEAD", redirect: "manual", headers: { "User-Agent": PHONE } })).status, 302);
        assert.equal((await scan(code.uniqueQRCodeID)).status, 302);
      }
      const scansIn = (r: Receiver) => r.messages().flatMap((m) => m.event.data.scans);
      await machines.until("6 scans, 4 of them machines", () => scansIn(machines).length === 6);
      await receiver.until("the 2 human scans", () => scansIn(receiver).length === 2);
      assert.deepEqual(scansIn(machines).map((x: any) => x.human).sort(), [false, false, false, false, true, true]);
      assert.deepEqual(new Set(scansIn(machines).filter((x: any) => !x.human).map((x: any) => x.notCountedReason)), new Set(["crawler", "head-request"]));
      // Settled: everything queued for the people-only endpoint has been delivered, and it holds no machine scan.
      await eventually(
        async () => (await tool(merchant, "svc.webhook.deliveries", { webhookId: people.webhookId, limit: 100 })).deliveries,
        (logged: any[]) => logged.length === receiver.messages().length && logged.every((d) => d.status === "succeeded"),
        { what: "the people-only endpoint's log settled" },
      );
      assert.ok(scansIn(receiver).every((x: any) => x.human === true), JSON.stringify(scansIn(receiver)));
      assert.equal(scansIn(receiver).length, 2);
    } finally {
      machines.close();
    }
  });

  it("tells scan.created subscribers of scans the service's app reports, as of a redirect's: a person's first, then a repeat", async () => {
    const code = await tool(merchant, "svc.qr.create", { title: "app", destinationUrl: "https://example.com/app" });
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["scan.created"] });
    receiver.secrets = [created.secret];
    const user = await signUp();
    const report = () =>
      client.fetch(`${appUrl()}/api/scans`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${user.idToken}`, "User-Agent": PHONE },
        body: JSON.stringify({ uniqueQRCodeID: code.uniqueQRCodeID }),
      });
    assert.equal((await report()).status, 201);
    assert.equal((await report()).status, 200, "the same user's report within the window is not counted again");
    const scansIn = () => receiver.messages().flatMap((m) => m.event.data.scans);
    await receiver.until("both app scans", () => scansIn().length === 2);
    const told = scansIn().sort((a: any, b: any) => Number(b.unique === true) - Number(a.unique === true));
    assert.deepEqual(
      told.map((x: any) => [x.codeId, x.uniqueQRCodeID, x.human, x.unique, x.notCountedReason, x.device, x.os]),
      [
        [code.codeId, code.uniqueQRCodeID, true, true, null, "mobile", "Android"],
        [code.codeId, code.uniqueQRCodeID, true, false, "repeat", "mobile", "Android"],
      ],
    );
  });

  it("a task sent straight to the delivery function does nothing without the service's seal; the same task sealed is delivered", async () => {
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
    receiver.secrets = [created.secret];
    const key = /^TASK_KEYS_WEBHOOK_DELIVERY=(.+)$/m.exec(readFileSync("functions/.secret.local", "utf8"))![1];
    const task = (deliveryId: string) => ({
      merchantId: merchant.merchantId,
      webhookId: created.webhookId,
      deliveryId,
      type: "code.updated",
      count: 1,
      body: JSON.stringify({ type: "code.updated", timestamp: new Date().toISOString(), data: { codes: [{ codeId: "forged" }] } }),
    });
    const send = (data: unknown) =>
      fetch(`${functionsUrl()}/webhookDelivery`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ data }) });
    const altered = { ...sealTask(task("msg_forgedAltered01"), "webhookDelivery", new Date(), key), merchantId: "m_someoneelse0000" };
    const forged = [
      task("msg_forgedUnsealed1"),
      { ...task("msg_forgedBadSeal01"), seal: "A".repeat(43) },
      altered,
      sealTask(task("msg_forgedOtherKey1"), "webhookDelivery", new Date(), "not-the-service-key-0123456789abcdef"),
      // Sealed by the service, but for a job step, or expired: refused as well.
      sealTask(task("msg_forgedJobSeal01"), "catalogueJob", new Date(), key),
      sealTask(task("msg_forgedExpired01"), "webhookDelivery", new Date(Date.now() - 27 * 3_600_000), key),
    ];
    for (const data of forged) assert.equal((await send(data)).status, 204, "answered, and dropped: a retry would not help");
    const sealed = sealTask(task("msg_sealedByTheSvc1"), "webhookDelivery", new Date(), key);
    assert.equal((await send(sealed)).status, 204);
    await receiver.until("the sealed task's delivery", () => receiver.requests.length >= 1);
    assert.deepEqual(receiver.requests.map((r) => r.id), ["msg_sealedByTheSvc1"], "only the sealed task reached the endpoint");
    const logged = await firestore().collection("workspaces").doc(merchant.merchantId).collection("webhooks").doc(created.webhookId).collection("deliveries").get();
    assert.deepEqual(logged.docs.map((d) => d.id), ["msg_sealedByTheSvc1"], "nothing of the forged tasks was written");
  });

  it("answers a failed attempt 2xx, never the 503 that slows the shared queue, and tries it again as a new task on its own backoff", async () => {
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
    receiver.secrets = [created.secret];
    receiver.failFirst = 1;
    const key = /^TASK_KEYS_WEBHOOK_DELIVERY=(.+)$/m.exec(readFileSync("functions/.secret.local", "utf8"))![1];
    const body = JSON.stringify({ type: "code.updated", timestamp: new Date().toISOString(), data: { codes: [{ codeId: "c1" }] } });
    const sealed = sealTask({ merchantId: merchant.merchantId, webhookId: created.webhookId, deliveryId: "msg_failsOnceThenOk", type: "code.updated", count: 1, body }, "webhookDelivery", new Date(), key);
    const answer = await fetch(`${functionsUrl()}/webhookDelivery`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ data: sealed }) });
    assert.equal(answer.status, 204, "the failed attempt is answered 2xx");
    assert.equal(receiver.requests.length, 1, "the first attempt was sent, and failed");
    await receiver.until("the retry", () => receiver.requests.length >= 2);
    assert.deepEqual(receiver.requests.map((r) => r.id), ["msg_failsOnceThenOk", "msg_failsOnceThenOk"]);
    const delivered = await eventually(async () => (await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId })).deliveries[0], (d) => d.status === "succeeded", { what: "the delivery succeeded" });
    assert.equal(delivered.attempts, 2);
  });

  it("costs a workspace without subscriptions nothing per scan: only covered links name a subscription", async () => {
    const a = await tool(merchant, "svc.qr.create", { title: "a", destinationUrl: "https://example.com/a", dynamic: true });
    const b = await tool(merchant, "svc.qr.create", { title: "b", destinationUrl: "https://example.com/b", dynamic: true, campaign: "fall" });
    const link = async (id: string) => (await firestore().collection("links").doc(id).get()).get("webhookIds");
    assert.equal(await link(a.uniqueQRCodeID), undefined);
    const narrowed = await tool(merchant, "svc.webhook.create", { url, events: ["scan.created"], campaigns: ["fall"] });
    assert.equal(await link(a.uniqueQRCodeID), undefined);
    assert.deepEqual(await link(b.uniqueQRCodeID), [narrowed.webhookId]);
    const codesOnly = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
    assert.equal(await link(a.uniqueQRCodeID), undefined, "code events do not touch links");
    await tool(merchant, "svc.webhook.delete", { webhookId: narrowed.webhookId });
    assert.equal(await link(b.uniqueQRCodeID), undefined);
    const listed = await tool(merchant, "svc.webhook.list", {});
    assert.deepEqual(listed.webhooks.map((w: any) => w.webhookId), [codesOnly.webhookId]);
    assert.ok(!JSON.stringify(listed).includes("whsec_"));
  });

  it("redelivers from an MCP call with the same webhook-id, and signs with both secrets during a rotation's overlap", async () => {
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
    receiver.secrets = [created.secret];
    const test = await tool(merchant, "svc.webhook.test", { webhookId: created.webhookId });
    await receiver.until("the test event", () => receiver.requests.length === 1);
    assert.equal(receiver.requests[0].id, test.deliveryId);
    const again = await tool(merchant, "svc.webhook.test", { webhookId: created.webhookId, deliveryId: test.deliveryId });
    assert.equal(again.redelivery, true);
    await receiver.until("the redelivery", () => receiver.requests.length === 2);
    assert.equal(receiver.requests[1].id, test.deliveryId);
    assert.equal(receiver.requests[1].body, receiver.requests[0].body);
    assert.ok(receiver.requests[1].verified);
    const log = await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId });
    assert.equal(log.deliveries[0].attempts, 2);

    const rotated = await tool(merchant, "svc.webhook.rotate_secret", { webhookId: created.webhookId, overlapHours: 1 });
    assert.notEqual(rotated.secret, created.secret);
    await tool(merchant, "svc.webhook.test", { webhookId: created.webhookId });
    await receiver.until("a delivery after rotation", () => receiver.requests.length === 3);
    const { body, headers } = receiver.requests[2];
    for (const secret of [created.secret, rotated.secret]) assert.doesNotThrow(() => new Webhook(secret).verify(body, headers as Record<string, string>));
  });

  it("disables an endpoint after a run of failures (an hour, 10 attempts) and mails the workspace's owner", async () => {
    const created = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
    receiver.secrets = [created.secret];
    receiver.failFirst = 100;
    const ref = firestore().collection("workspaces").doc(merchant.merchantId).collection("webhooks").doc(created.webhookId);
    // Nine failed attempts over two hours: the tenth completes the run.
    await ref.update({ failingSince: new Date(Date.now() - 2 * 3600_000), failedRun: DISABLE_AFTER_FAILURES - 1 });
    await tool(merchant, "svc.webhook.test", { webhookId: created.webhookId });
    await eventually(async () => (await ref.get()).get("status"), (status) => status === "disabled", { what: "the endpoint disabled" });
    assert.equal(receiver.requests.length, 1, "no retry after disabling");
    const mail = await firestore().collection("mail").where("to", "==", merchant.email).get();
    assert.equal(mail.size, 1);
    assert.match(mail.docs[0].get("message.text"), /disabled/);
    const log = await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId });
    assert.equal(log.deliveries[0].status, "failed");
    assert.equal(log.deliveries[0].last.responseCode, 500);
  });

  it("a slow, failing endpoint of one workspace holds one attempt at a time, and another workspace's deliveries stay prompt", async () => {
    const slow = new Receiver();
    slow.holdMs = 6_000; // past the 5 s attempt deadline
    slow.failFirst = Number.MAX_SAFE_INTEGER;
    const slowUrl = await slow.listen();
    const hooks: any[] = [];
    try {
      const attackerCode = await tool(merchant, "svc.qr.create", { title: "flood", destinationUrl: "https://example.com/flood", dynamic: true });
      // Three endpoints, six scans: small enough for the emulator, which runs each concurrent attempt in a
      // process of its own; without the circuit all 18 deliveries would be at the slow endpoint at once.
      for (let i = 0; i < 3; i++) hooks.push(await tool(merchant, "svc.webhook.create", { url: slowUrl, events: ["scan.created"] }));
      // Each endpoint fails once, and from then on is a tripped circuit.
      for (const h of hooks) await tool(merchant, "svc.webhook.test", { webhookId: h.webhookId });
      const webhookDoc = (id: string) => firestore().collection("workspaces").doc(merchant.merchantId).collection("webhooks").doc(id).get();
      await eventually(async () => Promise.all(hooks.map(async (h) => (await webhookDoc(h.webhookId)).get("failingSince"))), (all) => all.every(Boolean), { what: "every endpoint failing", timeoutMs: 60_000 });
      slow.maxInFlight = slow.inFlight;
      const floodStart = slow.requests.length;
      const floodStarted = Date.now();
      // The flood: 6 scans, each queueing one delivery per endpoint.
      for (let i = 0; i < 6; i++) {
        assert.equal((await newClient().fetch(`${baseUrl()}/qr/${attackerCode.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } })).status, 302);
      }

      // Meanwhile another workspace's endpoint hears about its scans within seconds.
      const other = await createMerchant();
      const otherCode = await tool(other, "svc.qr.create", { title: "counter", destinationUrl: "https://example.com/counter", dynamic: true });
      const created = await tool(other, "svc.webhook.create", { url, events: ["scan.created"] });
      receiver.secrets = [created.secret];
      const latencies: number[] = [];
      for (let i = 0; i < 6; i++) {
        const sent = Date.now();
        const before = receiver.messages().length;
        assert.equal((await newClient().fetch(`${baseUrl()}/qr/${otherCode.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } })).status, 302);
        await receiver.until(`scan ${i + 1} of the other workspace`, () => receiver.messages().length > before, 30_000);
        latencies.push(Date.now() - sent);
      }
      latencies.sort((x, y) => x - y);
      const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1];
      const p50 = latencies[Math.floor(latencies.length / 2)];
      const seconds = (Date.now() - floodStarted) / 1000;
      const sentToSlow = slow.requests.length - floodStart;
      console.log(`      other workspace's delivery: p50 ${p50} ms, p95 ${p95} ms; slow endpoint: ${sentToSlow} attempts in ${seconds.toFixed(1)} s for 3 endpoints x 6 scans, at most ${slow.maxInFlight} in flight`);
      // The median within one attempt deadline. The slowest sample is printed, not held: on the emulator
      // each concurrent attempt may start a worker process of its own, which on a loaded 2-core machine
      // took 15 s once; the bound on what reaches the slow endpoint is asserted below.
      assert.ok(p50 < 5_000, `p50 ${p50} ms`);
      // One attempt in flight per endpoint, each claim covering its 5 s deadline and a 1 s interval.
      assert.ok(slow.maxInFlight <= hooks.length, `${slow.maxInFlight} in flight at the slow endpoint`);
      assert.ok(sentToSlow <= hooks.length * Math.ceil(seconds / 6 + 1), `${sentToSlow} attempts reached the slow endpoint in ${seconds.toFixed(1)} s`);
      const logged = await tool(merchant, "svc.webhook.deliveries", { webhookId: hooks[0].webhookId, limit: 100 });
      assert.ok(logged.deliveries.length >= 2, "waiting deliveries are in the log, not lost");
    } finally {
      // Deleted endpoints drop their queued deliveries: nothing keeps retrying for the rest of the run.
      for (const h of hooks) await tool(merchant, "svc.webhook.delete", { webhookId: h.webhookId });
      slow.close();
    }
  });

  it("holds a workspace to its share of the delivery queue: over it, attempts wait unsent while another workspace's go straight through", async () => {
    const share = 3;
    await writeRateLimitOverride(merchant.merchantId, "webhookAttempts", share);
    try {
      const created = await tool(merchant, "svc.webhook.create", { url, events: ["code.updated"] });
      receiver.secrets = [created.secret];
      // Six events: the workspace's minute admits three attempts; the rest are logged and wait. The minute is
      // taken before the first event, so "still the same minute" below means every attempt fell in it.
      const window = () => Math.floor(Date.now() / 60_000);
      const started = window();
      const sent: any[] = [];
      for (let i = 0; i < 6; i++) sent.push(await tool(merchant, "svc.webhook.test", { webhookId: created.webhookId }));
      await receiver.until("the workspace's share", () => receiver.requests.length >= share);
      const other = await createMerchant();
      const otherReceiver = new Receiver();
      const otherUrl = await otherReceiver.listen();
      try {
        const theirs = await tool(other, "svc.webhook.create", { url: otherUrl, events: ["code.updated"] });
        otherReceiver.secrets = [theirs.secret];
        const at = Date.now();
        await tool(other, "svc.webhook.test", { webhookId: theirs.webhookId });
        await otherReceiver.until("the other workspace's delivery", () => otherReceiver.requests.length === 1, 10_000);
        assert.ok(Date.now() - at < 5_000, `${Date.now() - at} ms`);
      } finally {
        otherReceiver.close();
      }
      const log = (await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId, limit: 20 })).deliveries;
      if (window() === started) {
        // Still the same minute: exactly the share went out; the rest were queued again for the next window
        // before anything was read or written, so they are not in the log yet (webhook-deferrals.test.ts).
        assert.equal(receiver.requests.length, share);
        assert.equal(log.length, share);
      }
      // Attempts per minute, as the service made them, never pass the share.
      const perMinute = new Map<number, number>();
      for (const d of log) {
        const full = (await tool(merchant, "svc.webhook.deliveries", { webhookId: created.webhookId, deliveryId: d.deliveryId })).deliveries[0];
        for (const a of full.attemptLog) perMinute.set(Math.floor(Date.parse(a.at) / 60_000), (perMinute.get(Math.floor(Date.parse(a.at) / 60_000)) ?? 0) + 1);
      }
      assert.ok([...perMinute.values()].every((n) => n <= share), JSON.stringify([...perMinute]));
    } finally {
      await writeRateLimitOverride(merchant.merchantId, "webhookAttempts", null);
    }
  });

  it("tells code.published subscribers when the console publishes a code, through the console API's own webhook routes", async () => {
    const as = consoleAs(merchant.idToken);
    const created = await as.post("/webhooks", { url, events: ["code.published"] });
    assert.equal(created.status, 201);
    receiver.secrets = [created.body.secret];
    const code = await tool(merchant, "svc.qr.create", { title: "menu card", destinationUrl: "https://example.com/m" });
    assert.equal((await as.post("/publish", { kind: "codes", id: code.codeId })).status, 200);
    await receiver.until("code.published", () => receiver.messages().length === 1);
    const [message] = receiver.messages();
    assert.equal(message.event.type, "code.published");
    assert.deepEqual(message.event.data.codes.map((c: any) => [c.codeId, c.status]), [[code.codeId, "published"]]);
    const log = await as.get(`/webhooks/${created.body.webhookId}/deliveries`);
    assert.equal(log.body.deliveries[0].status, "succeeded");
    // A spreadsheet import that publishes is a publication too (one publish service): one more event.
    const imported = await as.post("/codes/import", { rows: [{ title: "imported", destinationUrl: "https://example.com/i" }] }, { "Idempotency-Key": `webhook-import-${code.codeId}` });
    assert.equal(imported.status, 201, imported.text);
    await receiver.until("code.published of the import", () => receiver.messages().length === 2);
    const importedEvent = receiver.messages().find((m) => m.event.data.codes[0].codeId === imported.body.codes[0].codeId);
    assert.equal(importedEvent?.event.data.codes[0].status, "published");
    assert.equal((await as.post("/webhooks", { url: "http://example.com/hook", events: ["code.published"] })).status, 400, "the local stack sends to loopback only");
  });

  it("counts a workspace's webhooks in the creating transaction: 15 concurrent creations make exactly 10", async () => {
    const answers = await Promise.all(Array.from({ length: 15 }, () => callTool("svc.webhook.create", { url, events: ["code.created"] }, merchant.apiKey)));
    const made = answers.filter((a) => !a.body.error && !a.body.result?.isError);
    const refused = answers.filter((a) => a.body.error?.data?.code === "CONFLICT");
    assert.deepEqual([made.length, refused.length], [10, 5], JSON.stringify(answers.map((a) => a.body.error?.data?.code ?? "made")));
    assert.match(refused[0].body.error.message, /at most 10 webhooks/);
    assert.equal((await tool(merchant, "svc.webhook.list", {})).webhooks.length, 10);
  });

  it("only the member who added a webhook, or the workspace's owner, deletes it or rotates its secret", async () => {
    const member = await signUp();
    await addMember(merchant.merchantId, member.uid);
    const memberKey = await mintKey({ ...merchant, uid: member.uid }, ["webhooks:read", "webhooks:write"]);
    const ownersHook = await tool(merchant, "svc.webhook.create", { url, events: ["code.created"] });
    for (const [name, args] of [["svc.webhook.rotate_secret", { webhookId: ownersHook.webhookId }], ["svc.webhook.delete", { webhookId: ownersHook.webhookId }]] as const) {
      const refused = await callTool(name, args, memberKey);
      assert.equal(refused.body.error?.data?.code, "FORBIDDEN", `${name}: ${JSON.stringify(refused.body)}`);
    }
    const membersHook = toolResult(await callTool("svc.webhook.create", { url, events: ["code.created"] }, memberKey));
    assert.match(toolResult(await callTool("svc.webhook.rotate_secret", { webhookId: membersHook.webhookId }, memberKey)).secret, /^whsec_/, "its creator rotates it");
    assert.equal((await tool(merchant, "svc.webhook.delete", { webhookId: membersHook.webhookId })).deleted, true, "the owner removes a member's");
    const left = (await tool(merchant, "svc.webhook.list", {})).webhooks.map((w: any) => w.webhookId);
    assert.ok(left.includes(ownersHook.webhookId) && !left.includes(membersHook.webhookId));
  });

  it("a webhook follows its creator: revoking the key that made it, or removing the member, stops it at the next delivery", async () => {
    const code = await tool(merchant, "svc.qr.create", { title: "followed", destinationUrl: "https://example.com/followed", dynamic: true });
    const key = await mintKey(merchant, ["merchant:read", "webhooks:read", "webhooks:write"]);
    const made = toolResult(await callTool("svc.webhook.create", { url, events: ["scan.created"] }, key));
    receiver.secrets = [made.secret];
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302);
    await receiver.until("the first scan's delivery", () => receiver.messages().length === 1);
    await revokeApiKey(merchant.merchantId, key.slice(0, 15));
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302, "scans still redirect");
    const listed = await eventually(
      async () => (await tool(merchant, "svc.webhook.list", {})).webhooks.find((w: any) => w.webhookId === made.webhookId),
      (w: any) => w.status === "disabled",
      { what: "the webhook disabled at its next delivery" },
    );
    assert.equal(listed.disabledReason, "credential-revoked", "the owner sees why");
    assert.equal(receiver.messages().length, 1, "nothing was sent after the revocation");

    // A member's webhook stops when the member leaves (their session made it: no key to revoke).
    const member = await signUp();
    await addMember(merchant.merchantId, member.uid);
    const viaConsole = await consoleAs(member.idToken).post("/webhooks", { url, events: ["scan.created"] });
    assert.equal(viaConsole.status, 201, JSON.stringify(viaConsole.body));
    await removeMember(merchant.merchantId, member.uid);
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302);
    const left = await eventually(
      async () => (await tool(merchant, "svc.webhook.list", {})).webhooks.find((w: any) => w.webhookId === viaConsole.body.webhookId),
      (w: any) => w.status === "disabled",
      { what: "the departed member's webhook disabled" },
    );
    assert.equal(left.disabledReason, "creator-left");
  });

  it("refuses webhook tools without the webhooks scopes and bad input without a 5xx", async () => {
    const readOnly = await createMerchant(["webhooks:read"]);
    const refused = await callTool("svc.webhook.create", { url, events: ["scan.created"] }, readOnly.apiKey);
    assert.equal(refused.status, 200);
    assert.ok(refused.body.error || refused.body.result?.isError);
    for (const args of [{ url, events: [] }, { url, events: ["scan.deleted"] }, { url: "ftp://x", events: ["scan.created"] }, { url, events: ["scan.created"], extra: 1 }]) {
      const res = await callTool("svc.webhook.create", args, merchant.apiKey);
      assert.ok(res.status < 500);
      assert.ok(res.body.error || res.body.result?.isError, JSON.stringify(args));
    }
  });
});
