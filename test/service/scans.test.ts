import assert from "node:assert/strict";
import { scaled } from "../helpers/scale";
import { appUrl, baseUrl, functionsUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, signUp, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { countedAnalytics } from "../helpers/scans";

const defaultClient = newClient();

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

async function scan(id: string, headers: Record<string, string> = {}, method = "GET", client = defaultClient) {
  return client.fetch(`${baseUrl()}/qr/${id}`, { method, redirect: "manual", headers: { "User-Agent": PHONE, ...headers } });
}

async function createDynamic(merchant: TestMerchant, destinationUrl: string, extra: Record<string, unknown> = {}) {
  return toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl, dynamic: true, ...extra }, merchant.apiKey));
}

/** Scan writes land just after the redirect is answered: poll until the expected total is reached. */
async function analyticsWhen(merchant: TestMerchant, args: Record<string, unknown>, expectedTotal: number, tool = "svc.qr.get_analytics") {
  return eventually(async () => toolResult(await callTool(tool, args, merchant.apiKey)), (r: any) => r.totalScans >= expectedTotal, { timeoutMs: 15_000, intervalMs: 250, what: `${expectedTotal} scans` });
}

describe("dynamic links and scan analytics", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("redirects with 302 and no-store, and follows a re-point on the very next scan", async () => {
    const code = await createDynamic(merchant, "https://example.com/first");
    const first = await scan(code.uniqueQRCodeID);
    assert.equal(first.status, 302);
    assert.equal(first.headers.get("location"), "https://example.com/first");
    assert.equal(first.headers.get("cache-control"), "no-store");
    // Hosting's /qr/** header (firebase.json) over the function's own no-referrer: the destination, on
    // another site, gets no Referer either way (docs/decisions.md, "Redirect").
    assert.equal(first.headers.get("referrer-policy"), "same-origin");
    const direct = await fetch(`${functionsUrl()}/redirect/qr/${code.uniqueQRCodeID}`, { method: "HEAD", redirect: "manual" });
    assert.equal(direct.status, 302);
    assert.equal(direct.headers.get("referrer-policy"), "no-referrer");
    await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: "https://example.com/second" }, merchant.apiKey);
    const next = await scan(code.uniqueQRCodeID);
    assert.equal(next.headers.get("location"), "https://example.com/second");
  });

  it("answers an unknown or malformed id with a 404 page", async () => {
    for (const id of ["ZZZZZZZZZZZZ", "short", "%3Cscript%3E", "AAAAAAAAAAAA.png"]) {
      const res = await scan(id);
      assert.equal(res.status, 404, id);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await res.text(), /not active/);
    }
  });

  it("counts exactly the real scans: HEAD, bots, previews and prefetches are redirected but not counted", async () => {
    const code = await createDynamic(merchant, "https://example.com/count");
    const id = code.uniqueQRCodeID;
    const clients = [newClient(), newClient(), newClient()];
    const counted = [
      // Geo headers a client writes itself are not believed (TRUST_GEO_HEADERS is off by default).
      await scan(id, { "X-Client-Geo-City": "Forgedville", "X-Client-Geo-Region": "ZZ", "X-Appengine-City": "austin" }, "GET", clients[0]),
      await scan(id, { "cf-ipcity": "Portland", "cf-region-code": "OR", "X-Forwarded-For": "8.8.8.8" }, "GET", clients[1]),
      await scan(id, {}, "GET", clients[2]),
    ];
    const flagged = [
      await scan(id, {}, "HEAD"),
      await scan(id, { "User-Agent": "facebookexternalhit/1.1" }),
      await scan(id, { "User-Agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" }),
      await scan(id, { "Sec-Purpose": "prefetch" }),
    ];
    for (const res of [...counted, ...flagged]) assert.equal(res.status, 302);
    // Recorded (published) before the 302; the consumer decides person, unique or repeat seconds later.
    for (const res of counted) assert.equal(res.headers.get("x-scan-counted"), "recorded");
    for (const res of flagged) assert.match(res.headers.get("x-scan-counted") ?? "", /^false; reason=(head-request|preview|prefetch)$/);

    const analytics = await analyticsWhen(merchant, { uniqueQRCodeID: id, days: 7 }, 3);
    // Settled once every scan sent is accounted for, as a person's or a machine's: then none can land later.
    const sent = counted.length + flagged.length;
    const settled = await eventually(
      async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7 }, merchant.apiKey)),
      (a: any) => a.totalScans + a.botScans.total >= sent,
      { what: `all ${sent} scans recorded` },
    );
    assert.equal(settled.totalScans, 3);
    assert.deepEqual(settled.botScans, { total: 4, byReason: { "head-request": 1, preview: 2, prefetch: 1 } }, "machines are shown apart");
    assert.equal(analytics.byDay.length, 7);
    assert.equal(settled.byDay.filter((d: any) => d.scans === 0).length, 6, "zero days are present");
    assert.equal(settled.byDay[6].date, new Date().toISOString().slice(0, 10));
    assert.equal(settled.byDay[6].scans, 3);
    // Each scan is placed by the geolocation database from the client's address, as in production.
    const places = settled.scans.map((s: any) => `${s.city}/${s.state}`).sort();
    const expected = (await Promise.all(clients.map((c) => c.place()))).map((p) => `${p.city}/${p.state}`).sort();
    assert.deepEqual(places, expected);
    assert.ok(expected.every((p) => !p.includes("unknown")), "the database knows these addresses");
    assert.ok(!JSON.stringify(settled).includes("Forgedville") && !JSON.stringify(settled).includes("Mountain View"));
    const times = settled.scans.map((s: any) => Date.parse(s.at));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");
    assert.ok(settled.scans.every((s: any) => s.date === settled.byDay[6].date));
    // The console's own address and the hosts scanned on (locally the front's address) are not a scanner's.
    const { consoleUrl: _link, byHost, ...figures } = settled;
    assert.deepEqual((byHost ?? []).map((h: { host: string }) => h.host), [new URL(code.dynamicLink as string).host], "every person here scanned on the service's own host");
    assert.ok(!JSON.stringify(figures).match(/\d+\.\d+\.\d+\.\d+/), "no IP address anywhere");
  });

  it("many concurrent scans of one code lose no counts", async () => {
    const code = await createDynamic(merchant, "https://example.com/hot");
    // 50 people (10 at the default TEST_SCALE, still more than the 15 requests in flight) scanning three
    // times each: all counted, each unique (a person's 4th scan in a minute would be a repeat).
    const people = Array.from({ length: scaled(50, 10) }, () => newClient());
    const total = people.length * 3;
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const person = people[next++ % people.length];
        const res = await scan(code.uniqueQRCodeID, {}, "GET", person);
        assert.equal(res.status, 302);
      }
    };
    await Promise.all(Array.from({ length: 15 }, worker));
    // Every scan was recorded before its 302; the consumer counts them once it catches up.
    const analytics = await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)), total);
    assert.equal(analytics.totalScans, total, "every recorded scan counted by the consumer");
    assert.equal(analytics.uniqueScanners, people.length);
    assert.equal(analytics.repeatScans, 0);
    assert.equal(analytics.byDay[0].scans, total);
    // The scan list is cut to keep the result within about 6,000 tokens, and says so.
    assert.equal(analytics.scans.length, analytics.scansListed);
    assert.equal(analytics.scansTruncated, analytics.scans.length < total);
    assert.ok(analytics.scans.length >= 20, `${analytics.scans.length} scans listed`);
  });

  it("records scans from the service's app for static codes", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "static", destinationUrl: "https://example.com/static" }, merchant.apiKey));
    const user = await signUp();
    const phone = newClient();
    const post = (body: unknown, token?: string) =>
      phone.fetch(`${appUrl()}/api/scans`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    assert.equal((await post({ uniqueQRCodeID: code.uniqueQRCodeID }, user.idToken)).status, 201);
    assert.equal((await post({ uniqueQRCodeID: code.uniqueQRCodeID, city: "Injected", state: "TX" }, user.idToken)).status, 400, "the place is the server's");
    const repeat = await post({ uniqueQRCodeID: code.uniqueQRCodeID }, user.idToken);
    assert.equal(repeat.status, 200);
    assert.equal(((await repeat.json()) as { counted: boolean }).counted, false, "once per user per code per 10 minutes");
    const other = await signUp();
    assert.equal((await post({ uniqueQRCodeID: code.uniqueQRCodeID }, other.idToken)).status, 201);
    assert.equal((await post({ uniqueQRCodeID: code.uniqueQRCodeID })).status, 401);
    assert.equal((await post({ uniqueQRCodeID: "ZZZZZZZZZZZZ" }, user.idToken)).status, 404);
    assert.equal((await post({ uniqueQRCodeID: code.uniqueQRCodeID, ip: "1.2.3.4" }, user.idToken)).status, 400);
    const analytics = toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId }, merchant.apiKey));
    assert.equal(analytics.totalScans, 2);
    assert.equal(analytics.byDay.length, 30, "days defaults to 30");
    assert.ok(analytics.scans.every((s: any) => s.source === "app"));
    const place = await phone.place();
    assert.ok(analytics.scans.every((s: any) => s.city === place.city && s.state === place.state));
  });

  it("scan_summary totals the workspace by day and rolls up by campaign", async () => {
    const m = await createMerchant();
    const spring = await createDynamic(m, "https://example.com/s", { campaign: "spring.sale" });
    const summer = await createDynamic(m, "https://example.com/u", { campaign: "summer" });
    const plain = await createDynamic(m, "https://example.com/p");
    for (const [code, n] of [[spring, 3], [summer, 2], [plain, 1]] as const) {
      for (let i = 0; i < n; i++) await scan(code.uniqueQRCodeID);
    }
    const summary = await analyticsWhen(m, { days: 3 }, 6, "svc.analytics.scan_summary");
    assert.equal(summary.totalScans, 6);
    assert.equal(summary.byDay.length, 3);
    assert.equal(summary.byDay[2].scans, 6);
    assert.deepEqual(summary.byCampaign, [
      { campaign: "spring.sale", scans: 3, uniqueScanners: 1 },
      { campaign: "summer", scans: 2, uniqueScanners: 1 },
      { campaign: null, scans: 1, uniqueScanners: 1 },
    ]);
    assert.equal(summary.uniqueScanners, 3, "one person, one unique per code and day");
    assert.deepEqual(summary.topCodes.map((c: any) => [c.codeId, c.scans]), [[spring.codeId, 3], [summer.codeId, 2], [plain.codeId, 1]]);
    for (const days of [0, 366, 2.5]) {
      assert.equal((await callTool("svc.analytics.scan_summary", { days }, m.apiKey)).body.error.code, -32602);
      assert.equal((await callTool("svc.qr.get_analytics", { codeId: spring.codeId, days }, m.apiKey)).body.error.code, -32602);
    }
  });

  it("no merchant can read another's analytics", async () => {
    const a = await createMerchant();
    const b = await createMerchant();
    const code = await createDynamic(a, "https://example.com/private");
    await scan(code.uniqueQRCodeID);
    await analyticsWhen(a, { codeId: code.codeId }, 1);
    for (const args of [{ codeId: code.codeId }, { uniqueQRCodeID: code.uniqueQRCodeID }]) {
      const res = await callTool("svc.qr.get_analytics", args, b.apiKey);
      assert.equal(res.body.error.data.code, "NOT_FOUND");
    }
    const summaryB = toolResult(await callTool("svc.analytics.scan_summary", {}, b.apiKey));
    assert.equal(summaryB.totalScans, 0);
  });
});
