// The inline app (MCP Apps) in Chromium, inside a host page built on the ext-apps AppBridge: each ui://
// page, read from the tool server, is handed a real tool result; we check what a person sees, that links
// go through the host, that nothing is fetched, and that the app calls no tool. Screenshots: test-artifacts/.
import assert from "node:assert/strict";
import { join } from "node:path";
import { build } from "esbuild";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import type { Browser, Page } from "playwright-core";
import { baseUrl } from "../helpers/env";
import { callTool, rpc, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { UI_RESOURCES, type UiView } from "../../functions/src/mcp/ui/resources";
import { DESKTOP, launch, newPage, PHONE, screenshot } from "./harness";

const PHONE_UA = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

describe("MCP app in a host (ext-apps AppBridge)", function () {
  this.timeout(180_000);
  let browser: Browser;
  let page: Page;
  let merchant: TestMerchant;
  let hostJs: string;
  const requests: string[] = [];

  before(async () => {
    const bundle = await build({ entryPoints: [join(__dirname, "mcp-app-host.ts")], bundle: true, format: "iife", target: "es2022", write: false, logLevel: "silent" });
    hostJs = bundle.outputFiles[0].text;
    merchant = await createMerchant();
    browser = await launch();
    page = await newPage(browser, DESKTOP);
    page.on("request", (r) => requests.push(r.url()));
  });

  after(async () => {
    await browser?.close();
  });

  /** Reads the page from the tool server, opens the host, renders the app with `result`, waits for `ready`. */
  async function render(view: UiView, result: unknown, ready: string) {
    const read = await rpc("resources/read", { uri: UI_RESOURCES[view].uri }, merchant.apiKey);
    assert.equal(read.status, 200, read.text);
    const html: string = read.body.result.contents[0].text;
    await page.setContent(`<!doctype html><html lang="en"><head><title>Host</title><style>body{margin:0;font-family:sans-serif}iframe{border:0;width:100%;height:400px;display:block}</style></head><body><div id="host"></div><script>${hostJs}</script></body></html>`);
    requests.length = 0;
    await page.evaluate(([h, r]) => window.renderApp(h as string, r), [html, result] as const);
    const frame = page.frameLocator("iframe");
    await frame.locator(ready).first().waitFor();
    return frame;
  }

  const hostLog = () => page.evaluate(() => window.hostLog);

  it("svc.qr.create: the draft code drawn from its link, PNG and SVG downloads and the console link, through the host", async () => {
    const created = await callTool("svc.qr.create", { title: "Spring menu table card", destinationUrl: "https://example.com/spring", dynamic: true }, merchant.apiKey);
    const code = toolResult(created);
    const frame = await render("code", created.body.result, "#code-card");
    assert.equal(await frame.locator("#code-title").textContent(), "Spring menu table card");
    assert.equal(await frame.locator("#status").textContent(), "Draft: not live until published");
    assert.equal(await frame.locator("#encoded").textContent(), code.dynamicLink);
    assert.equal(await frame.locator("#destination").textContent(), "https://example.com/spring");
    // The drawn code scans to what the printed code encodes.
    const shot = PNG.sync.read(await frame.locator("#qr-preview").screenshot());
    assert.equal(jsQR(new Uint8ClampedArray(shot.data), shot.width, shot.height)?.data, code.dynamicLink);
    await frame.locator("#download-png").click();
    await frame.locator("#download-svg").click();
    await frame.locator("#open-console").click();
    const log = await hostLog();
    assert.deepEqual(log.links, [code.qrImageUrl, code.qrSvgUrl, code.consoleUrl]);
    assert.match(code.consoleUrl, /\/console#\/code\//);
    assert.deepEqual(log.toolCalls, [], "the app publishes nothing and calls no tool");
    assert.deepEqual(requests, [], "the app loads nothing");
    await screenshot(page, "mcp-app-code");
    await page.setViewportSize(PHONE);
    await screenshot(page, "mcp-app-code-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("svc.qr.get_analytics: scans per day over the range, with totals, countries and devices", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Window sticker", destinationUrl: "https://example.com/window", dynamic: true }, merchant.apiKey));
    const clients = [newClient(), newClient()];
    for (const client of [...clients, clients[0]]) {
      const res = await client.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE_UA } });
      assert.equal(res.status, 302);
    }
    const answer = await eventually(
      () => callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 14 }, merchant.apiKey),
      (res) => toolResult(res).totalScans >= 3,
      { timeoutMs: 20_000, intervalMs: 250, what: "3 scans" },
    );
    const analytics = toolResult(answer);
    assert.equal(analytics.totalScans, 3);
    const frame = await render("scans", answer.body.result, "#scan-card");
    assert.equal(await frame.locator("#total-scans").textContent(), "3");
    assert.equal(await frame.locator("#unique-scanners").textContent(), "2");
    assert.equal(await frame.locator("#range").textContent(), `${analytics.from} to ${analytics.to} (14 days, ${analytics.timeZone})`);
    const bars = await frame.locator(".chart rect.bar").evaluateAll((rects) => rects.map((r) => [r.getAttribute("data-date"), Number(r.getAttribute("data-scans"))]));
    assert.deepEqual(bars, analytics.byDay.map((d: any) => [d.date, d.scans]));
    assert.deepEqual(await frame.locator("#top-devices li").allTextContents(), ["mobile: 3"]);
    assert.deepEqual(await frame.locator("#top-countries li").allTextContents(), analytics.countries.map((c: any) => `${c.country}: ${c.scans}`));
    assert.deepEqual(requests, []);
    await screenshot(page, "mcp-app-scans");
  });

  it("svc.menu.create: the draft menu as guests would read it, and the console link to publish it", async () => {
    const created = await callTool("svc.menu.create", { name: "Brunch", description: "Weekends 9 to 2" }, merchant.apiKey);
    const menu = toolResult(created);
    let frame = await render("menu", created.body.result, "#menu-card");
    assert.equal(await frame.locator("#menu-name").textContent(), "Brunch");
    assert.equal(await frame.locator("#status").textContent(), "Draft: not live until published");
    assert.match((await frame.locator("#menu-empty").textContent()) ?? "", /svc\.menu\.add_item/);
    await frame.locator("#open-console").click();
    assert.deepEqual((await hostLog()).links, [menu.consoleUrl]);
    // The same view with items, from the server's own record of the menu (svc.menu.list).
    await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "Eggs", name: "Shakshuka", price: 14.5, description: "Baked eggs, tomato, cumin" }, merchant.apiKey);
    await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "Drinks", name: "Flat white", price: 4 }, merchant.apiKey);
    const listed = toolResult(await callTool("svc.menu.list", { limit: 1 }, merchant.apiKey)).menus[0];
    frame = await render("menu", { content: [], structuredContent: { ...listed, consoleUrl: menu.consoleUrl } }, ".menu-section");
    assert.deepEqual(await frame.locator(".menu-section h2").allTextContents(), ["Eggs", "Drinks"]);
    assert.deepEqual(await frame.locator(".menu-section .item").allTextContents(), ["Shakshuka", "Flat white"]);
    assert.deepEqual(await frame.locator(".menu-section .price").allTextContents(), ["14.50", "4.00"]);
    assert.deepEqual((await hostLog()).toolCalls, []);
    assert.deepEqual(requests, []);
    await screenshot(page, "mcp-app-menu");
  });
});
