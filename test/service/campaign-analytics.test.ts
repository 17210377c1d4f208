// Figures per campaign rule and A/B variant, per UTM source and medium, and a closed campaign's scans,
// through the local front end (docs/campaign-rules.md, "Figures per rule"): what the redirect answered is
// what the rollups count (MCP and the console), what the CSV lists, and what the stream carries.
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { consoleAs } from "../helpers/consoleApi";
import { eventually } from "../helpers/poll";
import { pullScans, subscribeToScans } from "../helpers/pubsub";
import { documentedQueries, streamDatabase } from "../helpers/scanStreamSql";
import { scansCsv } from "../../console/files";
import { SCAN_EVENT_VERSION } from "../../functions/src/store/scanEvents";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

async function scan(id: string, client: TestClient, userAgent: string, language = "en-US"): Promise<{ status: number; location: string | null; counted: string | null }> {
  const res = await client.fetch(`${baseUrl()}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": userAgent, "Accept-Language": language } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), counted: res.headers.get("x-scan-counted") };
}

async function rest(merchant: TestMerchant, path: string, body: unknown) {
  const res = await fetch(`${appUrl()}${path}`, { method: "POST", headers: { Authorization: `Bearer ${merchant.apiKey}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${res.status} ${await res.text()}`);
}

describe("campaign figures: per rule and variant, per UTM source and medium, and closed answers", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("counts each person under the rule and variant that answered them, in MCP, the console, the CSV and the stream", async () => {
    await rest(merchant, "/api/utm-templates", { name: "flyer", source: "flyer", medium: "print" });
    const code = toolResult(await callTool("svc.qr.create", { title: "Spring flyer", destinationUrl: "https://example.com/home", dynamic: true }, merchant.apiKey));
    const ended = toolResult(await callTool("svc.qr.create", { title: "Winter flyer", destinationUrl: "https://example.com/winter", dynamic: true }, merchant.apiKey));
    const split = [
      { url: "https://example.com/a", weight: 50 },
      { url: "https://example.com/b", weight: 50 },
    ];
    toolResult(
      await callTool(
        "svc.qr.set_rules",
        {
          codeId: code.codeId,
          settings: {
            utmTemplate: "flyer",
            rules: [
              { name: "French speakers", when: { language: ["fr"] }, then: { type: "redirect", url: "https://example.com/fr" } },
              { name: "Phones", when: { device: ["mobile"] }, then: { type: "split", variants: split } },
            ],
          },
        },
        merchant.apiKey,
      ),
    );
    toolResult(await callTool("svc.qr.set_rules", { codeId: ended.codeId, settings: { rules: [], endsAt: "2020-01-01T00:00:00Z" } }, merchant.apiKey));
    const subscription = await subscribeToScans();

    // 2 French speakers, 12 phones (a 50/50 split), 1 desktop (no rule: the destination), 1 crawler.
    const answered = new Map<string, string>();
    for (let i = 0; i < 2; i++) answered.set(`fr${i}`, (await scan(code.uniqueQRCodeID, newClient(), PHONE, "fr-FR,fr;q=0.9")).location!);
    for (let i = 0; i < 12; i++) answered.set(`phone${i}`, (await scan(code.uniqueQRCodeID, newClient(), PHONE)).location!);
    answered.set("desktop", (await scan(code.uniqueQRCodeID, newClient(), DESKTOP)).location!);
    const crawler = await scan(code.uniqueQRCodeID, newClient(), CRAWLER);
    assert.match(crawler.counted ?? "", /^false; reason=/);
    // A person's scan of the ended code: the ended page, counted apart.
    const closed = await scan(ended.uniqueQRCodeID, newClient(), PHONE);
    assert.equal(closed.status, 200);
    assert.equal(closed.counted, "false; reason=ended");

    const utm = "utm_source=flyer&utm_medium=print";
    const locations = [...answered.values()];
    assert.equal(locations.filter((l) => l === `https://example.com/fr?${utm}`).length, 2);
    assert.equal(locations.filter((l) => l === `https://example.com/home?${utm}`).length, 1);
    const onA = locations.filter((l) => l === `https://example.com/a?${utm}`).length;
    const onB = locations.filter((l) => l === `https://example.com/b?${utm}`).length;
    assert.equal(onA + onB, 12, locations.join(" "));
    assert.ok(onA > 0 && onB > 0, `both variants answered (${onA} / ${onB})`);

    const expectedByRule = [
      { rule: 0, name: "French speakers", scans: 2, variants: [] },
      {
        rule: 1,
        name: "Phones",
        scans: 12,
        variants: [
          { variant: 0, url: "https://example.com/a", scans: onA },
          { variant: 1, url: "https://example.com/b", scans: onB },
        ].filter((v) => v.scans > 0),
      },
      { rule: null, name: null, scans: 1, variants: [] },
    ];
    // MCP: the code's figures per rule and variant, the same as the answers given.
    const analytics = await eventually(
      async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7 }, merchant.apiKey)),
      // The crawler's scan is counted apart from the people's (another delivery to the consumer): wait for both.
      (a) => a.totalScans === 15 && a.botScans.total === 1,
      { what: "15 people's scans and the crawler's in the code's figures" },
    );
    assert.deepEqual(analytics.byRule, expectedByRule);
    assert.deepEqual(analytics.byUtm, [{ source: "flyer", medium: "print", scans: 15 }]);
    assert.equal(analytics.botScans.total, 1);
    assert.deepEqual(analytics.endedScans, { total: 0, byReason: {} });
    assert.ok(analytics.scans.every((s: Record<string, unknown>) => !("rule" in s)), "the tool's scans follow its schema (per-rule figures are byRule's)");
    // The workspace: grouped by source and medium; the closed campaign's scan counted under endedScans, not as a person's.
    const summary = await eventually(
      async () => toolResult(await callTool("svc.analytics.scan_summary", { days: 7 }, merchant.apiKey)),
      (a) => a.totalScans === 15 && a.endedScans.total === 1,
      { what: "the workspace's 15 people's scans and the ended code's scan" },
    );
    assert.equal(summary.totalScans, 15);
    assert.deepEqual(summary.byUtm, [{ source: "flyer", medium: "print", scans: 15 }]);
    assert.deepEqual(summary.endedScans, { total: 1, byReason: { ended: 1 } });
    assert.equal(summary.byRule, undefined, "rule positions mean something per code only");

    // The console: the same figures, and each listed scan with its rule and variant (the CSV's columns).
    const owner = consoleAs(merchant.idToken);
    const shown = await owner.get(`/codes/${code.codeId}/analytics?days=7`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual(shown.body.byRule, expectedByRule);
    const ruleOf = (s: { rule?: number | null; variant?: number | null }) => `${s.rule === null ? "d" : s.rule}${s.variant === null || s.variant === undefined ? "" : `.${s.variant}`}`;
    const listed = (shown.body.scans as Array<{ rule?: number | null; variant?: number | null }>).map(ruleOf).sort();
    const expectedList = [...Array(2).fill("0"), ...Array(onA).fill("1.0"), ...Array(onB).fill("1.1"), "d"].sort();
    assert.deepEqual(listed, expectedList);
    const csv = scansCsv(shown.body.scans).trim().split("\r\n");
    assert.match(csv[0], /,unique,rule,variant$/);
    assert.equal(csv.filter((line) => line.endsWith(",1,")).length, 2, "rule 1 (as people number it) is the French rule");
    assert.equal(csv.filter((line) => line.endsWith(",destination,")).length, 1);
    assert.equal(csv.filter((line) => /,2,[12]$/.test(line)).length, 12, "the split's people carry their variant");
    const endedShown = await owner.get(`/codes/${ended.codeId}/analytics?days=7`);
    assert.deepEqual([endedShown.body.totalScans, endedShown.body.endedScans, endedShown.body.byRule], [0, { total: 1, byReason: { ended: 1 } }, []]);

    // The stream: every scan with the rule that answered it; the documented queries agree with the rollups.
    const messages = await pullScans(subscription, 17);
    const mine = messages.map((m) => m.event).filter((e) => e.merchant_id === merchant.merchantId);
    assert.equal(mine.length, 17);
    for (const e of mine.filter((e) => e.code_id === code.codeId)) {
      assert.equal(e.schema_version, SCAN_EVENT_VERSION);
      assert.deepEqual([e.utm_source, e.utm_medium, e.rule_answered, e.ended_reason], ["flyer", "print", 1, null]);
    }
    // The crawler is answered by the rules too (not counted as a person): its event names the rule its answer followed.
    const bot = mine.find((e) => e.kind === "bot")!;
    assert.equal(bot.rule_index, crawler.location?.startsWith("https://example.com/home") ? null : 1, String(crawler.location));
    const closedEvent = mine.find((e) => e.code_id === ended.codeId)!;
    assert.deepEqual([closedEvent.ended_reason, closedEvent.rule_answered, closedEvent.rule_index, closedEvent.utm_source], ["ended", null, null, null]);
    const { query } = await streamDatabase(mine.map((e, i) => ({ ...e, message_id: `m${i}`, publish_time: e.at })));
    const [, , daySummary, , perRule, perUtm] = documentedQueries();
    const rows = query(perRule).map((r) => `${r.rule_index ?? "d"}${r.variant === null ? "" : `.${r.variant}`}=${r.scans}`);
    assert.deepEqual(rows.sort(), expectedByRule.flatMap((r) => (r.variants.length ? r.variants.map((v) => `${r.rule}.${v.variant}=${v.scans}`) : [`${r.rule ?? "d"}=${r.scans}`])).sort());
    assert.deepEqual(query(perUtm).map((r) => [r.utm_source, r.utm_medium, r.scans]), [["flyer", "print", 15]]);
    assert.deepEqual(query(daySummary).find((r) => r.code_id === ended.codeId), { merchant_id: merchant.merchantId, code_id: ended.codeId, day: closedEvent.day, scans: 0, unique_scanners: 0, repeat_scans: 0, bot_scans: 0, ended_scans: 1 });
  });
});
