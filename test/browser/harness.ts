// Shared pieces of the console's browser tests: Chromium, signing in as a test merchant, axe-core runs,
// the phone-width check, and screenshots under test-artifacts/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { appUrl } from "../helpers/env";
import { atFullScale } from "../helpers/scale";
import { createMerchant, type TestMerchant } from "../helpers/merchants";

export const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts");
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/**
 * The widths a test looks at: on every change the first one named (each page once at one width), every
 * one under `npm run test:full` (TEST_SCALE=1).
 */
export function widths<T>(all: readonly T[]): readonly T[] {
  return atFullScale ? all : all.slice(0, 1);
}

/**
 * A console view looked at as a shop owner would, at the phone width (and the desktop one under test:full):
 * ready, accessible, no word broken inside itself, and a screenshot; the page is left at desktop width.
 */
export async function lookAtWidths(page: Page, name: string): Promise<void> {
  for (const viewport of widths([PHONE, DESKTOP])) {
    await page.setViewportSize(viewport);
    await assertPhoneReadyAndAccessible(page, `${name} at ${viewport.width} px`);
    assert.deepEqual(await brokenWords(page), [], `${name} at ${viewport.width} px: words broken inside themselves`);
    await screenshot(page, `${name}-${viewport.width}`);
  }
  await page.setViewportSize(DESKTOP);
}
export const PASSWORD = "password-123"; // what helpers/merchants signUp uses

/** Chromium as every browser test drives it; `extra`: switches of one test (a host mapping, a trusted key). */
export function launch(extra: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", ...extra],
  });
}

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<Page> {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  return page;
}

export async function signIn(page: Page, merchant: TestMerchant): Promise<void> {
  await page.goto(`${appUrl()}/console`);
  await page.fill("#email", merchant.email);
  await page.fill("#password", PASSWORD);
  await page.click("#sign-in");
  await page.waitForSelector("#app[data-view]");
}

/** Opens a console view by its hash and waits until it has rendered. */
export async function openView(page: Page, hash: string, ready: string): Promise<void> {
  await page.evaluate((h) => {
    document.getElementById("app")!.removeAttribute("data-view");
    if (location.hash === h) location.hash = "#/"; // same hash: no hashchange, so pass through another view
    location.hash = h;
  }, hash);
  await page.waitForSelector(`#app[data-view] ${ready}`);
}

const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the current page, as readable lines. */
export async function axeProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the pages' CSP (no inline script) does not govern;
  // a script tag would be refused, as it should be.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")) }));
  });
  return violations.filter((v: any) => v.impact === "serious" || v.impact === "critical").map((v: any) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(", ")}`);
}

/** Page width beyond the viewport, in CSS pixels (0 when nothing scrolls sideways). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth);
}

/** Both checks at once, with the page's name in the message. */
export async function assertPhoneReadyAndAccessible(page: Page, name: string): Promise<void> {
  const overflow = await sidewaysOverflow(page);
  if (overflow > 0) {
    // Name the innermost elements that stick out, so a failure says what to fix.
    const culprits = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && ![...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 1))
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${el.className} (${Math.round(el.getBoundingClientRect().right)} px)`),
    );
    assert.fail(`${name}: page is ${overflow} px wider than the ${page.viewportSize()?.width} px screen; widest: ${culprits.join(", ")}`);
  }
  assert.deepEqual(await axeProblems(page), [], `${name}: axe-core serious/critical violations`);
  assert.deepEqual(await clippedControls(page), [], `${name}: controls too narrow for their text`);
}

/**
 * Selects whose chosen option does not fit beside the arrow, empty fields whose placeholder is cut, and
 * file inputs narrower than their own "Choose File / No file chosen" (Chromium then cuts the words): each
 * reads as broken to a shop owner.
 */
export async function clippedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const context = document.createElement("canvas").getContext("2d")!;
    for (const control of document.querySelectorAll<HTMLSelectElement | HTMLInputElement>("select, input[type=file], input[placeholder]")) {
      const style = getComputedStyle(control);
      // Not drawn, or drawn by a custom control (the console's file pickers keep a transparent native input).
      if (control.getClientRects().length === 0 || style.opacity === "0") continue;
      let need: number;
      let has: number;
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      if (control instanceof HTMLSelectElement || control.type !== "file") {
        // A select's chosen option beside its arrow; an empty field's placeholder (a search field's clear button aside).
        const text = control instanceof HTMLSelectElement ? (control.selectedOptions[0]?.text ?? "") : control.value ? "" : control.placeholder;
        need = context.measureText(text).width + (control instanceof HTMLSelectElement ? 20 : 0);
        has = control.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      } else {
        const probe = control.cloneNode() as HTMLInputElement;
        probe.style.cssText = "position:absolute;visibility:hidden;width:auto;max-width:none;min-width:0";
        control.parentElement!.append(probe);
        need = probe.offsetWidth;
        probe.remove();
        has = control.offsetWidth;
      }
      if (need > has + 0.5) problems.push(`${control.tagName.toLowerCase()}#${control.id}: needs ${Math.ceil(need)} px, has ${Math.floor(has)}`);
    }
    return problems;
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  // A full-page shot shows what a person sees after scrolling: lazy images are loaded first, and one that
  // does not load fails the test (a broken image is a defect, not a screenshot's blank).
  const broken = await page.evaluate(async () => {
    const lazy = [...document.querySelectorAll("img")];
    lazy.forEach((img) => (img.loading = "eager"));
    await Promise.all(lazy.map((img) => (img.complete ? null : new Promise((done) => ((img.onload = done), (img.onerror = done))))));
    return lazy.filter((img) => img.getAttribute("src") && img.naturalWidth === 0).map((img) => img.getAttribute("src"));
  });
  if (broken.length) throw new Error(`Screenshot ${name}: ${broken.length} images did not load, e.g. ${broken[0]}`);
  // An image shown without a picture to load draws a broken-image icon or its alt text.
  const empty = await page.$$eval("img:not([src]), img[src='']", (imgs) => (imgs as HTMLImageElement[]).filter((img) => img.getClientRects().length > 0).map((img) => img.id || img.alt));
  if (empty.length) throw new Error(`Screenshot ${name}: ${empty.length} images shown without a picture, e.g. ${empty[0]}`);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export interface Session {
  browser: Browser;
  page: Page;
  merchant: TestMerchant;
}

/**
 * Registers mocha hooks that open Chromium and sign a fresh merchant in; the returned object is filled
 * in before the suite's own hooks and tests run.
 */
export function signedInSession(): Session {
  const session = {} as Session;
  before(async () => {
    session.browser = await launch();
    session.page = await newPage(session.browser);
    session.merchant = await createMerchant();
    await signIn(session.page, session.merchant);
  });
  after(async () => {
    await session.browser?.close();
  });
  return session;
}

/**
 * Words broken inside themselves in table cells and badges: a word laid out on more than one line although
 * it would fit on one line of its cell ("stat ic", "draf t"). Hyphens are allowed break points; ids and
 * e-mail addresses marked `.long` may wrap anywhere (they are one "word" wider than a phone); hidden
 * text (screen-reader only, tooltips) is not looked at.
 */
export async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    for (const cell of document.querySelectorAll<HTMLElement>("td, th, .badge")) {
      const style = getComputedStyle(cell);
      const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const parent = node.parentElement;
        if (!parent || parent.closest(".sr-only, .pop, .long, [hidden]") || parent.getClientRects().length === 0) continue;
        for (const m of node.data.matchAll(/[^\s\-‐–]+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index!);
          range.setEnd(node, m.index! + m[0].length);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0);
          const lines = new Set(rects.map((r) => Math.round(r.top)));
          const width = rects.reduce((sum, r) => sum + r.width, 0);
          if (lines.size > 1 && width <= room) problems.push(`"${m[0]}" in ${cell.tagName.toLowerCase()}${cell.className ? `.${cell.className}` : ""} (${lines.size} lines)`);
        }
      }
    }
    return problems.slice(0, 10);
  });
}
