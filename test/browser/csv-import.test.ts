import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { appUrl } from "../helpers/env";
import { listAllCodes } from "../helpers/rpc";
import { firestore, type TestMerchant } from "../helpers/merchants";
import { decodePng, decodeSvg, isVectorOnly } from "../helpers/qr";
import { readZip } from "../helpers/zip";
import { assertPhoneReadyAndAccessible, openView, PHONE, screenshot, signedInSession } from "./harness";

const ROWS = 60; // two chunks: 50 and 10
const csvLine = (cells: string[]) => cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(",");
const goodRows = Array.from({ length: ROWS }, (_, i) => [`Table ${i + 1}, "window"`, `https://example.com/table/${i + 1}`, i % 2 ? "spring" : "", i % 3 ? "" : "table;inside"]);

function csv(rows: string[][]): Buffer {
  return Buffer.from(["title,url,campaign,tags", ...rows.map(csvLine)].join("\r\n") + "\r\n");
}

/** Every code of the workspace, counted in Firestore (a tool's list stops at 100). */
async function countCodes(merchant: TestMerchant): Promise<number> {
  return (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").count().get()).data().count;
}

describe("merchant console: CSV import", function () {
  this.timeout(240_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  before(() => ({ page, merchant } = session));

  it("shows each bad row and why, and creates nothing", async () => {
    await openView(page, "#/import", "#csv-file");
    const rows = goodRows.map((r) => [...r]);
    rows[6][1] = "ftp://example.com/file";
    await page.setInputFiles("#csv-file", { name: "codes.csv", mimeType: "text/csv", buffer: csv(rows) });
    await page.waitForSelector("#csv-rows");
    assert.match((await page.textContent("#csv-summary"))!, /1 of 60 rows need fixing/);
    const bad = page.locator("#csv-rows tr.bad-row");
    assert.equal(await bad.count(), 1);
    assert.equal(await bad.getAttribute("data-line"), "8", "the spreadsheet's own line number (header is line 1)");
    assert.match((await bad.locator(".row-error").textContent())!, /http:\/\/ or https:\/\//);
    assert.ok(await page.isDisabled("#start-import"));
    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "import check table");
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.equal(await countCodes(merchant), 0);
  });

  it("once fixed, creates every code once in chunks of 50 and downloads a ZIP of PNGs and SVGs", async () => {
    await page.setInputFiles("#csv-file", { name: "codes.csv", mimeType: "text/csv", buffer: csv(goodRows) });
    await page.locator("#csv-summary", { hasText: "All 60 rows are valid." }).waitFor();
    const chunks: Array<{ key: string; rows: number }> = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/console/codes/import")) chunks.push({ key: r.headers()["idempotency-key"], rows: JSON.parse(r.postData()!).rows.length });
    });
    await page.click("#start-import");
    await page.locator("#import-status", { hasText: "Created 60 codes." }).waitFor({ timeout: 120_000 });
    assert.equal(await page.getAttribute("#import-progress", "value"), "60");
    assert.deepEqual(chunks.map((c) => c.rows), [50, 10]);
    assert.equal(new Set(chunks.map((c) => c.key)).size, 2, "one Idempotency-Key per chunk");

    const listed = await listAllCodes(merchant.apiKey);
    assert.equal(listed.length, ROWS, "every row created once");
    const first = listed.find((c: any) => c.destinationUrl === "https://example.com/table/1");
    assert.equal(first.title, 'Table 1, "window"');
    assert.deepEqual(first.tags, ["table", "inside"]);
    assert.equal(listed.find((c: any) => c.destinationUrl === "https://example.com/table/2").campaign, "spring");
    assert.ok(listed.every((c: any) => c.status === "published"));

    const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download-zip")]);
    const entries = readZip(await readFile((await file.path())!));
    assert.equal(entries.size, ROWS * 2);
    const png = [...entries].find(([name]) => name.startsWith("png/001-"))!;
    const svg = [...entries].find(([name]) => name.startsWith("svg/001-"))!;
    assert.equal(decodePng(png[1]).payload, "https://example.com/table/1");
    assert.ok(isVectorOnly(svg[1].toString("utf8")));
    assert.equal((await decodeSvg(svg[1])).payload, "https://example.com/table/1");
  });

  it("a retried chunk with the same Idempotency-Key answers with the same codes and creates none", async () => {
    const before = await countCodes(merchant);
    const body = JSON.stringify({ rows: [{ title: "retry", destinationUrl: "https://example.com/retry" }] });
    const post = () =>
      fetch(`${appUrl()}/api/console/codes/import`, {
        method: "POST",
        headers: { Authorization: `Bearer ${merchant.idToken}`, "Content-Type": "application/json", "Idempotency-Key": "retry-test-chunk-0" },
        body,
      });
    const a = await post();
    assert.equal(a.status, 201);
    const b = await post();
    assert.equal(b.status, 200);
    assert.equal(b.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(((await b.json()) as any).codes.map((c: any) => c.codeId), ((await a.json()) as any).codes.map((c: any) => c.codeId));
    assert.equal(await countCodes(merchant), before + 1);
  });

  it("an interrupted import, repeated by a second click and after a reload, creates no code twice", async () => {
    const shelves = Array.from({ length: ROWS }, (_, i) => [`Shelf ${i + 1}`, `https://example.com/shelf/${i + 1}`, "", ""]);
    const before = await countCodes(merchant);
    await openView(page, "#/import", "#csv-file");
    await page.setInputFiles("#csv-file", { name: "shelves.csv", mimeType: "text/csv", buffer: csv(shelves) });
    await page.locator("#csv-summary", { hasText: "All 60 rows are valid." }).waitFor();
    // The second chunk reaches the server and is created, but every answer to it is lost on the way back.
    let seen = 0;
    await page.route("**/api/console/codes/import", async (route) => {
      if (++seen === 1) return route.continue();
      await route.fetch();
      await route.abort("connectionreset");
    });
    await page.click("#start-import");
    await page.locator("#import-status", { hasText: "were not created" }).waitFor({ timeout: 60_000 });
    assert.match((await page.textContent("#import-status"))!, /Rows 52 to 61 were not created.*Click Create codes again/);
    const alert = (await page.locator("[role=alert]").first().textContent())!;
    assert.doesNotMatch(alert, /TypeError|Failed to fetch|SyntaxError/);
    assert.match(alert, /could not be reached/);
    await screenshot(page, "csv-import-interrupted");
    assert.equal(await countCodes(merchant), before + ROWS, "the lost answer's codes were created once");

    await page.unroute("**/api/console/codes/import");
    await page.click("#start-import");
    await page.locator("#import-status", { hasText: "were created from this file before" }).waitFor({ timeout: 60_000 });
    assert.match((await page.textContent("#import-status"))!, /Created 0 codes; 60 were created from this file before/);
    assert.equal(await countCodes(merchant), before + ROWS, "a second click creates nothing twice");

    await page.reload();
    await page.waitForSelector("#app[data-view]");
    await openView(page, "#/import", "#csv-file");
    await page.setInputFiles("#csv-file", { name: "shelves.csv", mimeType: "text/csv", buffer: csv(shelves) });
    await page.locator("#csv-summary", { hasText: "All 60 rows are valid." }).waitFor();
    await page.click("#start-import");
    await page.locator("#import-status", { hasText: "were created from this file before" }).waitFor({ timeout: 60_000 });
    assert.equal(await countCodes(merchant), before + ROWS, "the same file after a reload creates nothing twice");
    const listed = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").get()).docs
      .map((d) => d.data())
      .filter((c) => c.destinationUrl.startsWith("https://example.com/shelf/"));
    assert.equal(listed.length, ROWS);
    assert.equal(new Set(listed.map((c: any) => c.destinationUrl)).size, listed.length, "no destination twice");
  });

  it("reads columns by their header names, in any order", async () => {
    await openView(page, "#/import", "#csv-file");
    const file = Buffer.from("url,title,tags\r\nhttps://example.com/by-name,By name,menu;drinks\r\n");
    await page.setInputFiles("#csv-file", { name: "named.csv", mimeType: "text/csv", buffer: file });
    await page.locator("#csv-summary", { hasText: "All 1 rows are valid." }).waitFor();
    await page.click("#start-import");
    await page.locator("#import-status", { hasText: "Created 1 codes." }).waitFor({ timeout: 60_000 });
    const code = (await listAllCodes(merchant.apiKey)).find((c: any) => c.destinationUrl === "https://example.com/by-name");
    assert.equal(code.title, "By name");
    assert.deepEqual(code.tags, ["menu", "drinks"]);
    assert.equal(code.campaign ?? null, null, "tags never land in the campaign");

    await page.setInputFiles("#csv-file", { name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("name,link\r\nx,y\r\n") });
    assert.match((await page.textContent("#csv-fatal"))!, /no title or url column.*Fix the header row/);
  });

  it("an answer that is not JSON shows a sentence with a next step, not a SyntaxError", async () => {
    await openView(page, "#/import", "#csv-file");
    await page.setInputFiles("#csv-file", { name: "one.csv", mimeType: "text/csv", buffer: Buffer.from("title,url\r\nProxy page,https://example.com/proxy\r\n") });
    await page.locator("#csv-summary", { hasText: "All 1 rows are valid." }).waitFor();
    await page.route("**/api/console/codes/import", (route) => route.fulfill({ status: 502, contentType: "text/html", body: "<html><body>Bad gateway</body></html>" }));
    try {
      await page.click("#start-import");
      const alert = page.locator("[role=alert]", { hasText: "does not understand" });
      await alert.waitFor({ timeout: 60_000 });
      const text = (await alert.first().textContent())!;
      assert.doesNotMatch(text, /SyntaxError|Unexpected token/);
      assert.match(text, /HTTP 502/);
    } finally {
      await page.unroute("**/api/console/codes/import");
    }
  });

  it("a failed sign-in reads as a sentence, not \"Firebase: Error (auth/...)\"", async () => {
    const other = await session.browser.newPage();
    try {
      await other.goto(`${appUrl()}/console`);
      await other.fill("#email", merchant.email);
      await other.fill("#password", "not-the-password");
      await other.click("#sign-in");
      const alert = other.locator("[role=alert]");
      await alert.first().waitFor();
      const text = (await alert.first().textContent())!;
      assert.doesNotMatch(text, /Firebase|auth\//);
      assert.match(text, /do not match an account|password is not right/);
    } finally {
      await other.close();
    }
  });
});
