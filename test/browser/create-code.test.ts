import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { callTool, toolResult } from "../helpers/rpc";
import type { TestMerchant } from "../helpers/merchants";
import { decodePng, decodeSvg, fetchPng, isVectorOnly } from "../helpers/qr";
import { DESKTOP, openView, PHONE, screenshot, signedInSession } from "./harness";

/** Clicks a download button and returns the saved file's bytes and suggested name. */
async function download(page: Page, selector: string): Promise<{ bytes: Buffer; name: string }> {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { bytes: await readFile((await file.path())!), name: file.suggestedFilename() };
}

/** The preview image's bytes, once it shows the fields given. */
async function previewBytes(page: Page, expect: Record<string, unknown>): Promise<Buffer> {
  await page.waitForFunction((want) => {
    const img = document.getElementById("preview") as HTMLImageElement | null;
    return Boolean(img?.src && img.dataset.for && JSON.stringify(JSON.parse(img.dataset.for)) === JSON.stringify(want));
  }, expect);
  const b64 = await page.evaluate(async () => {
    const blob = await (await fetch((document.getElementById("preview") as HTMLImageElement).src)).blob();
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let s = "";
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s);
  });
  return Buffer.from(b64, "base64");
}

describe("merchant console: create a code", function () {
  this.timeout(180_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  before(() => ({ page, merchant } = session));

  it("previews the exact PNG as fields change, creates and publishes in one step, then downloads PNG and SVG that decode", async () => {
    await openView(page, "#/new", "#new-code-form");
    await page.fill("#new-title", "Window sticker with a very long title that must wrap on a phone screen without widening it");
    await page.fill("#new-url", "https://example.com/first");
    const first = await previewBytes(page, { destinationUrl: "https://example.com/first" });
    assert.equal(decodePng(first).payload, "https://example.com/first");

    const destination = `https://shop.example.com/spring-menu?table=12&${"x".repeat(120)}`;
    await page.fill("#new-url", destination);
    await page.selectOption("#new-template", "hexSeal");
    const framed = await previewBytes(page, { destinationUrl: destination, template: "hexSeal" });
    assert.equal(decodePng(framed).width, 1024, "the framed preview is the 1024 px framed PNG");
    assert.equal(decodePng(framed).payload, destination);

    await page.fill("#new-campaign", "spring");
    await page.fill("#new-tags", "window, door");
    await screenshot(page, "create-desktop");
    await page.click("#create-code");
    await page.waitForSelector("#created-link");

    const listed = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes;
    assert.equal(listed.length, 1, "created once");
    const code = listed[0];
    assert.equal(code.status, "published", "a console-made code is published in the same step");
    assert.equal(code.source, "console");
    assert.equal(code.campaign, "spring");
    assert.deepEqual(code.tags, ["window", "door"]);
    assert.equal(code.template, "hexSeal");
    assert.ok((await fetchPng(code.qrImageUrl)).equals(framed), "the preview was the exact PNG");

    const png = await download(page, "#created .dl-png");
    assert.match(png.name, /\.png$/);
    assert.equal(decodePng(png.bytes).payload, destination);
    const svg = await download(page, "#created .dl-svg");
    assert.match(svg.name, /\.svg$/);
    assert.ok(isVectorOnly(svg.bytes.toString("utf8")), "the SVG is vectors");
    assert.equal((await decodeSvg(svg.bytes)).payload, destination);
  });

  it("applies the rules as fields change: soundSeal and scan sounds force dynamic, a boost frame overrides the template", async () => {
    await openView(page, "#/new", "#new-code-form");
    await page.fill("#new-title", "Boosted");
    await page.fill("#new-url", "https://example.com/boost");
    await page.selectOption("#new-template", "soundSeal");
    await page.locator("#new-rules", { hasText: "Dynamic because of the soundSeal template" }).waitFor();
    assert.equal(await page.inputValue("#new-kind"), "dynamic");
    assert.ok(await page.isDisabled("#new-kind"));
    await page.selectOption("#new-boost", "svc_x5_gold");
    await page.locator("#new-rules", { hasText: "The boost frame replaces the template." }).waitFor();
    assert.ok(!(await page.isDisabled("#new-kind")), "with the template overridden, soundSeal no longer forces dynamic");
    await page.selectOption("#new-sound", "chime");
    await page.locator("#new-rules", { hasText: "Dynamic because of a scan sound" }).waitFor();
    await page.uncheck("#new-publish");
    await previewBytes(page, { destinationUrl: "https://example.com/boost", dynamic: true, template: "soundSeal", boostFrame: "svc_x5_gold", scanBeepSound: "chime" });
    await page.click("#create-code");
    await page.waitForSelector("#created-link");
    const code = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes[0];
    assert.equal(code.title, "Boosted");
    assert.equal(code.dynamic, true);
    assert.equal(code.boostFrame, "svc_x5_gold");
    assert.equal(code.template, null);
    assert.equal(code.scanBeepSound, "chime");
    assert.equal(code.status, "draft", "left as a draft when Publish now is unchecked");
    const svg = await download(page, "#created .dl-svg");
    assert.equal((await decodeSvg(svg.bytes)).payload, code.dynamicLink);
  });

  it("tool-made codes stay drafts until published from the list, and the list works at phone width", async () => {
    const tool = toolResult(await callTool("svc.qr.create", { title: "From an agent", destinationUrl: "https://example.com/agent" }, merchant.apiKey));
    assert.equal(tool.status, "draft");
    await openView(page, "#/codes", "#code-rows");
    const row = page.locator(`#code-rows tr[data-code-id="${tool.codeId}"]`);
    assert.equal((await row.locator(".code-status").textContent())?.trim(), "draft");
    await screenshot(page, "codes-desktop");
    await page.setViewportSize(PHONE);
    await screenshot(page, "codes-phone");
    await openView(page, "#/new", "#new-code-form");
    await screenshot(page, "create-phone");
    await page.setViewportSize(DESKTOP);
    await openView(page, "#/codes", "#code-rows");
    await row.locator("a.code-title").click();
    await page.waitForSelector("#code-detail");
    await page.click("#publish");
    await page.locator("#detail-status", { hasText: "published" }).waitFor();
    assert.equal(toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes.find((c: any) => c.codeId === tool.codeId).status, "published");
  });

  it("works from the keyboard alone: type, choose, and press Enter to create", async () => {
    await openView(page, "#/new", "#new-code-form");
    await page.focus("#new-title");
    await page.keyboard.type("Typed by keyboard");
    await page.keyboard.press("Tab");
    await page.keyboard.type("https://example.com/keyboard");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "new-url", "Tab goes from title to URL");
    await page.focus("#new-kind");
    await page.keyboard.press("ArrowDown"); // static -> dynamic
    assert.equal(await page.inputValue("#new-kind"), "dynamic");
    await page.focus("#new-url");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#created-link");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "created-link", "focus moves to the new code");
    const code = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes[0];
    assert.equal(code.title, "Typed by keyboard");
    assert.equal(code.dynamic, true);
  });
});
