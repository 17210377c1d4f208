// The console's Domains page (console/domains.ts) walked as a shop owner would: add a host, read and copy the
// records to create, verify against a real DNS server on loopback (test/helpers/dns.ts) until it is active,
// watch it stop verifying and come back, remove one after confirming. The page's verify request names the
// loopback server in X-Test-Dns, added on its way out of the browser (the page itself sends what it sends
// deployed): docs/domains.md, "The console page".
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { appUrl, baseUrl } from "../helpers/env";
import { overHttps, PHONE as PHONE_AGENT } from "../helpers/brandHost";
import { newClient } from "../helpers/clients";
import { countedAnalytics } from "../helpers/scans";
import { TestDns } from "../helpers/dns";
import { signUp } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { decodePng, fetchPng } from "../helpers/qr";
import { verifyDomain } from "../../functions/src/domains/service";
import { readDefaultDomainId } from "../../functions/src/store/codeDomains";
import { readHostPages, readRootUrl } from "../../functions/src/store/hostServing";
import { addMember } from "../../functions/src/store/workspaces";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, newPage, openView, PHONE, screenshot, signedInSession, signIn } from "./harness";

const DAY = 86_400_000;

describe("merchant console: Domains", function () {
  this.timeout(180_000);
  const session = signedInSession();
  const dns = new TestDns();
  let page: Page;
  const stamp = randomUUID().slice(0, 8);
  const sub = `scan.m${stamp}.example.com`;
  const apex = `m${stamp}.example`;

  before(async () => {
    page = session.page;
    await dns.start();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(appUrl()).origin });
    // Only the check's request, and only on its way out: the console sends no test header of its own.
    await page.route("**/api/console/domains/*/verify", (route) => route.continue({ headers: { ...route.request().headers(), "x-test-dns": dns.address } }));
  });
  after(() => dns.close());

  const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  const card = (host: string) => page.locator(".domain-card", { has: page.locator("h2", { hasText: exactly(host) }) });
  const records = (host: string) =>
    card(host).locator("tbody tr").evaluateAll((rows) => rows.map((r) => ({ type: r.getAttribute("data-record-type")!, name: r.querySelector(".record-name")!.textContent!, value: r.querySelector(".record-value")!.textContent! })));
  const lastNotice = () => page.locator("#app > .notice[role=status], #app > .error[role=alert]").first().textContent();

  async function add(host: string): Promise<void> {
    await page.fill("#domain-host", host);
    await page.click("#add-domain");
    await page.waitForSelector(`#app[data-view] .domain-card h2:text-is("${host}")`);
  }

  /** Presses Verify and waits for the re-rendered page (focus lands on the domain's name). */
  async function verifyOnPage(host: string, state: string): Promise<void> {
    const answered = page.waitForResponse((r) => r.url().endsWith("/verify"));
    await card(host).getByRole("button", { name: `Verify ${host}`, exact: true }).click();
    await answered;
    await page.waitForFunction((name) => document.activeElement?.tagName === "H2" && document.activeElement.textContent === name, host);
    assert.equal(await card(host).getAttribute("data-state"), state);
  }

  /** Both widths the issue names, each checked (no sideways scroll, axe, no word broken) and shot. */
  async function lookAt(name: string): Promise<void> {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await assertPhoneReadyAndAccessible(page, `${name} at ${viewport.width} px`);
      assert.deepEqual(await brokenWords(page), [], `${name} at ${viewport.width} px: words broken inside themselves`);
      await screenshot(page, `${name}-${viewport.width}`);
    }
    await page.setViewportSize(DESKTOP);
  }

  it("refuses a name with the server's sentence and adds a sub-domain and an apex with their records", async () => {
    await openView(page, "#/domains", "#add-domain-form");
    assert.match((await page.locator("#add-domain-form").textContent())!, /0 of 20 domains in use/);
    await page.fill("#domain-host", "co.uk");
    await page.click("#add-domain");
    await page.waitForSelector("#app > .error[role=alert]");
    assert.match((await lastNotice())!, /co\.uk is a public suffix/);
    assert.equal(await page.locator(".domain-card").count(), 0, "a refused name adds nothing");

    await add(sub);
    assert.match((await lastNotice())!, new RegExp(`Added ${sub.replace(/\./g, "\\.")}\\. Create the records`));
    const subRecords = await records(sub);
    assert.deepEqual(subRecords.map((r) => [r.type, r.name]), [["TXT", `_svc-verify.${sub}`], ["CNAME", sub]]);
    assert.match(subRecords[0].value, /^svc-verify=[0-9a-f]{32}$/);
    assert.match((await card(sub).locator(".domain-problem").textContent())!, /Waiting for the TXT record _svc-verify\./);
    assert.equal(await card(sub).locator(".badge").textContent(), "Waiting for DNS");
    // Copy puts exactly what is shown on the clipboard.
    await card(sub).getByRole("button", { name: "Copy TXT value" }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), subRecords[0].value);
    assert.equal(await card(sub).locator(".copy-status").textContent(), "Copied the value of the TXT record.");

    // The same host again: a sentence for a person, not the API's hint.
    await page.fill("#domain-host", sub.toUpperCase());
    await page.click("#add-domain");
    await page.waitForFunction(() => /already a domain/.test(document.querySelector("#app > .error[role=alert]")?.textContent ?? ""));
    assert.doesNotMatch((await lastNotice())!, /\/api|POST|\{id\}/);

    await add(apex);
    const apexRecords = await records(apex);
    assert.deepEqual(apexRecords.map((r) => r.type), ["TXT", "A", "AAAA", "ALIAS"]);
    assert.match((await card(apex).locator(".apex-note").textContent())!, /an apex cannot be a CNAME/);
    await lookAt("domains-pending");
  });

  it("verifies against the loopback DNS server: pending, then active once the records shown exist", async () => {
    await verifyOnPage(sub, "pending");
    assert.match((await lastNotice())!, /Checked .*: Waiting for DNS\./);
    // The records exactly as the page shows them, served by the loopback server.
    const [txt, cname] = await records(sub);
    dns.set(txt.name, { TXT: [txt.value] });
    await verifyOnPage(sub, "verifying");
    assert.match((await card(sub).locator(".domain-problem").textContent())!, /Ownership is proven; waiting for a CNAME record/);
    dns.set(cname.name, { CNAME: cname.value });
    await verifyOnPage(sub, "active");
    assert.equal(await card(sub).locator(".badge").textContent(), "Active");
    assert.match((await card(sub).locator(".domain-problem").textContent())!, /^Active since .*: codes can use this host\.$/);
    assert.match((await card(sub).locator(".checked").textContent())!, /^Last checked /);
    await lookAt("domains-active");
  });

  it("shows what is wrong and the detach date as sentences, then the detached notice, and comes back", async () => {
    const [, cname] = await records(sub);
    dns.set(sub, { CNAME: "shop.other-host.example" });
    await verifyOnPage(sub, "invalid");
    assert.equal(await card(sub).locator(".reason").textContent(), "The host points elsewhere");
    const notice = (await card(sub).locator(".domain-notice").textContent())!;
    assert.match(notice, /stopped verifying on \d{4}-\d{2}-\d{2}: .*points elsewhere \(shop\.other-host\.example\).*will be detached on \d{4}-\d{2}-\d{2}\./);
    assert.equal(await card(sub).locator(".domain-problem").count(), 0, "the notice holds the problem: not said twice");
    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "an invalid domain at 390 px");
    await screenshot(page, "domains-invalid-390");
    await page.setViewportSize(DESKTOP);

    // Thirty-one days on (a check with an injected clock, as the hourly job makes): detached.
    const domainId = (await card(sub).getAttribute("data-domain-id"))!;
    const owner = { merchantId: session.merchant.merchantId, uid: session.merchant.uid, authMethod: "api-key" as const, scopes: [], isAdmin: false };
    await verifyDomain(owner, domainId, { now: new Date(Date.now() + 31 * DAY), dnsServers: [dns.address] });
    await openView(page, "#/domains", `.domain-card[data-state="detached"]`);
    assert.equal(await card(sub).locator(".badge").textContent(), "Detached");
    assert.match((await card(sub).locator(".domain-notice").textContent())!, /has been detached: its codes keep working on the service's own host/);
    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "a detached domain at 390 px");
    await screenshot(page, "domains-detached-390");
    await page.setViewportSize(DESKTOP);

    dns.set(sub, { CNAME: cname.value });
    await verifyOnPage(sub, "active");
    assert.equal(await card(sub).locator(".domain-notice").count(), 0, "verified again: the notice is gone");
  });

  it("sets the default domain for new codes among the active ones, where the hosts' home page sends people, and their pages' colours", async () => {
    const merchantId = session.merchant.merchantId;
    const options = await page.locator("#default-domain option").evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    const subId = (await card(sub).getAttribute("data-domain-id"))!;
    assert.deepEqual(options, [["", "The service's own host"], [subId, sub]], "only active domains (the apex is still pending)");
    assert.equal(await page.inputValue("#default-domain"), "");
    await page.selectOption("#default-domain", subId);
    await page.click("#save-default-domain");
    await page.waitForFunction((host) => document.querySelector("#app > .notice[role=status]")?.textContent === `New dynamic codes go on ${host}.`, sub);
    assert.equal(await page.inputValue("#default-domain"), subId, "the re-rendered page shows the saved default");
    assert.equal(await readDefaultDomainId(merchantId), subId);

    // A URL the server refuses: its sentence, and nothing written.
    await page.fill("#root-url", "javascript:alert(1)");
    await page.click("#save-root-url");
    await page.waitForSelector("#app > .error[role=alert]");
    assert.doesNotMatch((await lastNotice())!, /\/api|POST/);
    assert.match((await lastNotice())!, /^The home page must be a web address starting with https:\/\//);
    assert.equal(await readRootUrl(merchantId), null);
    await page.fill("#root-url", "https://shop.example.com/welcome");
    await page.press("#root-url", "Enter");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent?.includes("https://shop.example.com/welcome"));
    assert.equal(await page.inputValue("#root-url"), "https://shop.example.com/welcome");
    assert.equal(await readRootUrl(merchantId), "https://shop.example.com/welcome");

    // The colours of the hosts' pages: a pair that does not read is refused in words, and nothing is written.
    await page.fill("#page-fg", "#777777");
    await page.fill("#page-bg", "#888888");
    await page.click("#save-page-colours");
    // The newest notice comes first; the home page's refusal above is still shown below it.
    await page.waitForFunction(() => /^Text in #777777 on #888888 is hard to read/.test(document.querySelector("#app > .error[role=alert]")?.textContent ?? ""));
    assert.equal((await readHostPages(merchantId)).pageColours, null);
    await page.fill("#page-fg", "#3b1f0e");
    await page.fill("#page-bg", "#fdf2e3");
    await page.click("#save-page-colours");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent === "Your hosts' pages now use your colours.");
    assert.deepEqual((await readHostPages(merchantId)).pageColours, { foreground: "#3B1F0E", background: "#FDF2E3" });
    assert.equal(await page.inputValue("#page-bg"), "#fdf2e3", "the re-rendered page shows the saved colours");
    await lookAt("domains-settings");
  });

  /** The PNG the page shows for a code (its thumbnail or its big image), decoded: what a printed copy would open. */
  const shownPayload = async (selector: string) => decodePng(await fetchPng((await page.getAttribute(selector, "src"))!)).payload;
  const codeOf = async (codeId: string) => (toolResult(await callTool("svc.qr.list", { limit: 100 }, session.merchant.apiKey)).codes as Array<{ codeId: string; domainId: string | null; dynamicLink: string; uniqueQRCodeID: string }>).find((c) => c.codeId === codeId)!;
  const onHost = (host: string) => new RegExp(`^https://${host.replace(/[.:]/g, "\\$&")}/qr/[A-Za-z0-9]{12}$`);

  it("creates a dynamic code on the domain picked on the create form, at phone and desktop width: its QR encodes the brand's host", async () => {
    const subId = (await card(sub).getAttribute("data-domain-id"))!;
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await openView(page, "#/new", "#new-code-form");
      assert.ok(await page.isHidden("#new-domain"), "a static code has no host to choose");
      await page.selectOption("#new-kind", "dynamic");
      await page.waitForSelector("#new-domain", { state: "visible" });
      assert.equal(await page.inputValue("#new-domain"), subId, "the workspace default is preselected");
      assert.deepEqual(await page.locator("#new-domain option").allTextContents(), ["The service's own host", sub], "active domains only: the apex is still pending");
      // Away and back: the choice made on the form is what is sent, not the default.
      await page.selectOption("#new-domain", "");
      await page.selectOption("#new-domain", subId);
      await page.fill("#new-title", `Table sticker ${viewport.width}`);
      await page.fill("#new-url", "https://example.com/branded");
      await page.locator("#preview-note", { hasText: `encodes the code's own link on ${sub} once it is created` }).waitFor();
      await assertPhoneReadyAndAccessible(page, `the create form with its host picker at ${viewport.width} px`);
      assert.deepEqual(await brokenWords(page), []);
      await screenshot(page, `domains-create-picker-${viewport.width}`);
      await page.click("#create-code");
      await page.waitForSelector("#created-link");
      const codeId = (await page.getAttribute("#created-link", "href"))!.replace("#/code/", "");
      const code = await codeOf(codeId);
      assert.equal(code.domainId, subId);
      assert.match(code.dynamicLink, onHost(sub));
      assert.equal(await shownPayload("#created img.thumb"), code.dynamicLink, "the QR the page shows opens the brand's host");
      await screenshot(page, `domains-created-on-host-${viewport.width}`);
    }
    // The service's own host, picked over the default.
    await openView(page, "#/new", "#new-code-form");
    await page.selectOption("#new-kind", "dynamic");
    await page.waitForSelector("#new-domain", { state: "visible" });
    await page.selectOption("#new-domain", "");
    await page.fill("#new-title", "On the service's host");
    await page.fill("#new-url", "https://example.com/plain");
    await page.click("#create-code");
    await page.waitForSelector("#created-link");
    const own = await codeOf((await page.getAttribute("#created-link", "href"))!.replace("#/code/", ""));
    assert.equal(own.domainId, null);
    assert.doesNotMatch(own.dynamicLink, onHost(sub));
    assert.equal(await shownPayload("#created img.thumb"), own.dynamicLink);
  });

  it("moves a code's link between the service's host and the brand's on the code's page; its QR follows", async () => {
    const listed = toolResult(await callTool("svc.qr.list", {}, session.merchant.apiKey)).codes as Array<{ codeId: string; title: string; dynamicLink: string }>;
    const code = listed.find((c) => c.title === "On the service's host")!;
    await openView(page, `#/code/${code.codeId}`, "#code-detail");
    assert.equal(await page.inputValue("#code-domain"), "", "on the service's own host");
    assert.deepEqual(await page.locator("#code-domain option").allTextContents(), ["The service's own host", sub]);
    await page.selectOption("#code-domain", { label: sub });
    await page.click("#move-domain");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent?.startsWith("Its link is now https://"));
    const moved = await codeOf(code.codeId);
    assert.match(moved.dynamicLink, onHost(sub));
    // The notice comes first, then the page is drawn again with the code as it now is.
    await page.waitForFunction((link) => [...document.querySelectorAll("#code-detail dd")].some((dd) => dd.textContent === `dynamic, ${link}`), moved.dynamicLink);
    assert.match((await lastNotice())!, new RegExp(`Its link is now ${moved.dynamicLink.replace(/[.:/]/g, "\\$&")}\\. Codes already printed with the old link keep working`));
    assert.equal(await page.inputValue("#code-domain"), moved.domainId, "the re-rendered page shows the new host");
    assert.equal(await shownPayload("#code-detail img.big"), moved.dynamicLink, "the code's QR now opens the brand's host");
    assert.equal(moved.uniqueQRCodeID, code.dynamicLink.split("/qr/")[1], "the same code: only its host moved");
    await lookAt("domains-code-host");
    await page.selectOption("#code-domain", "");
    await page.click("#move-domain");
    await page.waitForFunction((link) => document.querySelector("#app > .notice[role=status]")?.textContent?.startsWith(`Its link is now ${link}.`), code.dynamicLink);
    await page.waitForFunction((link) => [...document.querySelectorAll("#code-detail dd")].some((dd) => dd.textContent === `dynamic, ${link}`), code.dynamicLink);
    assert.equal(await shownPayload("#code-detail img.big"), code.dynamicLink, "back on the service's own host");
    await openView(page, "#/domains", "#host-settings");
  });

  it("shows a code's scans by the host its link was opened on, once people used both", async () => {
    const listed = toolResult(await callTool("svc.qr.list", { limit: 100 }, session.merchant.apiKey)).codes as Array<{ codeId: string; title: string; uniqueQRCodeID: string; dynamicLink: string }>;
    const code = listed.find((c) => c.title === "On the service's host")!;
    // Two people open the brand's host (over HTTPS, the local CA trusted), one the service's own.
    const [first, second, third] = Array.from({ length: 3 }, newClient);
    for (const from of [first, second]) assert.equal((await overHttps(sub, `/qr/${code.uniqueQRCodeID}`, { from: from.address })).status, 302);
    assert.equal((await third.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE_AGENT } })).status, 302);
    await countedAnalytics(async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, session.merchant.apiKey)), 3);
    await openView(page, `#/code/${code.codeId}`, "#by-host");
    const rows = await page.locator("#by-host tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(rows, [
      [sub, "2", "2"],
      [new URL(code.dynamicLink).host, "1", "1"],
    ]);
    await lookAt("domains-scans-by-host");
    await openView(page, "#/domains", "#host-settings");
  });

  it("shows a member the domains and their records, without the owner's controls", async () => {
    const member = await signUp();
    await addMember(session.merchant.merchantId, member.uid);
    const other = await newPage(session.browser);
    try {
      await signIn(other, { ...member, merchantId: session.merchant.merchantId, apiKey: "" });
      await openView(other, "#/domains", ".domain-card");
      assert.equal(await other.locator("#domains-owner-only").textContent(), "Only the workspace's owner can add, verify or remove domains.");
      assert.equal(await other.locator("#add-domain-form").count(), 0);
      assert.equal(await other.locator(".domain-card button.verify, .domain-card button.remove").count(), 0);
      assert.equal(await other.locator("#default-domain, #root-url, #page-fg").count(), 0);
      assert.equal(await other.locator("#page-colours-text").textContent(), "Your hosts' pages show text in #3B1F0E on #FDF2E3.");
      assert.equal(await other.locator("#default-domain-text").textContent(), `New dynamic codes go on ${sub}.`);
      assert.equal(await other.locator("#root-url-text").textContent(), "A visit to a host's home page goes to https://shop.example.com/welcome.");
      assert.equal(await other.locator(".domain-card", { has: other.locator("h2", { hasText: exactly(sub) }) }).getAttribute("data-state"), "active");
    } finally {
      await other.close();
    }
  });

  it("clears the home page, the pages' colours and the default", async () => {
    await page.click("#clear-root-url");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent === "Your hosts' home page now shows a \"not found\" page in your shop's name.");
    assert.equal(await page.inputValue("#root-url"), "");
    assert.equal(await page.locator("#clear-root-url").count(), 0);
    assert.equal(await readRootUrl(session.merchant.merchantId), null);
    await page.click("#clear-page-colours");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent === "Your hosts' pages now use the plain look, with your shop's name.");
    assert.equal((await readHostPages(session.merchant.merchantId)).pageColours, null);
    await page.selectOption("#default-domain", "");
    await page.click("#save-default-domain");
    await page.waitForFunction(() => document.querySelector("#app > .notice[role=status]")?.textContent === "New dynamic codes go on the service's own host.");
    assert.equal(await readDefaultDomainId(session.merchant.merchantId), null);
  });

  it("removes a domain only after confirming", async () => {
    await card(apex).getByRole("button", { name: `Remove ${apex}`, exact: true }).click();
    await card(apex).getByRole("button", { name: "Keep it" }).click();
    assert.equal(await card(apex).locator(".confirm-remove").count(), 0);
    await card(apex).getByRole("button", { name: `Remove ${apex}`, exact: true }).click();
    assert.match((await card(apex).locator(".confirm-box").textContent())!, /adding it again needs a new TXT record value/);
    await card(apex).locator(".confirm-remove").click();
    await page.waitForFunction((host) => document.querySelector("#app > .notice[role=status]")?.textContent?.startsWith(`Removed ${host}.`), apex);
    assert.equal(await card(apex).count(), 0);
    assert.equal(await page.locator(".domain-card").count(), 1);
  });
});
