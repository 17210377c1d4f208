// An A/B split's result through the local front (docs/attribution-figures.md): people scan a tracked code
// whose rule splits 50/50, some of them buy (POST /api/track/sale with the click id of their 302), and
// REST (GET /api/conversions) and MCP (svc.conversion.figures) show each arm's people, sales, rate, 95%
// Wilson interval and verdict. The expected figures are computed here from the counts, by a second
// implementation (the Wilson bounds as roots of the quadratic (x - np)^2 = z^2 np(1-p)), not by stats.ts.
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { eventually } from "../helpers/poll";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const HORIZON = 20;
const Z = 1.959963984540054;

async function rest(merchant: TestMerchant, p: string, method = "GET", body?: unknown) {
  const res = await fetch(`${appUrl()}${p}`, {
    method,
    headers: { Authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Wilson bounds as the roots of (n + z²)p² − (2x + z²)p + x²/n = 0: the same interval by another route. */
function wilsonRoots(x: number, n: number): [number, number] {
  const a = n + Z * Z;
  const b = -(2 * x + Z * Z);
  const c = (x * x) / n;
  const root = Math.sqrt(b * b - 4 * a * c);
  return [(-b - root) / (2 * a), (-b + root) / (2 * a)];
}

describe("conversion figures: an A/B split's arms, rates, intervals and verdict", function () {
  this.timeout(240_000);
  let merchant: TestMerchant;

  before(async () => {
    merchant = await createMerchant();
  });

  it("a 50/50 split with different conversion rates shows each arm's rate, interval and verdict, the same in REST and MCP", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Shop window", destinationUrl: "https://example.com/shop", dynamic: true }, merchant.apiKey));
    const split = { type: "split", variants: [{ url: "https://example.com/classic", weight: 50 }, { url: "https://example.com/bold", weight: 50 }] };
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [{ name: "Window test", when: {}, then: split }] } }, merchant.apiKey));
    assert.equal((await rest(merchant, `/api/track/codes/${code.codeId}`, "POST", { trackConversions: true })).status, 200);

    // People scan, each from a client of their own, until each arm has HORIZON of them.
    const clicks: Record<"classic" | "bold", string[]> = { classic: [], bold: [] };
    for (let i = 0; i < 200 && (clicks.classic.length < HORIZON || clicks.bold.length < HORIZON); i++) {
      const res = await newClient().fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
      await res.arrayBuffer();
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get("location")!);
      const arm = location.pathname === "/classic" ? "classic" : "bold";
      clicks[arm].push(location.searchParams.get("svc_sid")!);
    }
    const people = { classic: clicks.classic.length, bold: clicks.bold.length };
    // 2 of the classic arm's people buy, 12 of the bold arm's: 12.50 EUR each.
    const buyers = { classic: clicks.classic.slice(0, 2), bold: clicks.bold.slice(0, 12) };
    let invoice = 0;
    for (const clickId of [...buyers.classic, ...buyers.bold]) {
      const sale = await rest(merchant, "/api/track/sale", "POST", { clickId, amount: 1250, currency: "EUR", invoiceId: `INV-${++invoice}` });
      assert.equal(sale.status, 202, JSON.stringify(sale.body));
    }

    const query = `/api/conversions?codeId=${code.codeId}&days=2&horizon=${HORIZON}`;
    const figures = await eventually(
      () => rest(merchant, query).then((r) => r.body),
      (f: any) => f.total?.sales === 14 && f.abTests?.[0]?.arms?.every((a: any, i: number) => a.trials === (i === 0 ? people.classic : people.bold)),
      { what: "every scan and sale counted", timeoutMs: 90_000, intervalMs: 500 },
    );
    assert.deepEqual(figures.total.revenue, { EUR: 14 * 1250 });
    const test = figures.abTests[0];
    assert.equal(test.name, "Window test");
    assert.equal(test.atHorizon, true);
    assert.deepEqual(test.arms.map((a: any) => [a.label, a.successes]), [["Variant A", 2], ["Variant B", 12]]);
    for (const [i, arm] of (["classic", "bold"] as const).entries()) {
      const got = test.arms[i];
      const x = buyers[arm].length;
      const n = people[arm];
      const [low, high] = wilsonRoots(x, n);
      assert.ok(Math.abs(got.rate - x / n) < 1e-12 && Math.abs(got.low - low) < 1e-9 && Math.abs(got.high - high) < 1e-9, `${arm}: ${JSON.stringify(got)} against ${x}/${n} [${low}, ${high}]`);
    }
    // The pooled z by hand, and the verdict it implies at 95%.
    const [x1, n1, x2, n2] = [12, people.bold, 2, people.classic];
    const pooled = (x1 + x2) / (n1 + n2);
    const z = (x1 / n1 - x2 / n2) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    assert.ok(Math.abs(test.arms[1].z - z) < 1e-9);
    assert.equal(test.arms[1].state, "better");
    assert.match(test.verdict, /^Significant at 95%: Variant B converts better than Variant A \(\d+\.\d% against \d+\.\d%\)\.$/);
    assert.deepEqual(figures.byArm.map((a: any) => [a.arm, a.url, a.sales, a.revenue]), [
      ["0.0", "https://example.com/classic", 2, { EUR: 2500 }],
      ["0.1", "https://example.com/bold", 12, { EUR: 15000 }],
    ]);

    // The same answer through the tool server, named though not in the default list.
    const viaTool = toolResult(await callTool("svc.conversion.figures", { codeId: code.codeId, days: 2, horizon: HORIZON }, merchant.apiKey));
    assert.deepEqual(viaTool.abTests, figures.abTests);
    assert.deepEqual(viaTool.total, figures.total);

    // Before the horizon (a larger one fixed in advance), the verdict says so and gives no z.
    const early = (await rest(merchant, `/api/conversions?codeId=${code.codeId}&days=2&horizon=1000`)).body.abTests[0];
    assert.equal(early.atHorizon, false);
    assert.match(early.verdict, /^Not yet significant: the test is read once each arm has 1,000 people/);
    assert.deepEqual(early.arms.map((a: any) => a.z), [null, null]);
  });

  it("refuses a figures query out of bounds, in words", async () => {
    for (const q of ["days=0", "days=367", "horizon=5", "metric=clicks", "codeId=../x", "extra=1"]) {
      const r = await rest(merchant, `/api/conversions?${q}`);
      assert.equal(r.status, 400, q);
      assert.ok(typeof r.body.message === "string" && r.body.message.length > 0);
    }
    assert.equal((await rest(merchant, "/api/conversions?codeId=nosuchcode1234567890")).status, 404);
  });
});
