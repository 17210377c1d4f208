import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { getAuth } from "firebase-admin/auth";
import { adminApp } from "../../functions/src/core/firebase";
import { approveListing } from "../../functions/src/listings/service";
import { assertPhoneReadyAndAccessible, DESKTOP, launch, newPage, openView, PHONE, signIn, widths } from "./harness";

// Long, unbroken text is what used to widen the page to thousands of pixels.
const LONG_TITLE = `Spring${"Menu".repeat(48)}`;
const LONG_URL = `https://example.com/${"very-long-path-segment".repeat(40)}?q=${"x".repeat(300)}`;

describe("merchant console: phone width and axe-core", function () {
  this.timeout(240_000);
  let browser: Browser;
  let merchant: TestMerchant;
  let codeId: string;
  let domain: string;

  before(async () => {
    browser = await launch();
    merchant = await createMerchant();
    for (let i = 0; i < 3; i++) {
      const c = toolResult(await callTool("svc.qr.create", { title: `${LONG_TITLE}${i}`, destinationUrl: LONG_URL, dynamic: i === 0, campaign: `${"campaign".repeat(12)}`, tags: ["t".repeat(50)] }, merchant.apiKey));
      codeId ??= c.codeId;
      // An abuse report of the dynamic one, with long details, gives the moderation view a report row.
      if (c.dynamic) {
        const res = await fetch(`${baseUrl()}/api/reports`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: c.dynamicLink, reason: "impersonation", details: `Looks like ${"another shop ".repeat(40)}` }) });
        assert.equal(res.status, 202, await res.text());
      }
    }
    toolResult(await callTool("svc.menu.create", { name: `Lunch ${"Specials".repeat(8)}` }, merchant.apiKey));
    toolResult(await callTool("svc.audio.create", { title: `Jingle ${"Sound".repeat(10)}`, payloadText: LONG_URL.slice(0, 200) }, merchant.apiKey));
    toolResult(await callTool("svc.challenge.create", { name: `Visit ${"Five".repeat(10)}`, challengeType: "scan_count" }, merchant.apiKey));
    domain = `shop-${randomUUID().slice(0, 8)}.example`;
    toolResult(await callTool("svc.voice_agent.register", { domain, businessName: `Bean There ${"Coffee".repeat(20)}`, voiceAgentPhone: "+1 415 555 0123", email: "owner@example.com" }, merchant.apiKey));
    await approveListing(domain);
    // An administrator too, so the moderation view is checked; a pending listing gives it rows.
    await getAuth(adminApp()).setCustomUserClaims(merchant.uid, { admin: true });
    toolResult(await callTool("svc.voice_agent.register", { domain: `pending-${domain}`, businessName: `Pending ${"Place".repeat(30)}`, voiceAgentPhone: "+1 415 555 0199", email: "owner@example.com" }, merchant.apiKey));
  });
  after(async () => {
    await browser?.close();
  });

  const CONSOLE_VIEWS: Array<[string, string]> = [
    ["#/codes", "#code-rows"],
    ["#/new", "#new-code-form"],
    ["#/content", "#drafts"],
    ["#/settings", "#listings"],
    ["#/import", "#csv-file"],
    ["#/admin", "#admin"],
  ];

  for (const viewport of widths([PHONE, DESKTOP])) {
    it(`every console view at ${viewport.width} px: no sideways scroll, no serious or critical axe findings`, async () => {
      const page = await newPage(browser, viewport);
      await page.goto(`${appUrl()}/console`);
      await page.waitForSelector("#sign-in");
      await assertPhoneReadyAndAccessible(page, "sign-in");
      await signIn(page, merchant);
      await openView(page, "#/settings", "#keys");
      await page.fill("#key-name", `key-${"n".repeat(90)}`);
      await page.click("#mint-key");
      await page.waitForSelector("#new-key");
      await assertPhoneReadyAndAccessible(page, "settings with a new key");
      for (const [hash, ready] of [...CONSOLE_VIEWS, [`#/code/${codeId}`, "#code-scans"] as [string, string]]) {
        await openView(page, hash, ready);
        await assertPhoneReadyAndAccessible(page, hash);
      }
      await page.close();
    });

    it(`every public page at ${viewport.width} px: no sideways scroll, no serious or critical axe findings`, async () => {
      const page = await newPage(browser, viewport);
      for (const path of ["/", "/docs/", "/phone-book", `/d/${domain}`, `/no-such-page-${randomUUID()}`]) {
        const res = await page.goto(`${appUrl()}${path}`);
        assert.ok(res, path);
        if (path.startsWith("/no-such")) assert.equal(res.status(), 404);
        else assert.equal(res.status(), 200, path);
        await assertPhoneReadyAndAccessible(page, path);
      }
      await page.close();
    });
  }
});
