// A code's conversions on its console page (docs/attribution-figures.md), at 390 and 1280 px: the funnel
// (scans, people, leads, sales, revenue per currency, never summed across currencies) and an A/B split's
// arms with rate, 95% Wilson interval and verdict. The day's rollup is written as the scan consumer writes
// it (store/conversions.ts: `ru` people per arm, `cr` leads, sales and revenue per arm), so the page is
// checked against reference figures worked out independently: 50 of 1,000 people (5.0%, 3.8% to 6.5%)
// against 80 of 1,000 (8.0%, 6.5% to 9.8%), p = 0.0065, significant at 95%. Settings holds the workspace's
// conversion tracking and its Shopify shops.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { Timestamp } from "firebase-admin/firestore";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, type TestMerchant } from "../helpers/merchants";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, openView, PHONE, screenshot, signedInSession } from "./harness";

const today = () => new Date().toISOString().slice(0, 10); // the test workspace's zone is UTC

async function seedDay(merchant: TestMerchant, codeId: string, day: string, counts: Record<string, unknown>) {
  await firestore()
    .collection("workspaces")
    .doc(merchant.merchantId)
    .collection("codeDays")
    .doc(`${codeId}~${day}`)
    .set({ codeId, day, k: "none", shard: false, timeZone: "UTC", expiresAt: Timestamp.fromMillis(Date.now() + 40 * 86_400_000), ...counts });
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();

describe("merchant console: a code's conversions and A/B result", function () {
  this.timeout(180_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;

  before(() => ({ page, merchant } = session));

  it("shows the funnel with revenue per currency, and each arm's rate, interval and verdict, on a phone and a desktop", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Window poster", destinationUrl: "https://example.com/shop", dynamic: true }, merchant.apiKey));
    toolResult(
      await callTool(
        "svc.qr.set_rules",
        { codeId: code.codeId, settings: { rules: [{ name: "Poster test", when: {}, then: { type: "split", variants: [{ url: "https://example.com/shop?look=classic", weight: 50 }, { url: "https://example.com/shop?look=bold", weight: 50 }] } }] } },
        merchant.apiKey,
      ),
    );
    await seedDay(merchant, code.codeId, today(), {
      n: 2000,
      u: 1900,
      ru: { "0.0": 1000, "0.1": 1000 },
      cl: 270,
      cs: 130,
      cv: { EUR: 637000, JPY: 120000 },
      cr: { "0.0": { l: 120, s: 50, v: { EUR: 245000 } }, "0.1": { l: 150, s: 80, v: { EUR: 392000, JPY: 120000 } } },
    });

    await openView(page, `#/code/${code.codeId}?days=7`, "#code-conversions #funnel");
    assert.equal(await text(page, "#funnel-scans"), "2,000");
    assert.equal(await text(page, "#funnel-people"), "1,900");
    assert.match(await text(page, "#funnel-leads"), /^270\s+\(14\.2% of people\)$/);
    assert.match(await text(page, "#funnel-sales"), /^130\s+\(6\.8% of people\)$/);
    // Two currencies, two figures: €6,370.00 and ¥120,000, never one sum.
    assert.equal(await text(page, "#funnel-revenue"), "€6,370.00, ¥120,000");

    assert.equal(await text(page, "#ab-0-verdict"), "Significant at 95%: Variant B converts better than Variant A (8.0% against 5.0%).");
    // Each cell's lines as shown: the arm's letter over its URL, the interval's numbers over its bar.
    const rows = await page.locator("#ab-0-arms tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => (td as HTMLElement).innerText.trim().split("\n").map((l) => l.trim()))));
    assert.deepEqual(rows, [
      [["Variant A", "https://example.com/shop?look=classic"], ["50 / 1,000"], ["5.0%"], ["3.8% – 6.5%"], ["baseline"]],
      [["Variant B", "https://example.com/shop?look=bold"], ["80 / 1,000"], ["8.0%"], ["6.5% – 9.8%"], ["converts better"]],
    ]);
    // The bars share one scale: B's interval (6.47% up) starts just inside A's (up to 6.53%), and ends well past it.
    const bars = await page.locator("#ab-0-arms svg.ci .ci-range").evaluateAll((rects) => rects.map((r) => [Number(r.getAttribute("x")), Number(r.getAttribute("width"))]));
    assert.equal(bars.length, 2);
    const [[ax, aw], [bx, bw]] = bars;
    assert.ok(bx < ax + aw && ax + aw - bx < 1 && bx + bw > ax + aw + 20, JSON.stringify(bars));

    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.locator("#code-conversions").scrollIntoViewIfNeeded();
      await assertPhoneReadyAndAccessible(page, `conversions at ${viewport.width} px`);
      assert.deepEqual(await brokenWords(page), [], `conversions at ${viewport.width} px: words broken inside themselves`);
      await screenshot(page, `conversions-funnel-ab-${viewport.width}`);
    }
  });

  it("before the horizon the verdict says not yet significant, with each arm's count", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Flyer", destinationUrl: "https://example.com/flyer", dynamic: true }, merchant.apiKey));
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [{ when: {}, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 50 }] } }] } }, merchant.apiKey));
    await seedDay(merchant, code.codeId, today(), { n: 212, u: 200, ru: { "0.0": 110, "0.1": 102 }, cs: 9, cv: { USD: 4500 }, cr: { "0.0": { s: 3, v: { USD: 1500 } }, "0.1": { s: 6, v: { USD: 3000 } } } });
    await openView(page, `#/code/${code.codeId}?days=7`, "#code-conversions #ab-0-verdict");
    assert.equal(await text(page, "#ab-0-verdict"), "Not yet significant: the test is read once each arm has 1,000 people (Variant A has 110, Variant B has 102).");
    assert.equal(await text(page, "#funnel-revenue"), "$45.00");
    await page.setViewportSize(PHONE);
    await page.locator("#code-conversions").scrollIntoViewIfNeeded();
    await screenshot(page, "conversions-ab-collecting-390");
    await page.setViewportSize(DESKTOP);
  });

  it("Settings changes the workspace's conversion tracking, refuses a bad parameter name in words, and shows the saved settings again", async () => {
    await openView(page, "#/settings", "#tracking-settings #save-tracking");
    // The defaults, as a workspace that never set anything has them.
    assert.deepEqual([await page.isChecked("#track-conversions"), await page.inputValue("#track-param"), await page.inputValue("#track-window"), await page.isChecked("#track-cookie")], [false, "svc_sid", "30", false]);
    assert.match(await text(page, "#track-cookie-note"), /consent/);
    await page.check("#track-conversions");
    await page.fill("#track-param", "1-bad name");
    await page.click("#save-tracking");
    await page.locator("#app p.error[role=alert]", { hasText: "clickIdParam is 1 to 32 letters" }).first().waitFor();
    await page.fill("#track-param", "ref");
    await page.fill("#track-window", "14");
    await page.check("#track-cookie");
    await page.click("#save-tracking");
    await page.locator("#tracking-status", { hasText: "Saved." }).waitFor();
    assert.equal(await text(page, "#tracking-status"), "Saved. Tracked codes add ref to their destination; sales count up to 14 days after the scan.");
    // Read back from the service: the view built again (openView passes through another view) from its answer.
    await openView(page, "#/settings", "#tracking-settings #save-tracking");
    assert.deepEqual([await page.isChecked("#track-conversions"), await page.inputValue("#track-param"), await page.inputValue("#track-window"), await page.isChecked("#track-cookie")], [true, "ref", "14", true]);
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.locator("#tracking-settings").scrollIntoViewIfNeeded();
      await assertPhoneReadyAndAccessible(page, `tracking settings at ${viewport.width} px`);
      assert.deepEqual(await brokenWords(page), [], `tracking settings at ${viewport.width} px: words broken inside themselves`);
      await screenshot(page, `settings-tracking-${viewport.width}`);
    }
  });

  it("Settings connects a Shopify shop with its secret, says what to paste into Shopify, and never shows the secret again", async () => {
    const shop = `corner-${Date.now().toString(36)}.myshopify.com`;
    const secret = "shpss_console_0123456789abcdef";
    await openView(page, "#/settings", "#shopify-shops");
    await page.fill("#shop-domain", "not-a-shop.example.com");
    await page.fill("#shop-secret", secret);
    await page.click("#connect-shop");
    // Refused in words, nothing connected.
    const refusal = page.locator("#app p.error[role=alert]", { hasText: "myshopify.com" });
    await refusal.first().waitFor();
    assert.equal(await page.locator("#shop-rows").count(), 0);
    await page.fill("#shop-domain", shop);
    await page.fill("#shop-secret", secret);
    await page.click("#connect-shop");
    await page.waitForSelector("#shop-rows");
    assert.match(await text(page, "#shop-rows"), new RegExp(shop.replace(/\./g, "\\.")));
    assert.match(await text(page, "#shopify-steps"), /orders\/paid, refunds\/create, orders\/cancelled.*\/api\/shopify\/webhooks/s);
    assert.ok(!(await page.content()).includes(secret), "the secret is not on the page once sent");
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.locator("#shopify-shops").scrollIntoViewIfNeeded();
      await assertPhoneReadyAndAccessible(page, `Shopify settings at ${viewport.width} px`);
      await screenshot(page, `settings-shopify-${viewport.width}`);
    }
  });
});
