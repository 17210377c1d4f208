// Shared pieces of the console's browser tests: Chromium, signing in as a test merchant, axe-core runs,
// the phone-width check, and screenshots under test-artifacts/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { appUrl } from "../helpers/env";
import { createMerchant, type TestMerchant } from "../helpers/merchants";

export const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts");
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };
export const PASSWORD = "password-123"; // what helpers/merchants signUp uses

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
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
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
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
