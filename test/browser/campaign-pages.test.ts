// A campaign's public pages in a real browser (docs/campaign-rules.md): the password page takes a wrong
// password with a sentence and the right one to the destination (the browser's own form post: its Origin,
// CSP form-action and Referrer-Policy decide, as they do for a person), and a closed campaign's page shows
// the merchant's name and message. The destination is answered by the test (page.route): nothing leaves
// the machine.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { appUrl } from "../helpers/env";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, launch, newPage, PHONE, screenshot, widths } from "./harness";

const DESTINATION = "https://members.example/backroom";
const PASSWORD = "open sesame 42";

/** The destination's site, answered here: whether the browser got there, and with which Referer. */
async function answerDestination(page: Page): Promise<{ referers: Array<string | undefined> }> {
  const seen = { referers: [] as Array<string | undefined> };
  await page.route("https://members.example/**", async (route) => {
    seen.referers.push(route.request().headers().referer);
    await route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Back room</title><h1>Welcome to the back room</h1>" });
  });
  return seen;
}

describe("campaign pages in a browser", function () {
  this.timeout(120_000);
  let browser: Browser;
  let merchant: TestMerchant;

  before(async () => {
    browser = await launch();
    merchant = await createMerchant(undefined, "Café Lumière");
  });
  after(async () => {
    await browser?.close();
  });

  for (const viewport of widths([PHONE, DESKTOP])) {
    it(`the password page refuses a wrong password in words and opens the destination with the right one, at ${viewport.width} px`, async () => {
      const code = toolResult(await callTool("svc.qr.create", { title: "Members", destinationUrl: "https://members.example/", dynamic: true }, merchant.apiKey));
      toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [{ when: {}, then: { type: "password", url: DESTINATION } }], password: PASSWORD } }, merchant.apiKey));
      const page = await newPage(browser, viewport);
      const destination = await answerDestination(page);
      const shown = await page.goto(`${appUrl()}/qr/${code.uniqueQRCodeID}`);
      assert.equal(shown?.status(), 200);
      assert.match((await page.textContent("h1"))!, /Password needed/);
      assert.ok(!(await page.content()).includes("members.example"), "the page names nothing of the destination");
      await assertPhoneReadyAndAccessible(page, `password page at ${viewport.width}`);
      assert.deepEqual(await brokenWords(page), []);

      await page.fill("#password", "not the password");
      await page.click("button[type=submit]");
      await page.locator("[role=alert]").waitFor();
      assert.match((await page.textContent("[role=alert]"))!, /That password is not right/);
      await screenshot(page, `password-wrong-${viewport.width}`);

      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL(DESTINATION), page.click("button[type=submit]")]);
      assert.match((await page.textContent("h1"))!, /Welcome to the back room/);
      assert.deepEqual(destination.referers, [undefined], "the destination is told nothing of where the person came from");
    });
  }

  it("a closed campaign's page shows the business's name and message, at 390 px", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Summer", destinationUrl: "https://members.example/summer", dynamic: true }, merchant.apiKey));
    toolResult(
      await callTool(
        "svc.qr.set_rules",
        { codeId: code.codeId, settings: { rules: [], endsAt: "2020-09-01T00:00:00Z", endedPage: { heading: "Summer menu is over", message: "Our autumn menu starts on Friday. See you soon!" } } },
        merchant.apiKey,
      ),
    );
    const page = await newPage(browser, PHONE);
    const shown = await page.goto(`${appUrl()}/qr/${code.uniqueQRCodeID}`);
    assert.equal(shown?.status(), 200);
    const text = (await page.textContent("body"))!;
    for (const words of ["Café Lumière", "Summer menu is over", "Our autumn menu starts on Friday"]) assert.ok(text.includes(words), `${words} in: ${text}`);
    assert.ok(!(await page.content()).includes("members.example"));
    await assertPhoneReadyAndAccessible(page, "ended page at 390");
    assert.deepEqual(await brokenWords(page), []);
    await screenshot(page, "campaign-ended-390");
  });
});
