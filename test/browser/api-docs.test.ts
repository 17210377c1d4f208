// /docs/: the API reference rendered in the page from the live OpenAPI document.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { appUrl } from "../helpers/env";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, launch, PHONE, screenshot, widths } from "./harness";

describe("API docs: /docs/ reference from the OpenAPI document", function () {
  this.timeout(120_000);
  let browser: Browser;
  let operationIds: string[];

  before(async () => {
    browser = await launch();
    const res = await fetch(`${appUrl()}/api/openapi.json`);
    assert.equal(res.status, 200);
    const doc: any = await res.json();
    operationIds = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op?.operationId).filter(Boolean));
    assert.ok(operationIds.includes("createSandboxCode"), "the sandbox operation is in the document");
  });
  after(async () => {
    await browser?.close();
  });

  for (const viewport of widths([PHONE, DESKTOP])) {
    it(`at ${viewport.width} px: every operation shown, readable, accessible, and Copy gives a curl command`, async () => {
      const context = await browser.newContext({ viewport });
      const origin = new URL(appUrl()).origin;
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      const res = await page.goto(`${appUrl()}/docs/`);
      assert.equal(res?.status(), 200);
      await page.waitForSelector("#api-reference[data-ready]");

      const text = await page.locator("#api-reference").innerText();
      const missing = operationIds.filter((id) => !text.includes(id));
      assert.deepEqual(missing, [], "every operationId of the live document is on the page");
      for (const tag of ["Discovery", "Sandbox", "Bulk", "OAuth"]) assert.ok(await page.locator(`#api-reference h3:text-is("${tag}")`).count(), `tag ${tag} rendered`);

      await assertPhoneReadyAndAccessible(page, `/docs/ at ${viewport.width}`);
      assert.deepEqual(await brokenWords(page), [], "no words broken inside themselves");

      const op = page.locator("#createSandboxCode");
      const pre = (await op.locator("pre.curl").textContent()) ?? "";
      assert.match(pre, new RegExp(`^curl .*${origin.replace(/[.]/g, "\\.")}/api/generate-qr-code`));
      assert.match(pre, /Content-Type: application\/json/);
      assert.match(pre, /"url":"https:\/\/example\.com\/menu"/);
      await op.locator("button.copy").click();
      await op.locator(".copied").filter({ hasText: /Copied|Selected/ }).waitFor();
      const status = await op.locator(".copied").textContent();
      if (status === "Copied") {
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        assert.equal(copied, pre);
        assert.match(copied, /\/api\/generate-qr-code/);
      } else {
        const selected = await page.evaluate(() => getSelection()?.toString() ?? "");
        assert.match(selected, /\/api\/generate-qr-code/);
      }
      // The bulk operation's example says how it is authenticated.
      assert.match((await page.locator("#api-reference pre.curl").allTextContents()).join("\n"), /Authorization: Bearer sk-svc-/);

      await screenshot(page, `api-docs-${viewport.width}`);
      assert.deepEqual(errors, [], "no script errors or CSP refusals");
      await context.close();
    });
  }
});
