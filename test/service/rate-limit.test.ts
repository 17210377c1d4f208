// The rate limiter is shared across instances through Firestore: limiters with their own instance ids (as
// Cloud Functions instances would be) against the real emulator enforce one limit together, per
// credential and per workspace; the console's preview and anonymous MCP requests are metered too.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { RATE_LIMITS, RateLimiter, type QuotaStore, type RateSubject } from "../../functions/src/core/rateLimit";
import { callTool, toolResult } from "../helpers/rpc";
import { firestoreQuotaStore, writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { createMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import { appUrl } from "../helpers/env";
import { mcpApp } from "../../functions/src/mcp/app";
import { nextWindowStart, servedAt } from "../helpers/clock";

const instances = (n: number) => Array.from({ length: n }, (_, i) => new RateLimiter(firestoreQuotaStore, `instance-${i}-${randomUUID().slice(0, 8)}`));

/** A moment early in the current one-minute window (or the next, when this one is nearly over). */
function earlyInWindow(): number {
  const start = Math.floor(Date.now() / 60_000) * 60_000;
  return Date.now() - start < 45_000 ? Date.now() : start + 60_000 + 100;
}

/** Fires `calls` takes at once on each limiter; returns how many were admitted. */
async function burst(limiters: RateLimiter[], subjects: RateSubject[], calls: number, now: number): Promise<number> {
  const decisions = await Promise.all(
    limiters.flatMap((limiter) => subjects.flatMap((subject) => Array.from({ length: calls }, () => limiter.take("toolCalls", subject, now)))),
  );
  return decisions.filter((d) => d.allowed).length;
}

describe("rate limits across instances", function () {
  this.timeout(120_000);

  it("two instances that alternate share one budget exactly", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "toolCalls", 10);
    const [a, b] = instances(2);
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid, keyId: `key_${randomUUID().slice(0, 8)}` };
    // Early in a window, so the peek 2 s later reads the same window (at :58 it would read the next one).
    const now = earlyInWindow();
    const allowed: boolean[] = [];
    for (let i = 0; i < 16; i++) allowed.push((await (i % 2 ? a : b).take("toolCalls", subject, now)).allowed);
    assert.equal(allowed.filter(Boolean).length, 10);
    assert.deepEqual(allowed.slice(10), [false, false, false, false, false, false]);
    const standing = await a.peek("toolCalls", subject, now + 2000);
    assert.equal(standing.remaining, 0);
    assert.equal(standing.limit, 10);
  });

  it("10 instances taking 2,000 calls each at the start of a window admit at most 1.1x the limit", async () => {
    const merchant = await createMerchant();
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid, keyId: `key_${randomUUID().slice(0, 8)}` };
    const admitted = await burst(instances(10), [subject], 2000, earlyInWindow());
    assert.ok(admitted <= 660, `admitted ${admitted} against a limit of 600`);
    assert.ok(admitted >= 540, `admitted ${admitted}: quota leased but unused stays small`);
  });

  it("two keys of one workspace with a workspace limit of 100 get at most 110 together, on 10 instances", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "toolCalls", 100, "workspace");
    const keys = [1, 2].map(() => ({ merchantId: merchant.merchantId, uid: merchant.uid, keyId: `key_${randomUUID().slice(0, 8)}` }));
    const limiters = instances(10);
    const now = earlyInWindow();
    const admitted = await burst(limiters, keys, 100, now);
    assert.ok(admitted <= 110, `admitted ${admitted} against a workspace limit of 100`);
    assert.ok(admitted >= 90, `admitted ${admitted}`);
    const refused = await limiters[3].take("toolCalls", keys[0], now);
    assert.equal(refused.allowed, false);
    assert.equal(refused.scope, "workspace");
    assert.equal(refused.limit, 100);
  });

  it("a flood of distinct subjects cannot grow an instance's buckets past the bound, nor free a subject whose bucket was dropped", async () => {
    const limiter = new RateLimiter(firestoreQuotaStore, `bounded-${randomUUID().slice(0, 8)}`, 50);
    const victim = { address: `198.51.100.${Math.floor(Math.random() * 250)}` };
    const now = Date.now();
    const first = await Promise.all(Array.from({ length: RATE_LIMITS.abuseReports.max }, () => limiter.take("abuseReports", victim, now)));
    assert.ok(first.every((d) => d.allowed));
    for (let i = 0; i < 300; i++) {
      assert.ok((await limiter.take("abuseReports", { address: `2001:db8:${i.toString(16)}::1` }, now)).allowed);
      assert.ok(limiter.trackedBuckets <= 50, `${limiter.trackedBuckets} buckets`);
    }
    const again = await limiter.take("abuseReports", victim, now);
    assert.equal(again.allowed, false, "the dropped bucket's count still stands");
  });

  it("a new window starts a new budget", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "bulk", 1);
    const [limiter] = instances(1);
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid };
    const t = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
    assert.equal((await limiter.take("bulk", subject, t)).allowed, true);
    const refused = await limiter.take("bulk", subject, t + 1000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 58);
    assert.equal((await limiter.take("bulk", subject, t + 60_000)).allowed, true);
  });

  it("a subject busy in one window starts the next at the lease size it reached, within the same caps", async () => {
    const merchant = await createMerchant();
    let leases = 0;
    const counted: QuotaStore = { ...firestoreQuotaStore, leaseWindowQuota: (...args) => (leases++, firestoreQuotaStore.leaseWindowQuota(...args)) };
    const limiter = new RateLimiter(counted, `instance-${randomUUID().slice(0, 8)}`);
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid, keyId: `key_${randomUUID().slice(0, 8)}` };
    const t = nextWindowStart(60_000);
    const leasesFor = async (at: number) => {
      leases = 0;
      for (let i = 0; i < 150; i++) assert.equal((await limiter.take("toolCalls", subject, at)).allowed, true);
      return leases;
    };
    // From one call, doubling: the key's leases 1, 2, 4, 8, 16, then its cap of 30 (a twentieth of 600),
    // nine in all; the workspace's (limit 1,800, cap 90) eight.
    const first = await leasesFor(t);
    assert.ok(first >= 15, `${first} leases in the first window`);
    // The next window's start at the caps: 150 calls in five leases of the key's and two of the workspace's.
    assert.ok((await leasesFor(t + 60_000)) <= 7);
    // A window with no calls in the one before starts from one call again.
    assert.equal(await leasesFor(t + 180_000), first);
  });
});

describe("metered surfaces", function () {
  this.timeout(180_000);

  it("the console's PNG preview has a limit of its own", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "previews", 2);
    const preview = () =>
      fetch(`${appUrl()}/api/console/codes/preview`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.idToken}` },
        body: JSON.stringify({ destinationUrl: "https://example.com/menu" }),
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await preview()).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const refused = await preview();
    assert.equal(refused.headers.get("x-ratelimit-limit"), "2");
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal(((await refused.json()) as { code: string }).code, "RATE_LIMITED");
  });

  it("a console user looping analytics gets 429 after the documented 60 a minute, and other reads keep their own budget", async () => {
    const merchant = await createMerchant();
    const code = toolResult(await callTool("svc.qr.create", { title: "looped", destinationUrl: "https://example.com/loop", dynamic: true }, merchant.apiKey));
    // One window for the whole loop: every read is served at one instant of a fresh window (the local stack's test clock).
    const clock = servedAt(nextWindowStart(60_000));
    const get = (path: string) => fetch(`${appUrl()}/api/console${path}`, { headers: { Authorization: `Bearer ${merchant.idToken}`, ...clock } });
    const max = RATE_LIMITS.consoleAnalytics.max;
    assert.equal(max, 60, "the figure docs/limits.md gives");
    const statuses: number[] = [];
    for (let i = 0; i <= max; i++) statuses.push((await get(`/codes/${code.codeId}/analytics?days=30`)).status);
    assert.deepEqual(statuses, [...Array(max).fill(200), 429]);
    const refused = await get(`/codes/${code.codeId}/analytics?days=30`);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("x-ratelimit-limit"), String(max));
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal(((await refused.json()) as { code: string }).code, "RATE_LIMITED");
    const read = await get(`/codes/${code.codeId}`);
    assert.equal(read.status, 200, "a plain read has its own budget");
    assert.equal(read.headers.get("x-ratelimit-limit"), String(RATE_LIMITS.consoleReads.max));
  });

  it("MCP requests without a valid credential are limited per client address; keyed callers and other addresses are not", async () => {
    const merchant = await createMerchant();
    // The flood is served at one instant of a fresh window (the test clock), so it cannot straddle two.
    const clock = servedAt(nextWindowStart(60_000));
    // Served in this process: the flood of 1,200 requests takes seconds, not the emulator's minute. Each
    // client still connects from its own loopback address, which is what the server sees.
    const server = createServer(mcpApp).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`;
    const flooder = newClient();
    try {
      const badKey = { Authorization: `Bearer sk-svc-${"0".repeat(64)}` };
      const post = (client: ReturnType<typeof newClient>, headers: Record<string, string> = {}, method = "ping") =>
        client.fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-Host": new URL(appUrl()).host, ...clock, ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
        });
      const statuses = new Map<number, number>();
      let sent = 0;
      let refused = false;
      const worker = async () => {
        while (!refused && sent < 1500) {
          sent++;
          // Half without a credential (ping: 200), half with a key that does not exist (tools/list: 401); both count.
          const res = sent % 2 ? await post(flooder) : await post(flooder, badKey, "tools/list");
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 429) refused = true;
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const admitted = (statuses.get(200) ?? 0) + (statuses.get(401) ?? 0);
      assert.ok(refused, `never refused: ${JSON.stringify([...statuses])}`);
      assert.ok(admitted <= 1200 && admitted >= 1100, `admitted ${admitted} of a limit of 1,200: ${JSON.stringify([...statuses])}`);
      const over = await post(flooder);
      assert.equal(over.status, 429);
      const body = (await over.json()) as { error: { code: number; data: { code: string } } };
      assert.equal(body.error.data.code, "RATE_LIMITED");
      assert.ok(Number(over.headers.get("retry-after")) >= 1);
      assert.equal((await post(flooder, badKey, "tools/list")).status, 429, "a bad key over the limit");
      assert.equal((await post(flooder, { Authorization: `Bearer ${merchant.apiKey}` })).status, 200, "a valid key from the same address");
      assert.equal((await post(newClient())).status, 200, "another address");
    } finally {
      server.close();
    }
  });
});
