import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { callTool, toolResult } from "../helpers/rpc";
import type { TestMerchant } from "../helpers/merchants";
import { decodePng, decodeSvg, fetchPng } from "../helpers/qr";
import { hasColour, sampleLogo } from "../helpers/designs";
import { renderPdfPage, ptToMm } from "../helpers/pdf";
import { ARTIFACTS, assertPhoneReadyAndAccessible, DESKTOP, openView, PHONE, screenshot, signedInSession } from "./harness";

/** The newest flashed notice's text now ("" when none), without waiting for one to appear. */
const noticeText = (page: Page) => page.evaluate(() => document.querySelector("#app > .notice")?.textContent ?? "");

async function download(page: Page, selector: string): Promise<{ bytes: Buffer; name: string }> {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { bytes: await readFile((await file.path())!), name: file.suggestedFilename() };
}

/** The bytes an <img> shows (a blob: preview or a hosted file). */
async function imageBytes(page: Page, selector: string): Promise<Buffer> {
  const b64 = await page.evaluate(async (sel) => {
    const blob = await (await fetch((document.querySelector(sel) as HTMLImageElement).src)).blob();
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let s = "";
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s);
  }, selector);
  return Buffer.from(b64, "base64");
}

const HOUSE = { foreground: "#7c2d12", background: "#fff7ed" };

describe("merchant console: brand designs", function () {
  this.timeout(240_000);
  const session = signedInSession();
  let page: Page;
  let merchant: TestMerchant;
  before(() => ({ page, merchant } = session));

  it("Settings: saves a brand preset with colours, styles and a logo, lists it, deletes another", async () => {
    await openView(page, "#/settings", "#brand-presets");
    await page.fill("#preset-name", "House");
    await page.fill("#preset-design-fg", HOUSE.foreground);
    await page.fill("#preset-design-bg", HOUSE.background);
    await page.selectOption("#preset-design-modules", "rounded");
    await page.selectOption("#preset-design-eyes", "circle");
    await page.setInputFiles("#preset-design-logo", { name: "logo.png", mimeType: "image/png", buffer: await sampleLogo() });
    await page.waitForFunction(() => document.getElementById("preset-design-logo-note")?.textContent?.includes("logo.png"));
    await page.waitForFunction(() => {
      const shown = JSON.parse((document.getElementById("preset-preview") as HTMLImageElement).dataset.for ?? "{}");
      return shown.foreground === "#7C2D12" && shown.eyeStyle === "circle" && Boolean(shown.logo);
    });
    const example = await imageBytes(page, "#preset-preview");
    assert.equal(decodePng(example).payload, "https://example.com/", "the example is drawn by the backend");
    assert.ok(await hasColour(example, HOUSE.foreground.toUpperCase()));
    await page.click("#save-preset");
    await page.waitForSelector('#preset-rows [data-preset="House"]');
    await page.fill("#preset-name", "Spare");
    await page.click("#save-preset");
    await page.waitForSelector('#preset-rows [data-preset="Spare"]');
    await page.click('button[aria-label="Delete brand preset Spare"]');
    // The list is drawn again (a slow view shows "Loading…" meanwhile): wait for House in the new list.
    await page.waitForFunction(() => !document.querySelector('#preset-rows [data-preset="Spare"]') && document.querySelector('#preset-rows [data-preset="House"] .swatch'));
    const chip = await page.evaluate(() => getComputedStyle(document.querySelector('[data-preset="House"] .swatch')!).backgroundColor);
    assert.equal(chip, "rgb(124, 45, 18)", "the swatch shows the preset's colour");
    const listed = toolResult(await callTool("svc.brand.list_presets", {}, merchant.apiKey));
    assert.deepEqual(listed.presets.map((p: any) => p.name), ["House"]);
    assert.equal(listed.presets[0].design.foreground, HOUSE.foreground.toUpperCase());
    assert.equal(listed.presets[0].design.moduleStyle, "rounded");
    assert.ok(listed.presets[0].design.logo, "the logo was uploaded with the preset");
    await page.locator("#brand-presets").scrollIntoViewIfNeeded();
    await screenshot(page, "design-settings-presets");
  });

  it("create page: the live preview is the backend's exact image of the design, and the code gets that image", async () => {
    await openView(page, "#/new", "#new-code-form");
    await page.fill("#new-title", "Brand window sticker");
    await page.fill("#new-url", "https://example.com/brand-sticker");
    await page.check("#new-design-on");
    await page.waitForSelector('#new-design-preset option[value="House"]', { state: "attached" });
    await page.selectOption("#new-design-preset", "House");
    await page.selectOption("#new-design-modules", "dots");
    await page.waitForFunction(() => {
      const img = document.getElementById("preview") as HTMLImageElement;
      const look = img?.dataset.for ? JSON.parse(img.dataset.for) : {};
      return look.design?.preset === "House" && look.design?.moduleStyle === "dots";
    });
    const preview = await imageBytes(page, "#preview");
    assert.equal(decodePng(preview).payload, "https://example.com/brand-sticker");
    assert.ok(await hasColour(preview, HOUSE.foreground.toUpperCase()), "drawn in the preset's colour");
    await screenshot(page, "design-create-desktop");

    // A refused design says why, with the suggestion, before anything is created.
    await page.fill("#new-design-fg", "#ffffff");
    await page.waitForFunction(() => /No preview: .*darker/i.test(document.getElementById("preview-note")?.textContent ?? ""));
    await page.fill("#new-design-fg", HOUSE.foreground);
    await page.waitForFunction(() => (document.getElementById("preview-note")?.textContent ?? "").startsWith("This is the exact PNG"));

    await page.click("#create-code");
    await page.waitForSelector("#created-link");
    const code = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes[0];
    assert.equal(code.design.preset, "House");
    assert.equal(code.design.moduleStyle, "dots");
    assert.ok(code.design.logo, "the preset's logo");
    assert.deepEqual(await fetchPng(code.qrImageUrl), await imageBytes(page, "#preview"), "the stored PNG is the previewed one");
  });

  it("code page: re-design with a live preview, keep the logo, print hint, and PNG, SVG and PDF downloads that decode", async () => {
    const code = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes[0];
    await openView(page, `#/code/${code.codeId}`, "#code-design-section");
    assert.equal(await page.inputValue("#code-design-modules"), "dots", "the panel shows the code's design");
    await page.selectOption("#code-design-eyes", "rounded");
    await page.waitForFunction(() => (document.getElementById("design-preview") as HTMLImageElement).src.startsWith("blob:"));
    const preview = await imageBytes(page, "#design-preview");
    assert.equal(decodePng(preview).payload, code.destinationUrl);
    // The re-render after saving is held until the test releases it, so it is slow by construction
    // (never by a timer racing the machine's speed): the page must show its loading state, and the
    // "Design saved" notice must be on screen through it and after it.
    const analytics = `**/api/console/codes/${code.codeId}/analytics*`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(analytics, async (route) => {
      await held;
      await route.continue();
    });
    try {
      const reRender = page.waitForRequest((r) => r.url().includes(`/api/console/codes/${code.codeId}/analytics`));
      await page.click("#save-design");
      await reRender; // the save went through and the re-render started; it cannot finish while held
      await page.waitForSelector("#view-loading");
      assert.match(await noticeText(page), /^Design saved/, "the notice is shown with the loading state");
    } finally {
      release();
    }
    await page.waitForSelector("#app[data-view] #code-design-section");
    assert.match(await noticeText(page), /^Design saved/, "the notice outlives the slow re-render");
    await page.unroute(analytics);
    const saved = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey)).codes[0];
    assert.equal(saved.design.eyeStyle, "rounded");
    assert.equal(saved.design.moduleStyle, "dots", "the code's own module style stays, not its preset's");
    assert.equal(saved.design.logo.sha256, code.design.logo.sha256, "the logo was kept");
    assert.deepEqual(await fetchPng(saved.qrImageUrl), preview, "saved image equals the preview");

    await page.fill("#print-distance", "2");
    await page.waitForFunction(() => /Scans from 2 m when printed at least \d+ mm wide/.test(document.getElementById("print-hint")?.textContent ?? ""));
    const hintMm = Number(/at least (\d+) mm/.exec((await page.textContent("#print-hint"))!)![1]);
    const pdf = await download(page, "#dl-print-pdf");
    assert.match(pdf.name, new RegExp(`-${hintMm}mm\\.pdf$`));
    const pdfPage = await renderPdfPage(pdf.bytes, 900); // rendered by poppler
    assert.equal(Math.round(ptToMm(pdfPage.widthPt)), hintMm);
    assert.equal(decodePng(pdfPage.png).payload, code.destinationUrl, "the PDF decodes");
    assert.equal(pdfPage.images.length, 1, "logo kept in the PDF");

    await page.selectOption("#png-size", "1024");
    const sized = await download(page, "#dl-sized-png");
    assert.equal(decodePng(sized.bytes).width, 1024);
    assert.equal(decodePng(sized.bytes).payload, code.destinationUrl);
    const png = await download(page, "#code-detail .dl-png");
    assert.equal(decodePng(png.bytes).payload, code.destinationUrl);
    const svg = await download(page, "#code-detail .dl-svg");
    assert.match(svg.bytes.toString(), /<image /, "the SVG keeps the logo");
    assert.equal((await decodeSvg(svg.bytes)).payload, code.destinationUrl);
    const quickPdf = await download(page, "#code-detail .dl-pdf");
    assert.equal(decodePng((await renderPdfPage(quickPdf.bytes, 900)).png).payload, code.destinationUrl);
    await screenshot(page, "design-code-page-desktop");
    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "code page with design");
    await screenshot(page, "design-code-page-phone");
    await openView(page, "#/new", "#new-code-form");
    await page.check("#new-design-on");
    await assertPhoneReadyAndAccessible(page, "create page with design panel");
    await openView(page, "#/settings", "#brand-presets");
    await assertPhoneReadyAndAccessible(page, "settings with brand presets");
    await page.setViewportSize(DESKTOP);
  });

  it("five styled codes, each decoded, shown in the code list (screenshots in test-artifacts/)", async () => {
    const logo = (await sampleLogo(200, 200, "#0F766E")).toString("base64");
    const designs = [
      { foreground: "#1E3A8A", background: "#FFFFFF", moduleStyle: "rounded", eyeStyle: "rounded" },
      { foreground: "#14532D", background: "#F0FDF4", moduleStyle: "dots", eyeStyle: "circle", logo: { data: logo, mediaType: "image/png" } },
      { foreground: "#581C87", background: "#FAF5FF", moduleStyle: "square", eyeStyle: "circle", quietZone: 6 },
      { foreground: "#7F1D1D", background: "#FEF2F2", moduleStyle: "rounded", eyeStyle: "square", logo: { data: logo, mediaType: "image/png" } },
      { preset: "House", moduleStyle: "square" },
    ];
    for (const [i, design] of designs.entries()) {
      const args = { title: `Styled ${i + 1}`, destinationUrl: `https://example.com/styled-${i + 1}`, design, ...(i === 2 ? { boostFrame: "svc_x3_bluepurple" } : {}) };
      const code = toolResult(await callTool("svc.qr.create", args, merchant.apiKey));
      const png = await fetchPng(code.qrImageUrl);
      assert.equal(decodePng(png).payload, args.destinationUrl);
      writeFileSync(path.join(ARTIFACTS, `styled-code-${i + 1}.png`), png);
    }
    await openView(page, "#/codes", "#code-rows");
    // Every styled code's thumbnail is drawn (not a blank or broken image) before the list is photographed.
    await page.waitForFunction(() => {
      const thumbs = [...document.querySelectorAll<HTMLImageElement>("#code-rows img.thumb")];
      return thumbs.length >= 5 && thumbs.every((img) => img.complete && img.naturalWidth > 0);
    }, undefined, { timeout: 15_000 });
    await screenshot(page, "design-code-list");
  });
});
