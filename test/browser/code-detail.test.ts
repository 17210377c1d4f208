import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { openView, PHONE, DESKTOP, screenshot, signedInSession } from "./harness";

const PHONE_UA = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

async function analytics(merchant: TestMerchant, codeId: string, days: number) {
  return toolResult(await callTool("svc.qr.get_analytics", { codeId, days }, merchant.apiKey));
}

/** What the detail page shows: the total, the chart's bars and the recent-scan rows. */
async function shown(page: Page) {
  return page.evaluate(() => ({
    total: Number(document.getElementById("total-scans")!.textContent),
    bars: [...document.querySelectorAll("#code-scans .chart rect.bar")].map((r) => ({ date: r.getAttribute("data-date")!, scans: Number(r.getAttribute("data-scans")) })),
    dates: [...document.querySelectorAll("#code-scans .date-tick")].map((t) => t.textContent),
    rows: [...document.querySelectorAll("#scan-rows tr")].map((tr) => [...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent)),
    unique: Number(document.getElementById("fig-unique")!.textContent),
    countries: [...document.querySelectorAll("#top-countries li")].map((li) => li.textContent),
    devices: [...document.querySelectorAll("#top-devices li")].map((li) => li.textContent),
    gridCells: document.querySelectorAll("#hour-grid .grid-cell").length,
    litCells: document.querySelectorAll("#hour-grid .grid-cell:not(.level-0)").length,
  }));
}

describe("merchant console: code detail", function () {
  this.timeout(180_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  let code: any;
  const clients = [newClient(), newClient(), newClient()];

  before(async () => {
    ({ page, merchant } = session);
    code = toolResult(await callTool("svc.qr.create", { title: "Counter card", destinationUrl: "https://example.com/counter", dynamic: true }, merchant.apiKey));
    for (const client of [...clients, clients[0]]) {
      const res = await client.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE_UA } });
      assert.equal(res.status, 302);
    }
    await eventually(() => analytics(merchant, code.codeId, 30), (a: any) => a.totalScans >= 4, { timeoutMs: 20_000, intervalMs: 250, what: "4 scans" });
    await page.reload(); // the scans arrived after sign-in
    await page.waitForSelector("#app[data-view]");
  });

  it("shows the same numbers as svc.qr.get_analytics for 7, 30, 90 and 365 days, with a dated axis and city/state per scan", async () => {
    for (const days of [30, 7, 90, 365]) {
      await openView(page, `#/code/${code.codeId}?days=${days}`, "#code-scans");
      const expected = await analytics(merchant, code.codeId, days);
      const got = await shown(page);
      assert.equal(got.total, expected.totalScans, `${days} days: total`);
      assert.equal(expected.totalScans, 4);
      // The tool keeps its result within about 6,000 tokens: for a year, byDay lists the newest days only.
      assert.equal(expected.truncated === true, days === 365, `${days} days: byDay cut only for the year`);
      assert.equal(got.bars.length, days, `${days} days: the console draws every day`);
      assert.deepEqual(got.bars.slice(-expected.byDay.length), expected.byDay.map((d: any) => ({ date: d.date, scans: d.scans })), `${days} days: every day's count`);
      assert.equal(got.unique, expected.uniqueScanners, `${days} days: unique scanners`);
      assert.equal(expected.uniqueScanners, 3, "three people, one of them twice");
      assert.deepEqual(got.countries, expected.countries.slice(0, 5).map((c: any) => `${c.country} ${c.scans}`));
      assert.deepEqual(got.devices, ["mobile 4"]);
      assert.equal(got.gridCells, 7 * 24);
      assert.ok(got.litCells >= 1 && got.litCells <= 2, "the scans' hour is shaded");
      assert.equal(got.dates.length, days <= 7 ? days : 5, `${days} days: dated ticks`);
      assert.ok(got.dates.every((d) => d && /\d/.test(d)), `${days} days: ticks carry dates`);
      assert.deepEqual(got.rows.slice(0, expected.scans.length), expected.scans.map((s: any) => [s.city, s.state, s.country, s.device]), `${days} days: scan places and devices`);
      assert.equal(await page.getAttribute(".ranges [aria-current]", "href"), `#/code/${code.codeId}?days=${days}`);
    }
    await screenshot(page, "detail-desktop");
    await page.setViewportSize(PHONE);
    await screenshot(page, "detail-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("exports the scans as CSV", async () => {
    await openView(page, `#/code/${code.codeId}?days=90`, "#export-csv");
    const [file] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
    const csv = (await readFile((await file.path())!, "utf8")).trim().split("\r\n");
    assert.equal(csv[0], "at,date,city,state,source,country,device,os,browser,unique,rule,variant");
    const expected = await analytics(merchant, code.codeId, 90);
    assert.equal(csv.length - 1, expected.scans.length);
    // A code without campaign rules: its rule and variant columns are empty.
    assert.deepEqual(csv.slice(1).map((l) => l.split(",").slice(5).join(",")), expected.scans.map((s: any) => [s.country, s.device, s.os, s.browser, s.unique, "", ""].join(",")));
    assert.deepEqual(csv.slice(1).map((l) => l.split(",")[9]).sort(), ["false", "true", "true", "true"]);
    assert.deepEqual(csv.slice(1).map((l) => l.split(",")[0]), expected.scans.map((s: any) => s.at));
    assert.match(file.suggestedFilename(), /^counter-card-scans-.*\.csv$/);
  });

  it("re-points the dynamic code and publishes and unpublishes it", async () => {
    await openView(page, `#/code/${code.codeId}`, "#repoint");
    await page.fill("#repoint-url", "https://example.com/moved");
    await page.click("#repoint");
    await page.locator("#detail-destination", { hasText: "https://example.com/moved" }).waitFor();
    const link = await firestore().collection("links").doc(code.uniqueQRCodeID).get();
    assert.equal(link.data()!.destinationUrl, "https://example.com/moved");

    await page.click("#publish");
    await page.locator("#detail-status", { hasText: "published" }).waitFor();
    assert.equal((await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(code.codeId).get()).get("status"), "published");
    await page.click("#unpublish");
    await page.locator("#detail-status", { hasText: "draft" }).waitFor();
    assert.equal((await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(code.codeId).get()).get("status"), "draft");
  });

  it("works from the keyboard: the ranges and actions are reachable with Tab and run with Enter", async () => {
    await openView(page, `#/code/${code.codeId}?days=30`, "#code-scans");
    await page.focus('.ranges a[href$="days=7"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector('.ranges a[aria-current][href$="days=7"]');
    await page.focus("#publish");
    await page.keyboard.press("Enter");
    await page.locator("#detail-status", { hasText: "published" }).waitFor();
  });
});
