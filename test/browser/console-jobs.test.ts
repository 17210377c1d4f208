// The console's background import: a Dub link export is recognised and its columns shown before anything
// is made, the job runs with a progress bar to its counts, the print package downloads and its files
// decode, and importing the same export again makes no second code.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { firestore, type TestMerchant } from "../helpers/merchants";
import { decodeSvg } from "../helpers/qr";
import { readZip } from "../helpers/zip";
import { assertPhoneReadyAndAccessible, openView, PHONE, screenshot, signedInSession } from "./harness";

const ROWS = 120;
const dubExport = () =>
  Buffer.from(
    [
      "Short link,Destination URL,Clicks,Created at,Link ID,Tags",
      ...Array.from({ length: ROWS }, (_, i) => `https://dub.sh/shop${i},https://shop.example/item/${i},${i * 3},2026-10-0${(i % 9) + 1}T10:00:00.000Z,link_${i},"spring,shelf"`),
    ].join("\n") + "\n",
  );

const countCodes = async (m: TestMerchant) => (await firestore().collection("workspaces").doc(m.merchantId).collection("codes").count().get()).data().count;

describe("merchant console: background import job", function () {
  this.timeout(300_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  before(() => ({ page, merchant } = session));

  it("shows how a Dub export's columns map, runs the job with a progress bar, and serves a print package that decodes", async () => {
    await openView(page, "#/import", "#job-file");
    await page.setInputFiles("#job-file", { name: "dub-links.csv", mimeType: "text/csv", buffer: dubExport() });
    await page.waitForSelector("#job-columns");
    assert.match((await page.textContent("#job-format"))!, /Dub export/);
    const columns = await page.$$eval("#job-columns tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((c) => c.textContent)));
    assert.deepEqual(Object.fromEntries(columns.map(([a, b]) => [a, b])), {
      "Destination URL": "Destination URL",
      "Short link": "External reference",
      Tags: "Tags",
    });
    await screenshot(page, "job-mapping");
    await page.check("#job-print");
    await page.click("#start-job");
    // The bar moves while the job runs, then the counts.
    await page.waitForSelector("#job-progress:not([hidden])");
    await page.locator("#job-status", { hasText: "Done:" }).waitFor({ timeout: 240_000 });
    assert.match((await page.textContent("#job-status"))!, new RegExp(`Done: ${ROWS} codes made, 0 were made by an earlier import`));
    assert.equal(await page.getAttribute("#job-progress", "value"), "100");
    await screenshot(page, "job-done");
    assert.equal(await countCodes(merchant), ROWS);
    const codes = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").get()).docs.map((d) => d.data());
    assert.ok(codes.every((c) => c.status === "published"), "people publish: the box was ticked");

    const href = (await page.getAttribute("#job-package", "href"))!;
    const zip = readZip(Buffer.from(await (await fetch(href)).arrayBuffer()));
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n");
    assert.equal(manifest.length, ROWS + 1);
    for (const line of manifest.slice(1, 4)) {
      const [codeId, , scanUrl, , svgOk, pdfOk] = line.split(",");
      assert.deepEqual([svgOk, pdfOk], ["true", "true"]);
      assert.equal((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload, scanUrl);
    }

    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "background import, done");
    await screenshot(page, "job-done-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("imports the same export again without making a second code", async () => {
    await openView(page, "#/import", "#job-file");
    await page.setInputFiles("#job-file", { name: "dub-links.csv", mimeType: "text/csv", buffer: dubExport() });
    await page.waitForSelector("#job-columns");
    await page.click("#start-job");
    await page.locator("#job-status", { hasText: "Done:" }).waitFor({ timeout: 240_000 });
    assert.match((await page.textContent("#job-status"))!, new RegExp(`Done: 0 codes made, ${ROWS} were made by an earlier import`));
    assert.equal(await countCodes(merchant), ROWS);
  });

  it("says clearly when a file has no URL column, and starts nothing", async () => {
    await openView(page, "#/import", "#job-file");
    await page.setInputFiles("#job-file", { name: "names.csv", mimeType: "text/csv", buffer: Buffer.from("name,price\nSoup,4\n") });
    await page.waitForSelector("#job-format, #job-file-error");
    const text = (await page.textContent("#job-mapping"))!;
    assert.match(text, /URL/);
    assert.ok(await page.isDisabled("#start-job"));
    await screenshot(page, "job-no-url");
  });

  it("prints any selection of codes from the list, picked across pages, as one package that decodes", async () => {
    await openView(page, "#/codes", "#code-rows");
    const firstPage = await page.$$eval("#code-rows tr", (trs) => trs.map((tr) => tr.getAttribute("data-code-id")!));
    assert.equal(firstPage.length, 50);
    assert.ok(await page.isDisabled("#print-selected"), "nothing picked, nothing to print");
    // Two codes on the first page, one on the second: the selection survives paging.
    await page.check(`#code-rows tr[data-code-id="${firstPage[0]}"] .pick`);
    await page.check(`#code-rows tr[data-code-id="${firstPage[7]}"] .pick`);
    await page.locator("#selection-count", { hasText: "2 codes picked" }).waitFor();
    await page.click("#page-next");
    await page.waitForFunction((first) => document.querySelector("#app[data-view] #code-rows tr")?.getAttribute("data-code-id") !== first, firstPage[0]);
    const third = (await page.getAttribute("#code-rows tr:first-child", "data-code-id"))!;
    await page.check("#code-rows tr:first-child .pick");
    await page.locator("#selection-count", { hasText: "3 codes picked" }).waitFor();
    await page.click("#print-selected");
    await page.waitForSelector("#selection-package", { timeout: 240_000 });
    assert.match((await page.textContent("#selection-status"))!, /ready: 3 codes/);
    await screenshot(page, "code-list-print-selection");

    const zip = readZip(Buffer.from(await (await fetch((await page.getAttribute("#selection-package", "href"))!)).arrayBuffer()));
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n").slice(1);
    assert.deepEqual(manifest.map((l) => l.split(",")[0]), [firstPage[0], firstPage[7], third]);
    for (const line of manifest) {
      const [codeId, , scanUrl, , svgOk, pdfOk] = line.split(",");
      assert.deepEqual([svgOk, pdfOk], ["true", "true"]);
      assert.equal((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload, scanUrl);
    }
    assert.ok([...zip.keys()].some((k) => /^sheets-\d+\.pdf$/.test(k)), "A4 label sheets too");

    await page.click("#pick-clear");
    await page.locator("#selection-count", { hasText: "Pick codes" }).waitFor();
    assert.ok(await page.isDisabled("#print-selected"));
    assert.equal(await page.locator("#selection-package").count(), 0, "the last package no longer describes the selection");
    await page.setViewportSize(PHONE);
    await page.click("#pick-page");
    await page.locator("#selection-count", { hasText: "codes picked" }).waitFor();
    await assertPhoneReadyAndAccessible(page, "code list with a selection");
    await screenshot(page, "code-list-selection-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
