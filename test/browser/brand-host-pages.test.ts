// A merchant's pages on its own host, opened in Chromium as a shopper's phone and a desktop would: the name
// resolved to the local front's load balancer port by Chromium itself (--host-resolver-rules), over HTTPS
// with the certificate the front presents for that host, trusted by its public key alone
// (--ignore-certificate-errors-spki-list, no blanket ignoring of certificate errors), after checking here
// that the local CA signed it. The not-found page must be the merchant's, in its colours, readable and
// accessible at 390 and 1280 px (docs/gs1-on-brand-hosts.md, "The merchant's pages on its host").
import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import tls from "node:tls";
import type { Browser, Page } from "playwright-core";
import { TestDns } from "../helpers/dns";
import { createMerchant } from "../helpers/merchants";
import { activeDomain, brandHostPort, localCaFile, merchantRest } from "../helpers/brandHost";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { assertPhoneReadyAndAccessible, DESKTOP, launch, PHONE, screenshot } from "./harness";

/** The base64 SHA-256 of the public key of the certificate the front presents for `hostname`, once the local CA's signature on it is checked. */
function presentedKeyHash(hostname: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port: brandHostPort(), servername: hostname, ca: readFileSync(localCaFile()) }, () => {
      const certificate = new X509Certificate(socket.getPeerCertificate().raw);
      socket.end();
      if (!certificate.checkHost(hostname)) return reject(new Error(`the front's certificate does not name ${hostname}`));
      resolve(createHash("sha256").update(certificate.publicKey.export({ type: "spki", format: "der" })).digest("base64"));
    });
    socket.on("error", reject);
  });
}

describe("a merchant's pages on its own host, in a browser over HTTPS", function () {
  this.timeout(180_000);
  const dns = new TestDns();
  let browser: Browser;
  let hostname: string;

  before(async () => {
    await dns.start();
    const merchant = await createMerchant(undefined, "Corner Bakery & Café");
    await writeRateLimitOverride(merchant.merchantId, "bulk", 100_000);
    hostname = (await activeDomain(merchant, dns)).hostname;
    const colours = await merchantRest(merchant, "/api/domains/page-colours", "POST", { pageColours: { foreground: "#3B1F0E", background: "#FDF2E3" } });
    assert.equal(colours.status, 200, JSON.stringify(colours.body));
    browser = await launch([
      // The brand's name reaches the front's port on loopback, as DNS and the load balancer would take a phone there.
      `--host-resolver-rules=MAP ${hostname} 127.0.0.1:${brandHostPort()}`,
      `--ignore-certificate-errors-spki-list=${await presentedKeyHash(hostname)}`,
    ]);
  });
  after(async () => {
    await browser?.close();
    await dns.close();
  });

  async function open(path: string, viewport: { width: number; height: number }): Promise<{ page: Page; status: number }> {
    const page = await browser.newPage({ viewport });
    page.on("pageerror", (e) => assert.fail(`page error: ${e.message}`));
    const answer = await page.goto(`https://${hostname}${path}`);
    assert.ok(answer, path);
    return { page, status: answer.status() };
  }

  it("shows the merchant's not-found page on its host at 390 and 1280 px: its name, its colours, nothing of the platform", async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      const { page, status } = await open("/menu/today", viewport);
      assert.equal(status, 404);
      assert.equal(await page.evaluate(() => location.origin), `https://${hostname}`, "the brand's own address, over HTTPS");
      assert.equal(await page.textContent("h1"), "Page not found");
      assert.equal(await page.textContent(".brand"), "Corner Bakery & Café");
      assert.equal(await page.title(), "Corner Bakery & Café: Page not found");
      const [text, background] = await page.evaluate(() => [getComputedStyle(document.body).color, getComputedStyle(document.documentElement).backgroundColor]);
      assert.deepEqual([text, background], ["rgb(59, 31, 14)", "rgb(253, 242, 227)"]);
      assert.doesNotMatch(await page.content(), /svc|firebase|error|undefined|null/i, "no platform name, raw error or empty value");
      await assertPhoneReadyAndAccessible(page, `not-found page at ${viewport.width} px`);
      await screenshot(page, `brand-host-not-found-${viewport.width}`);
      await page.close();
    }
  });

  it("shows an unknown code's page on the host in the merchant's name", async () => {
    const { page, status } = await open("/qr/ZZZZZZZZZZZZ", PHONE);
    assert.equal(status, 404);
    assert.equal(await page.textContent("h1"), "This QR code is not active");
    assert.equal(await page.textContent(".brand"), "Corner Bakery & Café");
    await assertPhoneReadyAndAccessible(page, "unknown code page at 390 px");
    await screenshot(page, "brand-host-unknown-code-390");
    await page.close();
  });
});
