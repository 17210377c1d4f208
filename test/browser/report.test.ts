// The public abuse report page and the warning page of a taken-down code, as a person on a phone and on a
// desktop sees them: the form sends a report and says so in words, a bad address gets a clear sentence,
// and a taken-down code's scan shows the warning (no destination), all without sideways scroll or axe findings.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { adminCli } from "../helpers/admin";
import { appUrl, baseUrl } from "../helpers/env";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, launch, newPage, PHONE, screenshot, widths } from "./harness";

describe("public report page and the warning page", function () {
  this.timeout(120_000);
  let browser: Browser;
  let merchant: TestMerchant;
  let code: any;

  before(async () => {
    browser = await launch();
    merchant = await createMerchant();
    code = toolResult(await callTool("svc.qr.create", { title: "Parcel notice", destinationUrl: "https://parcels.example/track", dynamic: true }, merchant.apiKey));
  });
  after(async () => {
    await browser?.close();
  });

  for (const viewport of widths([PHONE, DESKTOP])) {
    it(`sends a report and says so, and explains a wrong address, at ${viewport.width} px`, async () => {
      const page = await newPage(browser, viewport);
      await page.goto(`${baseUrl()}/`);
      await page.click("a[href='/report']");
      await page.waitForSelector("#report-form");
      await assertPhoneReadyAndAccessible(page, `report page at ${viewport.width}`);
      assert.deepEqual(await brokenWords(page), []);

      await page.fill("#report-code", `${appUrl()}/qr/ZZZZZZZZZZZZ`);
      await page.click("#report-send");
      await page.locator("#report-status.error").waitFor();
      assert.match((await page.textContent("#report-status"))!, /No QR code made here has this address/);

      await page.fill("#report-code", code.dynamicLink);
      await page.selectOption("#report-reason", "phishing");
      await page.fill("#report-details", "It asked for my card number to release a parcel.");
      await page.click("#report-send");
      await page.locator("#report-status.ok").waitFor();
      const reportId = /rep_[0-9a-f]{20}/.exec((await page.textContent("#report-status"))!)![0];
      const stored = (await firestore().collection("abuseReports").doc(reportId).get()).data()!;
      assert.deepEqual([stored.uniqueQRCodeID, stored.reason, stored.details, stored.status], [code.uniqueQRCodeID, "phishing", "It asked for my card number to release a parcel.", "open"]);
      assert.equal(await page.inputValue("#report-code"), "", "the form is cleared for the next report");
      await assertPhoneReadyAndAccessible(page, `report sent at ${viewport.width}`);
      await screenshot(page, `report-sent-${viewport.width}`);
    });
  }

  it("shows a taken-down code's scan the warning page, which names no destination", async () => {
    await adminCli("takedown", "--code", code.uniqueQRCodeID, "--reason", "Parcel phishing");
    for (const viewport of widths([PHONE, DESKTOP])) {
      const page = await newPage(browser, viewport);
      const answer = await page.goto(`${appUrl()}/qr/${code.uniqueQRCodeID}`);
      assert.equal(answer?.status(), 410);
      assert.equal(page.url(), `${appUrl()}/qr/${code.uniqueQRCodeID}`, "not sent on");
      assert.match((await page.textContent("h1"))!, /This QR code was disabled/);
      assert.ok(!(await page.content()).includes("parcels.example"));
      await assertPhoneReadyAndAccessible(page, `warning page at ${viewport.width}`);
      assert.deepEqual(await brokenWords(page), []);
      await screenshot(page, `taken-down-${viewport.width}`);
    }
  });
});
