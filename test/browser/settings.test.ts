import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, type TestMerchant } from "../helpers/merchants";
import { approveListing } from "../../functions/src/listings/service";
import { openView, screenshot, signedInSession } from "./harness";

describe("merchant console: settings and content", function () {
  this.timeout(180_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  before(() => ({ page, merchant } = session));

  it("Settings has API keys (the sandbox manifest's name), members and the workspace's listings with status", async () => {
    const approved = `shop-${randomUUID().slice(0, 8)}.example`;
    const pending = `shop-${randomUUID().slice(0, 8)}.example`;
    for (const domain of [approved, pending]) {
      toolResult(await callTool("svc.voice_agent.register", { domain, businessName: "Bean There", voiceAgentPhone: "+1 415 555 0123", email: "owner@example.com" }, merchant.apiKey));
    }
    await approveListing(approved);
    await openView(page, "#/settings", "#listings");
    assert.deepEqual(await page.locator("main h2").allTextContents(), ["API keys", "Members", "Phone book listings", "Analytics time zone", "Brand presets", "Connected apps", "Webhooks", "Conversion tracking", "Shopify orders", "UTM templates"]);
    const members = await page.locator("#members tbody tr").allTextContents();
    assert.equal(members.length, 1);
    assert.match(members[0], new RegExp(`${merchant.email}.*owner`));
    const status = (domain: string) => page.locator("#listings tr", { hasText: domain }).locator(".listing-status").textContent();
    assert.equal(await status(approved), "approved");
    assert.equal(await status(pending), "pending");
    await screenshot(page, "settings-desktop");
  });

  it("audio codes, menus and challenges are listed and can be published", async () => {
    const audio = toolResult(await callTool("svc.audio.create", { title: "Door chime", payloadText: "https://example.com/a" }, merchant.apiKey));
    const menu = toolResult(await callTool("svc.menu.create", { name: "Lunch" }, merchant.apiKey));
    const challenge = toolResult(await callTool("svc.challenge.create", { name: "Five visits", challengeType: "scan_count" }, merchant.apiKey));
    const drafts: Array<[string, string, string]> = [["audioCodes", audio.audioCodeId, "Door chime"], ["menus", menu.menuId, "Lunch"], ["challenges", challenge.challengeId, "Five visits"]];
    for (const [kind, id, name] of drafts) {
      await openView(page, "#/content", "#drafts");
      const row = page.locator("#drafts tr", { hasText: name });
      assert.match((await row.textContent())!, /draft/);
      await row.getByRole("button", { name: `Publish ${kind} ${id}` }).click();
      await page.locator("#drafts tr", { hasText: name }).locator("td", { hasText: /^published$/ }).waitFor();
      const doc = await firestore().collection("workspaces").doc(merchant.merchantId).collection(kind).doc(id).get();
      assert.equal(doc.get("status"), "published", kind);
    }
  });
});
