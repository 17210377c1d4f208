// Campaign rules through the local front end (docs/campaign-rules.md): set by svc.qr.set_rules or REST,
// carried out by the redirect on the very next scan.
import assert from "node:assert/strict";
import { scaled } from "../helpers/scale";
import { createHash } from "node:crypto";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const defaultClient = newClient();

async function scan(id: string, headers: Record<string, string> = {}, client: TestClient = defaultClient, suffix = "") {
  return client.fetch(`${baseUrl()}/qr/${id}${suffix}`, { method: "GET", redirect: "manual", headers: { "User-Agent": PHONE, ...headers } });
}

async function createDynamic(merchant: TestMerchant, destinationUrl: string, dynamic = true) {
  return toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl, dynamic }, merchant.apiKey));
}

const setRules = (merchant: TestMerchant, codeId: string, settings: unknown) => callTool("svc.qr.set_rules", { codeId, settings }, merchant.apiKey);

function restSetRules(merchant: TestMerchant, codeId: string, settings: unknown) {
  return fetch(`${appUrl()}/api/codes/${codeId}/rules`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` },
    body: JSON.stringify(settings),
  });
}

/** A refused call: a JSON-RPC error (the schema's -32602, the domain's -32000) or a tool result with isError. */
function refusal(res: { status: number; body: any }): string {
  assert.equal(res.status, 200);
  assert.ok(res.body.error !== undefined || res.body.result?.isError === true, JSON.stringify(res.body));
  assert.match(JSON.stringify(res.body), /VALIDATION_FAILED|NOT_FOUND/);
  return JSON.stringify(res.body);
}

const HOUR = 3_600_000;

describe("campaign rules: set and carried out by the redirect", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("routes by language and device, keeps a visitor on one A/B variant all day, and follows a change on the very next scan", async () => {
    const code = await createDynamic(merchant, "https://example.com/home");
    const set = toolResult(
      await setRules(merchant, code.codeId, {
        rules: [
          { name: "French", when: { language: ["fr"] }, then: { type: "redirect", url: "https://example.com/fr" } },
          { when: { os: ["iOS"] }, then: { type: "redirect", url: "https://example.com/ios" } },
          { when: { time: { from: "00:00", to: "23:59" }, query: { name: "table" } }, then: { type: "redirect", url: "https://example.com/table" } },
          { when: {}, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 50 }] } },
        ],
      }),
    );
    assert.equal(set.uniqueQRCodeID, code.uniqueQRCodeID);
    assert.deepEqual(set.campaignRules.rules[2].when.time, { from: "00:00", to: "23:59" }, "read back as written");
    const id = code.uniqueQRCodeID;
    assert.equal((await scan(id, { "Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5" })).headers.get("location"), "https://example.com/fr");
    assert.equal((await scan(id, { "User-Agent": IPHONE, "Accept-Language": "en-US" })).headers.get("location"), "https://example.com/ios");
    // 23:59 to 00:00 is outside the window: allow the one minute of the day the rule does not hold.
    const table = (await scan(id, { "Accept-Language": "en-US" }, defaultClient, "?table=12")).headers.get("location");
    assert.ok(table === "https://example.com/table" || /^https:\/\/example\.com\/[ab]$/.test(table ?? ""), String(table));

    // Each visitor keeps one variant; 24 visitors (16 scaled: both variants all but surely) see both.
    const clients = Array.from({ length: scaled(24, 16) }, () => newClient());
    const seen = new Map<string, string>();
    for (const client of clients) {
      const first = await scan(id, { "Accept-Language": "en-US" }, client);
      assert.equal(first.status, 302);
      assert.match(first.headers.get("location") ?? "", /^https:\/\/example\.com\/[ab]$/);
      seen.set(client.address, first.headers.get("location")!);
    }
    for (const client of clients.slice(0, 6)) {
      assert.equal((await scan(id, { "Accept-Language": "en-US" }, client)).headers.get("location"), seen.get(client.address), "sticky for the day");
    }
    assert.deepEqual(new Set(seen.values()), new Set(["https://example.com/a", "https://example.com/b"]));

    // A change applies on the very next scan; the destination serves when no rule matches.
    toolResult(await setRules(merchant, code.codeId, { rules: [{ when: { country: ["AQ"] }, then: { type: "redirect", url: "https://example.com/aq" } }] }));
    assert.equal((await scan(id, { "Accept-Language": "fr" })).headers.get("location"), "https://example.com/home");
    // {rules: []} removes them: the code is plain again.
    const cleared = toolResult(await setRules(merchant, code.codeId, { rules: [] }));
    assert.equal(cleared.campaignRules, null);
    assert.equal((await firestore().collection("links").doc(id).get()).get("campaignRules"), undefined);
    assert.equal((await scan(id)).headers.get("location"), "https://example.com/home");
  });

  it("a closed code answers the fallback URL or the ended page, never a 404, and its scans are recorded", async () => {
    const code = await createDynamic(merchant, "https://example.com/live");
    const id = code.uniqueQRCodeID;
    const now = Date.now();
    toolResult(await setRules(merchant, code.codeId, { rules: [], startsAt: new Date(now - 2 * HOUR).toISOString(), endsAt: new Date(now - HOUR).toISOString() }));
    const ended = await scan(id);
    assert.equal(ended.status, 200);
    assert.equal(ended.headers.get("location"), null);
    assert.equal(ended.headers.get("cache-control"), "no-store");
    const page = await ended.text();
    assert.match(page, /campaign has ended/);
    assert.ok(!page.includes("example.com/live"), "the destination is not in the page");

    toolResult(await setRules(merchant, code.codeId, { rules: [], startsAt: new Date(now + HOUR).toISOString(), fallbackUrl: "https://example.com/soon" }));
    const early = await scan(id);
    assert.equal(early.status, 302);
    assert.equal(early.headers.get("location"), "https://example.com/soon");

    toolResult(await setRules(merchant, code.codeId, { rules: [{ when: { visitor: "bot" }, then: { type: "ended" } }, { when: { device: ["mobile"] }, then: { type: "fallback" } }], fallbackUrl: "https://example.com/fb" }));
    const bot = await scan(id, { "User-Agent": "facebookexternalhit/1.1" });
    assert.equal(bot.status, 200);
    assert.match(await bot.text(), /campaign has ended/);
    assert.equal((await scan(id)).headers.get("location"), "https://example.com/fb");

    // Every scan answered is recorded: the closed code's two as "ended" (by reason), the bot as a bot, the
    // open code's fallback action as a person's scan.
    const analytics = await eventually(
      async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7 }, merchant.apiKey)),
      (a: any) => a.totalScans + a.botScans.total >= 2,
      { what: "2 scans recorded", timeoutMs: 15_000, intervalMs: 250 },
    );
    assert.equal(analytics.botScans.total, 1);
    assert.equal(analytics.totalScans, 1);
    // Counted by the consumer seconds after the answers: settled once both closed answers are there.
    const endedCounts = await eventually(
      async () => {
        const days = await firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", code.codeId).get();
        const counts: Record<string, number> = {};
        for (const d of days.docs) for (const [k, n] of Object.entries((d.get("e") ?? {}) as Record<string, number>)) counts[k] = (counts[k] ?? 0) + n;
        return counts;
      },
      (counts) => Object.values(counts).reduce((a, b) => a + b, 0) >= 2,
      { what: "the closed code's 2 scans counted as ended", timeoutMs: 15_000, intervalMs: 250 },
    );
    assert.deepEqual(endedCounts, { ended: 1, "not-started": 1 });
  });

  it("the ended page is the merchant's: the workspace's name, its heading and message, escaped, in the code's colours, with no destination", async () => {
    const shop = await createMerchant(undefined, `Caf\u00e9 <script>alert(1)</script> & "Co"`);
    const destination = "https://example.com/secret-offer";
    const code = toolResult(await callTool("svc.qr.create", { title: "ended", destinationUrl: destination, dynamic: true, design: { foreground: "#1E3A8A", background: "#FEF3C7" } }, shop.apiKey));
    const past = { startsAt: new Date(Date.now() - 2 * HOUR).toISOString(), endsAt: new Date(Date.now() - HOUR).toISOString() };
    const set = toolResult(await setRules(shop, code.codeId, { rules: [], ...past, endedPage: { heading: "Summer <b>sale</b> is over", message: "See you in autumn & thanks!" } }));
    assert.deepEqual(set.campaignRules.endedPage, { heading: "Summer <b>sale</b> is over", message: "See you in autumn & thanks!" }, "read back as written");
    const res = await scan(code.uniqueQRCodeID);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("location"), null);
    const page = await res.text();
    assert.ok(page.includes("Caf\u00e9 &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"), page);
    assert.ok(!page.includes("<script>") && !page.includes("<b>"), "nothing the merchant wrote is markup");
    assert.ok(page.includes("<h1>Summer &lt;b&gt;sale&lt;/b&gt; is over</h1>"), page);
    assert.ok(page.includes("See you in autumn &amp; thanks!"), page);
    assert.ok(!page.includes("example.com"), "no destination in the page");
    assert.match(page, /background:#FEF3C7\}body\{color:#1E3A8A/);
    // The CSP allows exactly the page's own style block (by hash), and no script.
    const csp = res.headers.get("content-security-policy") ?? "";
    const style = /<style>([^<]*)<\/style>/.exec(page)![1];
    assert.ok(csp.includes(`style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`), csp);
    assert.match(csp, /default-src 'none'/);
    assert.ok(!/script-src/.test(csp));

    // An `ended` rule shows the same page; without texts, the default ones under the workspace's name;
    // colours that do not read at the contrast floor fall back to the default style.
    const pale = toolResult(await callTool("svc.qr.create", { title: "pale", destinationUrl: destination, dynamic: true, design: { foreground: "#000000", background: "#FFFFFF" } }, shop.apiKey));
    // Written behind the design checks (which refuse such colours): an older design, say.
    await firestore().collection("workspaces").doc(shop.merchantId).collection("codes").doc(pale.codeId).update({ "design.foreground": "#777777", "design.background": "#888888" });
    toolResult(await setRules(shop, pale.codeId, { rules: [{ when: {}, then: { type: "ended" } }] }));
    const rule = await (await scan(pale.uniqueQRCodeID)).text();
    assert.ok(rule.includes('<p class="brand">Caf\u00e9 &lt;script&gt;'), rule);
    assert.match(rule, /campaign has ended/);
    assert.ok(!/html\{background/.test(rule), "default style");
  });

  it("refuses bad rules, parts not available and static codes, and changes nothing", async () => {
    const code = await createDynamic(merchant, "https://example.com/keep");
    toolResult(await setRules(merchant, code.codeId, { rules: [{ when: {}, then: { type: "redirect", url: "https://example.com/ruled" } }] }));
    const bad = [
      { rules: [{ when: {}, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 40 }] } }] },
      { rules: [{ when: { planet: ["mars"] }, then: { type: "ended" } }] },
      { rules: [{ when: {}, then: { type: "fallback" } }] },
      { rules: [], humanScanCap: 0 },
      { rules: [{ when: {}, then: { type: "password" } }] },
      { rules: [{ when: { scanCount: { max: 1 } }, then: { type: "ended" } }, { when: { scanCount: { min: 3, max: 4 } }, then: { type: "ended" } }, { when: { scanCount: { min: 7, max: 9 } }, then: { type: "ended" } }] },
      { rules: [], utmTemplate: "nope" },
    ];
    const messages = await Promise.all(bad.map(async (settings) => refusal(await setRules(merchant, code.codeId, settings))));
    assert.match(messages[0], /sum to 100; these sum to 90/);
    assert.match(messages[1], /unknown condition/);
    assert.match(messages[2], /needs fallbackUrl/);
    assert.match(messages[3], /humanScanCap is at least 1/);
    assert.match(messages[4], /password/);
    assert.match(messages[5], /at most 4 distinct thresholds per code/);
    assert.match(messages[6], /no UTM template named/);
    assert.equal((await scan(code.uniqueQRCodeID)).headers.get("location"), "https://example.com/ruled", "the old rules still apply");

    const fixed = await createDynamic(merchant, "https://example.com/static", false);
    assert.match(refusal(await setRules(merchant, fixed.codeId, { rules: [] })), /dynamic code/);
    const other = await createMerchant();
    assert.match(refusal(await setRules(other, code.codeId, { rules: [] })), /not found/i);
  });

  it("REST sets the same rules (in the OpenAPI document), and a UTM template's parameters go on every URL", async () => {
    const code = await createDynamic(merchant, "https://example.com/menu?lang=en");
    await firestore()
      .collection("workspaces")
      .doc(merchant.merchantId)
      .set({ utmTemplates: [{ name: "poster", source: "qr", medium: "print", campaign: "winter" }] }, { merge: true });
    const res = await restSetRules(merchant, code.codeId, {
      rules: [{ when: { query: { name: "src", equals: "tv" } }, then: { type: "redirect", url: "https://example.com/tv?utm_source=tv" } }],
      utmTemplate: "poster",
    });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as any;
    assert.equal(body.campaignRules.utmTemplate, "poster");
    assert.equal((await scan(code.uniqueQRCodeID)).headers.get("location"), "https://example.com/menu?lang=en&utm_source=qr&utm_medium=print&utm_campaign=winter");
    assert.equal((await scan(code.uniqueQRCodeID, {}, defaultClient, "?src=tv")).headers.get("location"), "https://example.com/tv?utm_source=tv&utm_medium=print&utm_campaign=winter");

    const refused = await restSetRules(merchant, code.codeId, { rules: [{ when: {}, then: { type: "teleport" } }] });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /unknown action type/);
    const doc = (await (await fetch(`${baseUrl()}/api/openapi.json`)).json()) as any;
    assert.ok(doc.paths["/api/codes/{codeId}/rules"]?.post, "in the OpenAPI document");
  });
});
