// The console's campaign routes (/api/console/codes/:codeId/campaign..., /api/console/utm-templates) through
// the front end, as the code page's rules editor calls them with a signed-in member's ID token: settings set
// and read back as written, a refusal that changes nothing, the sample-scan preview (which rule, where the
// scan goes, a split's variant per sample visitor, a closed schedule) that records nothing, another
// workspace's code not found, and UTM templates listed, added, replaced and removed.
import assert from "node:assert/strict";
import { consoleApi } from "../helpers/consoleApi";
import { createMerchant, type TestMerchant } from "../helpers/merchants";

const SETTINGS = {
  rules: [
    { name: "French speakers", when: { language: ["fr"] }, then: { type: "redirect", url: "https://example.com/fr" } },
    { name: "Happy hour", when: { time: { from: "17:00", to: "19:00" }, weekdays: ["fri"], device: ["mobile"] }, then: { type: "redirect", url: "https://example.com/happy" } },
    { name: "Table 12", when: { query: { name: "table", equals: "12" } }, then: { type: "ended" } },
    { name: "Paris time", when: { timeZone: "Europe/Paris", time: { from: "08:00", to: "09:00" } }, then: { type: "fallback" } },
    { name: "Everyone in Canada", when: { country: ["CA"] }, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 50 }] } },
  ],
  startsAt: "2026-12-01T05:00:00Z",
  endsAt: "2027-01-31T05:00:00Z",
  fallbackUrl: "https://example.com/over",
  utmTemplate: "poster",
};

/** A sample scan in the workspace's zone (America/New_York): a phone at 10:00 on Wednesday 2026-12-09. */
const sample = (over: Record<string, unknown> = {}) => ({ device: "mobile", localTime: "2026-12-09T10:00", ...over });
const UTM = "utm_source=qr&utm_medium=print";

describe("console API: campaign rules and UTM templates", function () {
  this.timeout(120_000);
  let owner: TestMerchant;
  let other: TestMerchant;
  let codeId: string;
  const path = () => `/codes/${codeId}/campaign`;
  const preview = (scan: Record<string, unknown>, settings: unknown = SETTINGS) => consoleApi(`${path()}/preview`, owner.idToken, { body: { settings, scan } });

  before(async () => {
    [owner, other] = await Promise.all([createMerchant(), createMerchant()]);
    const zone = await consoleApi("/workspace/time-zone", owner.idToken, { body: { timeZone: "America/New_York" } });
    assert.equal(zone.status, 200, JSON.stringify(zone.body));
    const code = await consoleApi("/codes", owner.idToken, { body: { title: "Winter poster", destinationUrl: "https://example.com/menu", dynamic: true } });
    assert.equal(code.status, 201, JSON.stringify(code.body));
    codeId = code.body.codeId;
  });

  it("lists, adds, replaces and removes UTM templates, refusing a bad one", async () => {
    assert.deepEqual((await consoleApi("/utm-templates", owner.idToken)).body, { templates: [] });
    const added = await consoleApi("/utm-templates", owner.idToken, { body: { name: "poster", source: "qr", medium: "flyer" } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.created, true);
    const replaced = await consoleApi("/utm-templates", owner.idToken, { body: { name: "poster", source: "qr", medium: "print" } });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.created, false);
    const extra = await consoleApi("/utm-templates", owner.idToken, { body: { name: "spare", source: "qr", medium: "mail", campaign: "winter" } });
    assert.equal(extra.status, 201);
    const bad = await consoleApi("/utm-templates", owner.idToken, { body: { name: "Bad Name", source: "qr", medium: "print" } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /name/);
    const removed = await consoleApi("/utm-templates/spare", owner.idToken, { method: "DELETE" });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual(removed.body, { name: "spare", deleted: true, templates: [{ name: "poster", source: "qr", medium: "print" }] });
    assert.equal((await consoleApi("/utm-templates/spare", owner.idToken, { method: "DELETE" })).status, 404);
    assert.deepEqual((await consoleApi("/utm-templates", owner.idToken)).body.templates.map((t: any) => t.name), ["poster"]);
    assert.deepEqual((await consoleApi("/utm-templates", other.idToken)).body.templates, [], "another workspace's templates are its own");
  });

  it("reads a code with no rules, sets rules, and reads them back as written", async () => {
    const before = await consoleApi(path(), owner.idToken);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.campaignRules, null);
    assert.equal(before.body.hasPassword, false);
    assert.equal(before.body.timeZone, "America/New_York");
    assert.ok(before.body.names.device.includes("mobile") && before.body.names.os.includes("iOS") && before.body.names.browser.includes("Safari"));
    const set = await consoleApi(path(), owner.idToken, { body: SETTINGS });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.campaignRules, SETTINGS);
    const read = await consoleApi(path(), owner.idToken);
    assert.deepEqual(read.body.campaignRules, SETTINGS, "read back as written (times HH:MM, the rule's own zone in its conditions)");
  });

  it("refuses bad settings with the field named and changes nothing", async () => {
    const five = { rules: [{ when: {}, then: { type: "split", variants: [1, 2, 3, 4, 5].map((i) => ({ url: `https://example.com/${i}`, weight: 20 })) } }] };
    const refused = await consoleApi(path(), owner.idToken, { body: five });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, "VALIDATION_FAILED");
    assert.ok(refused.body.details.issues.some((i: any) => i.path === "rules.0.then.variants" && /at most 4 variants/.test(i.message)), JSON.stringify(refused.body));
    const unknownTemplate = await consoleApi(path(), owner.idToken, { body: { ...SETTINGS, utmTemplate: "nope" } });
    assert.equal(unknownTemplate.status, 400);
    assert.match(unknownTemplate.body.message, /utmTemplate: this workspace has no UTM template named "nope"/);
    const badZone = await consoleApi(path(), owner.idToken, { body: { rules: [{ when: { timeZone: "Mars/Olympus" }, then: { type: "ended" } }] } });
    assert.equal(badZone.status, 400);
    assert.ok(badZone.body.details.issues.some((i: any) => i.path === "rules.0.when.timeZone"), JSON.stringify(badZone.body));
    assert.deepEqual((await consoleApi(path(), owner.idToken)).body.campaignRules, SETTINGS, "nothing changed");
  });

  it("previews which rule a sample scan matches and where it goes, in the workspace's zone, recording nothing", async () => {
    const cases: Array<[string, Record<string, unknown>, { ruleIndex: number | null; result: string; url: string | null; state?: string }]> = [
      ["nothing matches", {}, { ruleIndex: null, result: "destination", url: `https://example.com/menu?${UTM}` }],
      ["French first choice", { acceptLanguage: "fr-CA,fr;q=0.9,en;q=0.5" }, { ruleIndex: 0, result: "redirect", url: `https://example.com/fr?${UTM}` }],
      ["English first, French second", { acceptLanguage: "en-US,fr;q=0.9" }, { ruleIndex: null, result: "destination", url: `https://example.com/menu?${UTM}` }],
      // Friday 2026-12-11 18:30 in New York: 23:30 UTC.
      ["happy hour on a phone", { localTime: "2026-12-11T18:30" }, { ruleIndex: 1, result: "redirect", url: `https://example.com/happy?${UTM}` }],
      ["happy hour on a desktop", { localTime: "2026-12-11T18:30", device: "desktop" }, { ruleIndex: null, result: "destination", url: `https://example.com/menu?${UTM}` }],
      ["table 12", { query: "?table=12" }, { ruleIndex: 2, result: "ended", url: null }],
      // 02:30 in New York is 08:30 in Paris: the rule reads its own zone.
      ["Paris morning", { localTime: "2026-12-09T02:30" }, { ruleIndex: 3, result: "fallback", url: `https://example.com/over?${UTM}` }],
      ["before the start", { localTime: "2026-11-30T23:59" }, { ruleIndex: null, result: "fallback", url: `https://example.com/over?${UTM}`, state: "not-started" }],
      ["just at the start", { localTime: "2026-12-01T00:00" }, { ruleIndex: null, result: "destination", url: `https://example.com/menu?${UTM}` }],
      ["after the end", { localTime: "2027-01-31T00:00", acceptLanguage: "fr" }, { ruleIndex: null, result: "fallback", url: `https://example.com/over?${UTM}`, state: "ended" }],
    ];
    for (const [what, over, expected] of cases) {
      const res = await preview(sample(over));
      assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
      const { ruleIndex, result, url, state } = res.body;
      assert.deepEqual({ ruleIndex, result, url, state }, { ruleIndex: expected.ruleIndex, result: expected.result, url: expected.url, state: expected.state ?? null }, what);
      assert.equal(res.body.timeZone, "America/New_York");
    }
    const friday = await preview(sample({ localTime: "2026-12-11T18:30" }));
    assert.equal(friday.body.at, "2026-12-11T23:30:00.000Z");
    assert.equal(friday.body.ruleName, "Happy hour");

    // A split: each sample visitor keeps one variant; visitors spread over both.
    const seen = new Map<number, string>();
    for (let visitor = 1; visitor <= 12; visitor++) {
      const res = await preview(sample({ country: "ca", sampleVisitor: visitor }));
      assert.equal(res.body.result, "split");
      assert.equal(res.body.ruleIndex, 4);
      assert.equal(res.body.url, `https://example.com/${"ab"[res.body.variant]}?${UTM}`);
      seen.set(visitor, res.body.url);
    }
    assert.equal(new Set(seen.values()).size, 2, "twelve visitors land on both variants");
    assert.equal((await preview(sample({ country: "CA", sampleVisitor: 3 }))).body.url, seen.get(3), "the same visitor, the same variant");
    const bot = await preview(sample({ country: "CA", visitor: "bot" }));
    assert.equal(bot.body.result, "split");

    // The cap closes the code for a sample past it; unsaved settings are what is previewed.
    const capped = await preview(sample({ humanScans: 5 }), { rules: [], humanScanCap: 5 });
    assert.deepEqual([capped.body.state, capped.body.result, capped.body.url], ["capped", "ended", null]);
    const draftOnly = await preview(sample(), { rules: [{ when: {}, then: { type: "redirect", url: "https://example.com/draft" } }] });
    assert.deepEqual([draftOnly.body.ruleIndex, draftOnly.body.url], [0, "https://example.com/draft"]);
    assert.deepEqual((await consoleApi(path(), owner.idToken)).body.campaignRules, SETTINGS, "previews change nothing");

    // Refused as setting them would refuse them, with the field named.
    const bad = await preview(sample(), { rules: [{ when: { colour: ["red"] }, then: { type: "ended" } }] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /unknown condition "colour"/);
    // A scan-count condition sees the sample's people's scans so far; a fifth threshold is refused.
    const firstFour = { rules: [{ when: { scanCount: { max: 3 } }, then: { type: "ended" } }] };
    assert.equal((await preview(sample({ humanScans: 3 }), firstFour)).body.result, "ended");
    assert.equal((await preview(sample({ humanScans: 4 }), firstFour)).body.result, "destination");
    const tooMany = await preview(sample(), { rules: [1, 2, 3, 4, 5].map((n) => ({ when: { scanCount: { min: n * 10 } }, then: { type: "ended" } })) });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.message, /at most 4 distinct thresholds/);
    const badSample = await preview({ device: "phone", localTime: "tomorrow" });
    assert.equal(badSample.status, 400);
    assert.match(badSample.body.message, /scan\.device: unknown device type "phone"/);
    assert.match(badSample.body.message, /scan\.localTime/);

    const analytics = await consoleApi(`/codes/${codeId}/analytics?days=7`, owner.idToken);
    assert.equal(analytics.status, 200);
    assert.equal(analytics.body.totalScans, 0, "a preview records no scan");
  });

  it("keeps a code's rules to its workspace: another workspace gets 404 reading, setting or previewing", async () => {
    assert.equal((await consoleApi(path(), other.idToken)).status, 404);
    assert.equal((await consoleApi(path(), other.idToken, { body: { rules: [] } })).status, 404);
    assert.equal((await consoleApi(`${path()}/preview`, other.idToken, { body: { settings: { rules: [] }, scan: sample() } })).status, 404);
    assert.deepEqual((await consoleApi(path(), owner.idToken)).body.campaignRules, SETTINGS, "untouched");
    assert.equal((await consoleApi(path(), undefined)).status, 401);
  });

  it("clears the rules with an empty list", async () => {
    const cleared = await consoleApi(path(), owner.idToken, { body: { rules: [] } });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.campaignRules, null);
    assert.equal((await consoleApi(path(), owner.idToken)).body.campaignRules, null);
  });
});
