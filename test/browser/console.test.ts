import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { chromium, type Browser, type Page } from "playwright-core";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { newClient } from "../helpers/clients";
import { openView } from "./harness";

const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts");

describe("merchant console in a browser", function () {
  this.timeout(120_000);
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    page.on("pageerror", (e) => console.error("page error:", e.message));
  });

  after(async () => {
    await browser?.close();
  });

  it("signs up, mints a key, uses it, revokes it, and claims a sandbox code", async () => {
    await page.goto(`${appUrl()}/console`);
    await page.fill("#email", `browser-${randomUUID()}@example.com`);
    await page.fill("#password", "browser-password");
    await page.click("#sign-up");
    await page.waitForSelector("#app[data-view]");
    await openView(page, "#/settings", "#keys");
    assert.equal((await page.textContent("#keys h2"))?.trim(), "API keys", "the place the sandbox manifest names");

    await page.fill("#key-name", "browser agent");
    await page.click("#mint-key");
    const key = (await page.textContent("#new-key"))!.trim();
    assert.match(key, /^sk-svc-[0-9a-f]{64}$/);
    const row = page.locator("#key-rows tr", { hasText: key.slice(0, 15) });
    await row.waitFor();
    assert.equal((await row.locator(".key-status").textContent())?.trim(), "active");

    const ping = toolResult(await callTool("svc.ping", {}, key));
    assert.equal(ping.authMethod, "api-key");

    await row.locator("button.revoke").click();
    await page.locator("#key-rows tr", { hasText: key.slice(0, 15) }).locator(".key-status", { hasText: "revoked" }).waitFor();
    const rejected = await callTool("svc.ping", {}, key);
    assert.equal(rejected.status, 403);
    assert.equal(rejected.body.error.data.code, "REVOKED");

    const sandbox = await newClient().fetch(`${appUrl()}/api/generate-qr-code`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/claimed-in-browser" }),
    }).then((r) => r.json() as Promise<any>);
    await page.goto(sandbox.upgrade.claim);
    await page.locator("p.notice", { hasText: "Claimed" }).waitFor();
    await openView(page, "#/codes", "#code-rows"); // the console opens on its dashboard
    const claimed = page.locator("#code-rows tr", { hasText: "example.com/claimed-in-browser" });
    await claimed.waitFor();
    await claimed.locator("img.thumb").evaluate((img: HTMLImageElement) => img.decode());
    assert.ok(await claimed.locator("img.thumb").evaluate((img: HTMLImageElement) => img.naturalWidth === 512));

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "console.png"), fullPage: true });
  });
});
