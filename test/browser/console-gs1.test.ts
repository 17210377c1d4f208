// The console page "Product codes (GS1)" as a shop owner uses it: a refusal read as a sentence (wrong
// check digit, a GTIN another workspace owns), a product registered with two links and listed, its
// packaging QR code downloaded plain and compressed and decoded back to the GTIN and lot, links edited,
// the product deleted; screenshots at 1280 and 390 px with no sideways scroll, no broken word or image.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { appUrl, baseUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { consoleApi } from "../helpers/consoleApi";
import { createMerchant } from "../helpers/merchants";
import { newGtin } from "../helpers/gs1";
import { decodePng } from "../helpers/qr";
import { TestDns } from "../helpers/dns";
import { activeDomain, brandHostClient, merchantRest, PHONE as PHONE_AGENT } from "../helpers/brandHost";
import { posRead } from "../../functions/src/gs1/pos";
import { assertPhoneReadyAndAccessible, brokenWords, DESKTOP, lookAtWidths, openView, PHONE, screenshot, signedInSession } from "./harness";

async function download(page: Page, selector: string): Promise<{ bytes: Buffer; name: string }> {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { bytes: await readFile((await file.path())!), name: file.suggestedFilename() };
}

const shoot = (page: Page, name: string) => lookAtWidths(page, `gs1-${name}`);

/** The newest flashed error, once shown. */
async function shownError(page: Page): Promise<string> {
  await page.waitForSelector("#app > .error[role=alert]");
  return (await page.textContent("#app > .error[role=alert]"))!;
}

describe("merchant console: product codes (GS1)", function () {
  this.timeout(240_000);
  const session = signedInSession();
  let page: Page;
  const gtin = newGtin();
  let itemId: string;

  before(() => ({ page } = session));

  it("registers a product with two links after a refused check digit, and lists it", async () => {
    await openView(page, "#/gs1", "#gs1-new");
    assert.match((await page.textContent("#gs1-empty"))!, /No product codes yet/);
    await shoot(page, "empty");
    const wrong = gtin.slice(0, 13) + String((Number(gtin[13]) + 1) % 10);
    await page.fill("#gs1-value", wrong);
    await page.fill("#gs1-lot", "LOT42");
    await page.fill("#gs1-description", "Oat biscuits, 250 g");
    const first = page.locator("#gs1-new fieldset.gs1-link").nth(0);
    await first.locator("select").selectOption("gs1:pip");
    await first.getByLabel("Title").fill("Product page");
    await first.getByLabel("Target URL").fill("https://example.com/oats");
    await first.getByLabel("Languages (optional)").fill("en");
    await page.locator("#gs1-new").getByRole("button", { name: "Add link" }).click();
    const second = page.locator("#gs1-new fieldset.gs1-link").nth(1);
    await second.locator("select").selectOption("gs1:recipeInfo");
    await second.getByLabel("Title").fill("Recettes à l'avoine");
    await second.getByLabel("Target URL").fill("https://example.com/oats/recettes");
    await second.getByLabel("Languages (optional)").fill("fr");
    assert.equal(await first.locator("input[type=radio]").isChecked(), true, "the first link is the default");

    await page.click("#gs1-save-new");
    const refusal = await shownError(page);
    assert.match(refusal, new RegExp(`GTIN ${wrong} has a wrong check digit: ${wrong[13]}, expected ${gtin[13]}\\.`));
    assert.doesNotMatch(refusal, /[{}"]|VALIDATION_FAILED/, "a sentence, not the raw answer");
    await shoot(page, "refused");

    await page.fill("#gs1-value", gtin);
    await page.click("#gs1-save-new");
    await page.waitForSelector("#app[data-view] #gs1-packaging");
    itemId = /^#\/gs1\/([A-Za-z0-9_-]{32})$/.exec(await page.evaluate(() => location.hash))![1];
    assert.match((await page.textContent("#app > .notice"))!, new RegExp(`GTIN ${gtin}, lot LOT42 registered`));

    await openView(page, "#/gs1", "#gs1-items");
    const row = page.locator(`#gs1-items tr[data-item-id="${itemId}"]`);
    const cells = await row.locator("td").allTextContents();
    assert.match(cells[0], new RegExp(`GTIN ${gtin}, lot LOT42\\s*Oat biscuits, 250 g`));
    assert.match(cells[1], /Product page\s*https:\/\/example\.com\/oats/);
    assert.equal(cells[2], "2");
    await shoot(page, "list");
  });

  it("downloads the packaging QR code, plain and compressed, each decoding to the GTIN and lot, with its print size", async () => {
    await openView(page, `#/gs1/${itemId}`, "#gs1-packaging");
    const names: string[] = [];
    const sides: number[] = [];
    for (const form of ["full", "compressed"]) {
      await page.check(`#gs1-qr-${form}`);
      await page.waitForFunction((compressed) => {
        const text = document.getElementById("gs1-qr-text")?.textContent ?? "";
        const img = document.getElementById("gs1-qr") as HTMLImageElement;
        return text !== "" && text.includes("/01/") !== compressed && img.dataset.holds === text && img.complete && img.naturalWidth > 0;
      }, form === "compressed");
      const holds = (await page.textContent("#gs1-qr-text"))!;
      const size = (await page.textContent("#gs1-min-size"))!;
      const side = Number(/at least ([0-9.]+) mm wide/.exec(size)?.[1]);
      assert.ok(side >= 10 && side <= 60, size);
      sides.push(side);
      const file = await download(page, "#gs1-download");
      names.push(file.name);
      assert.equal(decodePng(file.bytes).payload, holds, "the file holds what the page says");
      assert.deepEqual(posRead(holds), { gtin, lot: "LOT42" }, "a checkout scanner reads the GTIN and lot");
      await shoot(page, `item-${form}`);
    }
    assert.deepEqual(names, [`gtin-${gtin}-LOT42.png`, `gtin-${gtin}-LOT42-compressed.png`]);
    assert.ok(sides[1] <= sides[0], `compressed ${sides[1]} mm, full ${sides[0]} mm`);
  });

  it("shows the product's scans by link type once a phone has scanned it", async () => {
    await openView(page, `#/gs1/${itemId}`, "#gs1-scans");
    assert.match((await page.textContent("#gs1-scans"))!, /No one has scanned it yet/);
    const phone = newClient();
    const scanned = await phone.fetch(`${baseUrl()}/01/${gtin}/10/LOT42`, { redirect: "manual", headers: { "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1" } });
    assert.equal(scanned.status, 307);
    assert.equal(scanned.headers.get("x-scan-counted"), "true");
    await openView(page, `#/gs1/${itemId}`, "#gs1-scans .gs1-link-scans");
    const text = (await page.textContent("#gs1-scans"))!;
    assert.match(text, /1 scan by 1 person\./);
    assert.doesNotMatch(text, /machines/, "no machine figure when there is none");
    // The packaging code above has drawn before the page is pictured.
    await page.waitForFunction(() => {
      const img = document.getElementById("gs1-qr") as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth > 0;
    });
    assert.match(text, /Product information page: 1 scan/);
    await shoot(page, "item-scans");
  });

  it("edits the links, and says so when another workspace owns a GTIN", async () => {
    await openView(page, `#/gs1/${itemId}`, "#gs1-links");
    const second = page.locator("#gs1-links fieldset.gs1-link").nth(1);
    await second.locator("input[type=radio]").check();
    await second.getByLabel("Title").fill("Recettes");
    await page.click("#gs1-save-links");
    await page.waitForSelector("#app > .notice");
    const saved = await consoleApi(`/gs1/items/${itemId}`, session.merchant.idToken);
    assert.deepEqual(saved.body.links.map((l: any) => [l.linkType, l.title, l.isDefault]), [["gs1:pip", "Product page", false], ["gs1:recipeInfo", "Recettes", true]]);

    const other = await createMerchant();
    const taken = newGtin();
    const res = await fetch(`${appUrl()}/api/gs1/items`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${other.apiKey}` },
      body: JSON.stringify({ value: taken, links: [{ linkType: "gs1:pip", href: "https://other.example/", title: "Theirs", isDefault: true }] }),
    });
    assert.equal(res.status, 201);
    await openView(page, "#/gs1", "#gs1-new");
    await page.fill("#gs1-value", taken);
    const link = page.locator("#gs1-new fieldset.gs1-link").nth(0);
    await link.getByLabel("Title").fill("Ours");
    await link.getByLabel("Target URL").fill("https://example.com/ours");
    await page.click("#gs1-save-new");
    const conflict = await shownError(page);
    assert.match(conflict, new RegExp(`GTIN ${taken} is already registered by another workspace`));
    assert.doesNotMatch(conflict, /[{}"]|CONFLICT/);
  });

  it("deletes the product from the list", async () => {
    await openView(page, "#/gs1", "#gs1-items");
    await page.click(`#gs1-items tr[data-item-id="${itemId}"] .delete-gs1`);
    await page.waitForSelector("#app[data-view] #gs1-empty");
    assert.equal((await consoleApi(`/gs1/items/${itemId}`, session.merchant.idToken)).status, 404);
  });

  describe("on the brand's own host (docs/gs1-on-brand-hosts.md)", () => {
    const dns = new TestDns();
    let domain: { domainId: string; hostname: string };
    const brandGtin = newGtin();
    let brandItemId: string;
    before(async () => {
      await dns.start();
      domain = await activeDomain(session.merchant, dns);
    });
    after(() => dns.close());

    /** Both widths, each checked (no sideways scroll, axe, no word broken) and shot. */
    async function lookAt(name: string): Promise<void> {
      for (const viewport of [PHONE, DESKTOP]) {
        await page.setViewportSize(viewport);
        await assertPhoneReadyAndAccessible(page, `${name} at ${viewport.width} px`);
        assert.deepEqual(await brokenWords(page), [], `${name} at ${viewport.width} px: words broken inside themselves`);
        await screenshot(page, `gs1-${name}-${viewport.width}`);
      }
      await page.setViewportSize(DESKTOP);
    }

    it("registers a product on the picked host: its address and the QR code the page shows name that host, and a phone scanning it lands on the link", async () => {
      await openView(page, "#/gs1", "#gs1-domain");
      const options = await page.locator("#gs1-domain option").allTextContents();
      assert.deepEqual(options, ["The service's own host", domain.hostname]);
      assert.equal(await page.inputValue("#gs1-domain"), "", "no default domain set: the service's host, as the API's default");
      await page.selectOption("#gs1-domain", domain.domainId);
      await page.fill("#gs1-value", brandGtin);
      const link = page.locator("#gs1-new fieldset.gs1-link").nth(0);
      await link.getByLabel("Title").fill("Our page");
      await link.getByLabel("Target URL").fill("https://example.com/brand");
      await lookAt("brand-host-form");
      await page.click("#gs1-save-new");
      await page.waitForSelector("#app[data-view] #gs1-packaging");
      brandItemId = /^#\/gs1\/([A-Za-z0-9_-]{32})$/.exec(await page.evaluate(() => location.hash))![1];
      const uri = `https://${domain.hostname}/01/${brandGtin}`;
      assert.equal(await page.textContent("#app > .notice"), `GTIN ${brandGtin} registered on ${domain.hostname}: its code now leads to its links.`);
      assert.equal(await page.getAttribute("#gs1-uri", "href"), uri);
      assert.equal(await page.textContent("#gs1-host"), `Your own, ${domain.hostname}`);
      await page.waitForFunction((holds) => {
        const img = document.getElementById("gs1-qr") as HTMLImageElement;
        return img.dataset.holds === holds && img.complete && img.naturalWidth > 0;
      }, uri);
      assert.equal((await page.textContent("#gs1-qr-text"))!, uri);
      // The code as drawn on the page, read back by a decoder.
      const shown = decodePng(await page.locator("#gs1-qr").screenshot()).payload;
      assert.equal(shown, uri);
      const scanned = await brandHostClient(domain.hostname).fetch(new URL(shown).pathname, { redirect: "manual", headers: { "User-Agent": PHONE_AGENT } });
      assert.equal(scanned.status, 307);
      assert.equal(scanned.headers.get("location"), "https://example.com/brand");
      await lookAt("brand-host-item");
    });

    it("keeps the product on its host when its links are edited, and lists it by its host beside the same GTIN on the service's host", async () => {
      await openView(page, `#/gs1/${brandItemId}`, "#gs1-links");
      await page.locator("#gs1-links fieldset.gs1-link").nth(0).getByLabel("Title").fill("Our new page");
      await page.click("#gs1-save-links");
      await page.waitForSelector("#app > .notice");
      const saved = await consoleApi(`/gs1/items/${brandItemId}`, session.merchant.idToken);
      assert.equal(saved.body.links[0].title, "Our new page");
      const listed = await consoleApi("/gs1/items", session.merchant.idToken);
      assert.deepEqual(listed.body.items.map((i: { uri: string }) => i.uri), [`https://${domain.hostname}/01/${brandGtin}`], "no second item on the service's host");

      await openView(page, "#/gs1", "#gs1-domain");
      await page.selectOption("#gs1-domain", "");
      await page.fill("#gs1-value", brandGtin);
      const link = page.locator("#gs1-new fieldset.gs1-link").nth(0);
      await link.getByLabel("Title").fill("Shared page");
      await link.getByLabel("Target URL").fill("https://example.com/shared");
      await page.click("#gs1-save-new");
      await page.waitForSelector("#app[data-view] #gs1-packaging");
      const sharedUri = new URL((await page.getAttribute("#gs1-uri", "href"))!);
      assert.deepEqual([sharedUri.host, sharedUri.pathname], [new URL(baseUrl()).host, `/01/${brandGtin}`]);
      assert.equal(await page.locator("#gs1-host").count(), 0, "the service's own host is not named as the brand's");
      await openView(page, "#/gs1", "#gs1-items");
      const hosts = await page.locator("#gs1-items tr[data-item-id]").evaluateAll((rows) => rows.map((r) => r.querySelector(".gs1-host")?.textContent ?? ""));
      assert.deepEqual(hosts.sort(), [`on ${domain.hostname}`, `on ${new URL(baseUrl()).hostname}`].sort());
      await lookAt("brand-host-list");

      // The domain removed: the item is no longer answered, and its page says so instead of saving its
      // links as a second item on the service's host.
      assert.equal((await merchantRest(session.merchant, `/api/domains/${domain.domainId}`, "DELETE")).status, 200);
      await openView(page, `#/gs1/${brandItemId}`, "#gs1-links");
      assert.equal(await page.locator("#gs1-host").count(), 0);
      await page.click("#gs1-save-links");
      assert.match(await shownError(page), new RegExp(`^${domain.hostname.replace(/[.]/g, "\\.")} is no longer one of your domains, so this product code is not answered`));
      assert.equal((await consoleApi("/gs1/items", session.merchant.idToken)).body.items.length, 2, "nothing registered");
    });
  });
});
