// Several redirect instances, each a process of its own against the same emulators (as Cloud Functions
// runs many): a re-point applies to the very next scan on every instance, and only a link read held past
// its 300 ms deadline is answered from the instance's last-known-good link, recorded (counted by the scan
// consumer) and marked so.
import assert from "node:assert/strict";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../helpers/redirectInstances";
import { pullScans, subscribeToScans } from "../helpers/pubsub";
import { streamDatabase } from "../helpers/scanStreamSql";
import { BROWSERS } from "../fixtures/user-agents";
import { countedAnalytics } from "../helpers/scans";
import { adminCli } from "../helpers/admin";
import { servedAt } from "../helpers/clock";
import { LAST_GOOD_MAX_AGE_MS } from "../../functions/src/redirect/memory";

let clientNo = 0;
/** A scan from a new person each time (their own public address), straight to one instance (served at `at`: X-Test-Clock). */
async function scanAt(instance: RedirectInstance, id: string, at?: number) {
  clientNo++;
  const started = performance.now();
  const res = await fetch(`${instance.origin}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": BROWSERS[clientNo % BROWSERS.length].ua, "X-Forwarded-For": `73.${(clientNo >> 8) & 255}.${clientNo & 255}.9`, ...(at ? servedAt(at) : {}) } });
  return { status: res.status, location: res.headers.get("location"), served: res.headers.get("x-link-served"), counted: res.headers.get("x-scan-counted"), ms: performance.now() - started };
}

describe("redirect instances: re-points and last-known-good", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let instances: RedirectInstance[] = [];
  before(async () => {
    merchant = await createMerchant();
    instances = await startRedirectInstances(4);
  });
  after(() => stopRedirectInstances(instances));

  it("a re-point is honoured by the very next scan on every instance", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "moves", destinationUrl: "https://example.com/first", dynamic: true }, merchant.apiKey));
    for (const i of instances) assert.equal((await scanAt(i, code.uniqueQRCodeID)).location, "https://example.com/first");
    for (const target of ["https://example.com/second", "https://example.com/third"]) {
      toolResult(await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: target }, merchant.apiKey));
      for (const i of instances) {
        const answer = await scanAt(i, code.uniqueQRCodeID);
        assert.deepEqual([answer.status, answer.location, answer.served], [302, target, null]);
      }
    }
  });

  it("a link read held past the deadline is answered from last-known-good, counted, and marked in the stream", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "slow read", destinationUrl: "https://example.com/known", dynamic: true }, merchant.apiKey));
    const [warm, cold] = instances;
    assert.equal((await scanAt(warm, code.uniqueQRCodeID)).location, "https://example.com/known");
    // The consumer streams a scan once it counted it: the warm-up scan's row goes out before the subscription exists.
    await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)), 1);
    const subscription = await subscribeToScans();
    await Promise.all([warm.holdLinkReads(2_000), cold.holdLinkReads(1_000)]);
    try {
      // The warm instance has read the link before: it answers at the deadline from what it knows.
      const fast = await scanAt(warm, code.uniqueQRCodeID);
      assert.deepEqual([fast.status, fast.location, fast.served, fast.counted], [302, "https://example.com/known", "last-known-good", "recorded"]);
      assert.ok(fast.ms < 1_500, `answered in ${Math.round(fast.ms)} ms with the read held 2,000 ms`);
      // An instance that never read this link has nothing to fall back on: it waits for the read.
      const slow = await scanAt(cold, code.uniqueQRCodeID);
      assert.deepEqual([slow.status, slow.location, slow.served], [302, "https://example.com/known", null]);
      assert.ok(slow.ms >= 1_000, `answered in ${Math.round(slow.ms)} ms: it waited for the read`);
    } finally {
      await Promise.all([warm.holdLinkReads(0), cold.holdLinkReads(0)]);
    }
    // Each scan's row goes out from the consumer once counted (served_from "arrival": published before the
    // read's outcome was known), and the warm scan's again from its instance, marked: three messages. The
    // documented de-duplication keeps each scan's consumer row, the warm one flagged last-known-good.
    const messages = await pullScans(subscription, 3);
    assert.equal(messages.length, 3);
    assert.equal(new Set(messages.map((m) => m.event.scan_id)).size, 2, "two scans");
    const { query } = await streamDatabase(messages.map((m) => ({ ...m.event, message_id: m.messageId, publish_time: m.publishTime })));
    assert.deepEqual(query("SELECT served_from, last_known_good, consumer_counted FROM scan_events_once ORDER BY last_known_good"), [
      { served_from: "arrival", last_known_good: 0, consumer_counted: 1 },
      { served_from: "arrival", last_known_good: 1, consumer_counted: 1 },
    ]);
    const a = await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)), 3);
    assert.equal(a.totalScans, 3, "the scan answered from last-known-good is counted");
  });

  it("a link read that fails is answered from last-known-good where the instance has one, and counted", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "failed read", destinationUrl: "https://example.com/still-here", dynamic: true }, merchant.apiKey));
    const [warm] = instances;
    assert.equal((await scanAt(warm, code.uniqueQRCodeID)).location, "https://example.com/still-here");
    await warm.failLinkReads(true);
    try {
      const answer = await scanAt(warm, code.uniqueQRCodeID);
      assert.deepEqual([answer.status, answer.location, answer.served, answer.counted], [302, "https://example.com/still-here", "last-known-good", "recorded"]);
    } finally {
      await warm.failLinkReads(false);
    }
    const a = await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)), 2);
    assert.equal(a.totalScans, 2, "the scan answered from last-known-good is counted");
  });

  it("a code taken down since an instance read it is not redirected from its memory once that read is older than the bound; a password code never is", async () => {
    const [warm] = instances;
    const code = toolResult(await callTool("svc.qr.create", { title: "to take down", destinationUrl: "https://example.com/lure", dynamic: true }, merchant.apiKey));
    assert.equal((await scanAt(warm, code.uniqueQRCodeID)).status, 302); // the instance reads and remembers it
    await adminCli("takedown", "--code", code.uniqueQRCodeID, "--reason", "Phishing behind a printed code");
    const locked = toolResult(await callTool("svc.qr.create", { title: "locked", destinationUrl: "https://example.com/members", dynamic: true }, merchant.apiKey));
    toolResult(await callTool("svc.qr.set_rules", { codeId: locked.codeId, settings: { rules: [{ when: {}, then: { type: "password" } }], password: "correct horse battery" } }, merchant.apiKey));
    assert.equal((await scanAt(warm, locked.uniqueQRCodeID)).status, 200); // the password page: the instance remembers the code with its rules
    await warm.holdLinkReads(1_500);
    try {
      // Served later than the bound after the instance's read (the time passed in): the scan waits for its read.
      const late = await scanAt(warm, code.uniqueQRCodeID, Date.now() + LAST_GOOD_MAX_AGE_MS + 5_000);
      assert.deepEqual([late.status, late.location, late.served], [410, null, null], "the takedown, read, not the remembered link");
      assert.ok(late.ms >= 1_400, `answered in ${Math.round(late.ms)} ms: it waited for the read`);
      // Known taken down now: a late read is answered 410 from memory (a takedown is never redirected).
      const known = await scanAt(warm, code.uniqueQRCodeID);
      assert.deepEqual([known.status, known.location], [410, null]);
      // A code with rules (here a password) waits for its read even within the bound.
      const page = await scanAt(warm, locked.uniqueQRCodeID);
      assert.deepEqual([page.status, page.location, page.served], [200, null, null]);
      assert.ok(page.ms >= 1_400, `answered in ${Math.round(page.ms)} ms: it waited for the read`);
    } finally {
      await warm.holdLinkReads(0);
    }
  });

  it("an instance that has forgotten a code reads it before recording: an ended campaign's scan is not counted as a person's", async () => {
    // An instance that remembers two codes: both its memories (identities, last links) forget the code used
    // longest ago (redirect/memory.ts). The fast path needs both, so a code either one forgot is read first.
    const [small] = await startRedirectInstances(1, { REDIRECT_MEMORY_ENTRIES: "2" });
    try {
      const create = async (title: string) => toolResult(await callTool("svc.qr.create", { title, destinationUrl: `https://example.com/${title}`, dynamic: true }, merchant.apiKey));
      const [a, ended, b] = [await create("a"), await create("ended"), await create("b")];
      toolResult(await callTool("svc.qr.set_rules", { codeId: ended.codeId, settings: { rules: [], endsAt: "2020-01-01T00:00:00Z" } }, merchant.apiKey));
      assert.equal((await scanAt(small, a.uniqueQRCodeID)).status, 302); // learns a
      const first = await scanAt(small, ended.uniqueQRCodeID); // learns the ended code, with its rules
      assert.deepEqual([first.status, first.counted], [200, "false; reason=ended"]);
      assert.equal((await scanAt(small, a.uniqueQRCodeID)).status, 302); // a used again: the ended code is now the one used longest ago
      assert.equal((await scanAt(small, b.uniqueQRCodeID)).status, 302); // learns b: both memories forget the ended code
      const again = await scanAt(small, ended.uniqueQRCodeID);
      assert.deepEqual([again.status, again.counted], [200, "false; reason=ended"]);
      const figures = toolResult(await callTool("svc.qr.get_analytics", { codeId: ended.codeId, days: 1 }, merchant.apiKey));
      assert.equal(figures.totalScans, 0, "no scan of the ended code counted as a person's");
    } finally {
      await stopRedirectInstances([small]);
    }
  });
});
