// A dynamic code's campaign rules as a shop owner edits them in the console: a UTM template added in
// Settings, two rules written (a language rule and an A/B split), reordered, a sample scan tried on the
// unsaved rules and said in words, a refusal read as a sentence naming the rule, then saved and shown again
// after a reload; screenshots at 1280 and 390 px with no sideways scroll, clipped control or broken word.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { consoleApi } from "../helpers/consoleApi";
import { lookAtWidths, openView, signedInSession } from "./harness";

const shoot = (page: Page, name: string) => lookAtWidths(page, `campaign-${name}`);

const UTM = "utm_source=qr&utm_medium=print&utm_campaign=winter";

describe("merchant console: campaign rules", function () {
  this.timeout(240_000);
  const session = signedInSession();
  let page: Page;
  let codeId: string;

  before(async () => {
    page = session.page;
    // Settings loads a dozen sections from emulated functions that start cold on a shared, loaded machine.
    page.setDefaultTimeout(90_000);
    const code = await consoleApi("/codes", session.merchant.idToken, { body: { title: "Winter poster", destinationUrl: "https://example.com/menu", dynamic: true } });
    assert.equal(code.status, 201, JSON.stringify(code.body));
    codeId = code.body.codeId;
  });

  it("adds a UTM template in Settings", async () => {
    await openView(page, "#/settings", "#utm-templates");
    assert.match((await page.textContent("#utm-empty"))!, /No UTM templates yet/);
    await page.fill("#utm-name", "poster");
    await page.fill("#utm-source", "qr");
    await page.fill("#utm-medium", "print");
    await page.fill("#utm-campaign", "winter");
    await page.click("#utm-save");
    await page.waitForSelector('#utm-rows tr[data-name="poster"]');
    assert.match((await page.textContent("#app > .notice"))!, /UTM template poster added/);
    await page.locator("#utm-templates").scrollIntoViewIfNeeded();
    await shoot(page, "utm");
  });

  it("writes two rules, reorders them, and tries sample scans on the unsaved rules", async () => {
    await openView(page, `#/code/${codeId}`, "#code-campaign");
    assert.match((await page.textContent("#campaign-no-rules"))!, /No rules/);
    await page.click("#campaign-add-rule");
    await page.click("#campaign-add-rule");
    const rules = page.locator("#campaign-rules fieldset.campaign-rule");
    assert.equal(await rules.count(), 2);
    const [first, second] = [rules.nth(0), rules.nth(1)];
    await first.getByLabel("Rule name (optional)").fill("Everyone");
    await first.locator("select.rule-action").selectOption("split");
    const variants = first.locator("fieldset.variant");
    await variants.nth(0).getByLabel("URL").fill("https://example.com/a");
    await variants.nth(0).getByLabel("Share (%)").fill("60");
    await variants.nth(1).getByLabel("URL").fill("https://example.com/b");
    await variants.nth(1).getByLabel("Share (%)").fill("50");
    await second.getByLabel("Rule name (optional)").fill("French speakers");
    await second.locator("input.rule-language").fill("fr");
    await second.locator("input.rule-url").fill("https://example.com/fr");
    // The split matches everyone: the French rule must come first.
    await second.locator("button.rule-up").click();
    assert.deepEqual(await page.locator("#campaign-rules fieldset.campaign-rule > legend").allTextContents(), ["Rule 1: French speakers", "Rule 2: Everyone"]);
    await page.selectOption("#campaign-utm", "poster");
    await page.fill("#campaign-fallback", "https://example.com/over");

    // A refusal, as a sentence naming the rule and the field; nothing saved.
    await page.click("#campaign-save");
    await page.waitForSelector("#campaign-status .error");
    const refusal = (await page.textContent("#campaign-status"))!;
    assert.match(refusal, /Rule 2 “Everyone”, A\/B split: an A\/B split's weights must sum to 100; these sum to 110\./);
    assert.doesNotMatch(refusal, /rules\.1|VALIDATION_FAILED|[{}]/, "a sentence, not the raw answer");
    assert.equal((await consoleApi(`/codes/${codeId}/campaign`, session.merchant.idToken)).body.campaignRules, null, "nothing saved");
    await shoot(page, "refused");

    await page.locator("#campaign-rules fieldset.campaign-rule").nth(1).locator("fieldset.variant").nth(1).getByLabel("Share (%)").fill("40");
    await page.fill("#sample-language", "fr-CA,fr;q=0.9");
    await page.selectOption("#sample-device", "desktop");
    await page.click("#sample-try");
    await page.waitForSelector('#sample-answer[data-rule="0"] .notice');
    assert.match((await page.textContent("#sample-answer"))!, new RegExp(`Rule 1 “French speakers” matches: the scan goes to https://example\\.com/fr\\?${UTM}\\.`));

    await page.fill("#sample-language", "en-GB");
    await page.click("#sample-try");
    await page.waitForSelector('#sample-answer[data-rule="1"] .notice');
    const split = (await page.textContent("#sample-answer"))!;
    assert.match(split, new RegExp(`Rule 2 “Everyone” matches: an A/B split\\. Sample visitor 1 gets variant (A \\(60%\\) and goes to https://example\\.com/a|B \\(40%\\) and goes to https://example\\.com/b)\\?${UTM}\\.`));
    assert.match(split, /Nothing was recorded/);
    await page.locator("#campaign-sample").scrollIntoViewIfNeeded();
    await shoot(page, "sample");

    // A closed schedule: the code starts later than the sample.
    await page.fill("#campaign-starts", "2030-01-01T09:00");
    await page.click("#sample-try");
    await page.waitForSelector('#sample-answer[data-rule="none"] .notice');
    assert.match((await page.textContent("#sample-answer"))!, new RegExp(`The code has not started yet at that time, so no rule is tried: the scan goes to https://example\\.com/over\\?${UTM} \\(the fallback URL\\)\\.`));
    await page.fill("#campaign-starts", "");
  });

  it("saves the rules and shows them again after a reload", async () => {
    await page.click("#campaign-save");
    await page.waitForSelector("#campaign-status .notice");
    assert.match((await page.textContent("#campaign-status"))!, /Saved: the next scan follows these 2 rules\./);
    const saved = await consoleApi(`/codes/${codeId}/campaign`, session.merchant.idToken);
    assert.deepEqual(saved.body.campaignRules, {
      rules: [
        { name: "French speakers", when: { language: ["fr"] }, then: { type: "redirect", url: "https://example.com/fr" } },
        { name: "Everyone", when: {}, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 60 }, { url: "https://example.com/b", weight: 40 }] } },
      ],
      fallbackUrl: "https://example.com/over",
      utmTemplate: "poster",
    });

    await page.reload();
    await page.waitForSelector("#app[data-view] #code-campaign #campaign-rules fieldset.campaign-rule");
    assert.deepEqual(await page.locator("#campaign-rules fieldset.campaign-rule > legend").allTextContents(), ["Rule 1: French speakers", "Rule 2: Everyone"]);
    const rules = page.locator("#campaign-rules fieldset.campaign-rule");
    assert.equal(await rules.nth(0).locator("input.rule-language").inputValue(), "fr");
    assert.equal(await rules.nth(1).locator("select.rule-action").inputValue(), "split");
    assert.deepEqual(await rules.nth(1).locator("input.variant-weight").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)), ["60", "40"]);
    assert.equal(await page.inputValue("#campaign-utm"), "poster");
    assert.equal(await page.inputValue("#campaign-fallback"), "https://example.com/over");

    // Every control, the Advanced (JSON) box and the schedule round-trip exactly: written by the API, shown, saved unchanged.
    const full = {
      rules: [
        {
          name: "Everything",
          when: {
            device: ["mobile", "tablet"],
            os: ["iOS"],
            browser: ["Safari"],
            country: ["US", "CA"],
            region: [{ country: "US", region: "new york" }],
            language: ["fr", "pt-br"],
            time: { from: "22:00", to: "02:00" },
            weekdays: ["fri", "sat"],
            dates: { from: "2026-12-01" },
            timeZone: "Europe/Paris",
            query: { name: "table", equals: "12" },
            visitor: "human",
          },
          then: { type: "password", url: "https://example.com/vip" },
        },
        ...saved.body.campaignRules.rules,
      ],
      startsAt: "2026-12-01T05:00:00Z",
      endsAt: "2027-01-31T04:59:00Z",
      humanScanCap: 500,
      fallbackUrl: "https://example.com/over",
      utmTemplate: "poster",
      endedPage: { heading: "Winter offer is over", message: "See you in spring & thanks for scanning." },
    };
    const written = await consoleApi(`/codes/${codeId}/campaign`, session.merchant.idToken, { body: { ...full, password: "open-sesame" } });
    assert.equal(written.status, 200, JSON.stringify(written.body));
    await page.reload();
    await page.waitForSelector("#app[data-view] #code-campaign #campaign-rules fieldset.campaign-rule");
    assert.match(await page.locator("#campaign-password").evaluate((el) => (el as HTMLInputElement).labels![0].textContent!), /empty: keep it/);
    assert.equal(await page.locator("#campaign-rules fieldset.campaign-rule").nth(0).locator("textarea.rule-advanced").inputValue(), '{"timeZone":"Europe/Paris"}');
    assert.equal(await page.inputValue("#campaign-ended-heading"), "Winter offer is over");
    assert.equal(await page.inputValue("#campaign-ended-message"), "See you in spring & thanks for scanning.");
    await page.click("#campaign-save");
    await page.waitForSelector("#campaign-status .notice");
    const again = await consoleApi(`/codes/${codeId}/campaign`, session.merchant.idToken);
    assert.deepEqual(again.body.campaignRules, full);
    assert.equal(again.body.hasPassword, true, "the password is kept");
    await page.locator("#code-campaign").scrollIntoViewIfNeeded();
    await shoot(page, "saved");
  });
});
