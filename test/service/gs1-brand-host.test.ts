// GS1 on a merchant's own host (docs/gs1-on-brand-hosts.md), over HTTPS through the load balancer path:
// only the host's workspace's items resolve there (never another workspace's, not even one the host's
// former holder registered on it), the workspace owns every key it registers there whatever the shared
// host's rules say, and registering is refused on a domain that is not the workspace's or not active; an
// item there is reported and taken down by its address on that host.
// How the resolver behaves on such a host is test/service/gs1-resolver.test.ts's, run on both hosts.
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { baseUrl } from "../helpers/env";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { newGtin } from "../helpers/gs1";
import { TestDns } from "../helpers/dns";
import { activeDomain, brandHostClient, merchantRest } from "../helpers/brandHost";
import { adminCli } from "../helpers/admin";
import { compressDigitalLink } from "../../functions/src/gs1/grammar";
import { checkDigitOf } from "../../functions/src/gs1/keys";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";

const rest = merchantRest;
const item = (value: string, href: string, extra: object = {}) => ({ value, links: [{ linkType: "gs1:pip", href, title: "Product", isDefault: true }], ...extra });
const location = async (answer: Promise<Response>) => {
  const res = await answer;
  return res.status === 307 ? res.headers.get("location") : res.status;
};
const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
/** A GTIN-14 of a restricted circulation number (GTIN-13 prefix 2x): the shared host refuses it, it belongs to no company. */
function restrictedGtin(): string {
  const body = `02${Array.from({ length: 11 }, () => String(randomInt(10))).join("")}`;
  return body + String(checkDigitOf(body));
}

describe("GS1 on a merchant's own host", function () {
  this.timeout(120_000);
  let dns: TestDns;
  let brand: TestMerchant;
  let other: TestMerchant;
  let domain: { domainId: string; hostname: string };
  let phone: ReturnType<typeof brandHostClient>;
  const shared = newClient();
  const onShared = (path: string) => shared.fetch(`${baseUrl()}${path}`, { redirect: "manual" });
  const onBrand = (path: string) => phone.fetch(path, { redirect: "manual", headers: { "User-Agent": PHONE } });

  before(async () => {
    dns = new TestDns();
    await dns.start();
    [brand, other] = await Promise.all([createMerchant(), createMerchant()]);
    for (const m of [brand, other]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    domain = await activeDomain(brand, dns);
    phone = brandHostClient(domain.hostname);
  });
  after(() => dns.close());

  it("owns every key it registers on its host: one another workspace owns on the shared host, and a restricted number the shared host refuses", async () => {
    const gtin = newGtin();
    assert.equal((await rest(other, "/api/gs1/items", "POST", item(gtin, "https://other.example/p"))).status, 201);
    const mine = await rest(brand, "/api/gs1/items", "POST", item(gtin, "https://brand.example/p", { domainId: domain.domainId }));
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    assert.equal(mine.body.uri, `https://${domain.hostname}/01/${gtin}`);
    assert.equal(await location(onBrand(`/01/${gtin}`)), "https://brand.example/p");
    assert.equal(await location(onShared(`/01/${gtin}`)), "https://other.example/p", "each host keeps its own owner");
    // The brand's item on its host is not its item on the shared host: that key stays the other's.
    assert.equal((await rest(brand, "/api/gs1/items", "POST", item(gtin, "https://brand.example/p"))).status, 409);

    const rcn = restrictedGtin();
    const refused = await rest(brand, "/api/gs1/items", "POST", item(rcn, "https://brand.example/weighed"));
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /restricted circulation number/);
    const onOwnHost = await rest(brand, "/api/gs1/items", "POST", item(rcn, "https://brand.example/weighed", { domainId: domain.domainId }));
    assert.equal(onOwnHost.status, 201, JSON.stringify(onOwnHost.body));
    const scanned = await onBrand(`/01/${rcn}`);
    assert.equal(scanned.headers.get("location"), "https://brand.example/weighed");
    assert.equal(scanned.headers.get("x-scan-counted"), "true", "a resolution on the brand's host is a scan of the item");
  });

  it("never answers another workspace's items on a brand's host, nor the brand's shared-host items", async () => {
    const theirs = newGtin();
    const theirDomain = await activeDomain(other, dns);
    assert.equal((await rest(other, "/api/gs1/items", "POST", item(theirs, "https://other.example/theirs"))).status, 201);
    assert.equal((await rest(other, "/api/gs1/items", "POST", item(theirs, "https://other.example/theirs-own", { domainId: theirDomain.domainId }))).status, 201);
    const missing = await onBrand(`/01/${theirs}`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as any).message, /no links for GTIN/);
    assert.equal(await location(brandHostClient(theirDomain.hostname).fetch(`/01/${theirs}`, { redirect: "manual" })), "https://other.example/theirs-own");

    const sharedOnly = newGtin();
    assert.equal((await rest(brand, "/api/gs1/items", "POST", item(sharedOnly, "https://brand.example/shared"))).status, 201);
    assert.equal(await location(onShared(`/01/${sharedOnly}`)), "https://brand.example/shared");
    assert.equal(await location(onBrand(`/01/${sharedOnly}`)), 404, "an item is served on the host it was registered on");

    // Naming another workspace's domain, or one not active: refused, nothing written.
    const fresh = newGtin();
    const crossed = await rest(brand, "/api/gs1/items", "POST", item(fresh, "https://brand.example/x", { domainId: theirDomain.domainId }));
    assert.deepEqual([crossed.status, crossed.body.code, crossed.body.details?.reason], [400, "VALIDATION_FAILED", "unknown_domain"]);
    const pending = (await rest(brand, "/api/domains", "POST", { hostname: `gs1.m${randomUUID().slice(0, 8)}.example.com` })).body;
    const notActive = await rest(brand, "/api/gs1/items", "POST", item(fresh, "https://brand.example/x", { domainId: pending.domainId }));
    assert.deepEqual([notActive.status, notActive.body.code, notActive.body.details?.reason], [409, "CONFLICT", "domain_not_active"]);
    assert.match(notActive.body.message, /GS1 items can only be put on an active domain/);
    assert.equal((await firestore().collection("gs1Items").where("value", "==", fresh).get()).size, 0);
  });

  it("passes a host's keys to the workspace that holds it next; the former holder's items are never answered there", async () => {
    const hostname = `id.m${randomUUID().slice(0, 8)}.example.com`;
    const before = await activeDomain(other, dns, hostname);
    const gtin = newGtin();
    for (const qualifiers of [[], [{ ai: "10", value: "OLD" }]]) {
      assert.equal((await rest(other, "/api/gs1/items", "POST", item(gtin, "https://other.example/old", { qualifiers, domainId: before.domainId }))).status, 201);
    }
    const client = brandHostClient(hostname);
    const at = (path: string) => location(client.fetch(path, { redirect: "manual" }));
    assert.equal(await at(`/01/${gtin}/10/OLD`), "https://other.example/old");
    assert.equal((await rest(other, `/api/domains/${before.domainId}`, "DELETE")).status, 200);

    const after = await activeDomain(brand, dns, hostname);
    assert.equal(await at(`/01/${gtin}`), 404, "the former holder's item is not the new holder's");
    assert.equal(await at(`/01/${gtin}/10/OLD`), 404);
    const taken = await rest(brand, "/api/gs1/items", "POST", item(gtin, "https://brand.example/new", { domainId: after.domainId }));
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    assert.equal(await at(`/01/${gtin}`), "https://brand.example/new");
    assert.equal(await at(`/01/${gtin}/10/OLD`), "https://brand.example/new", "the former holder's lot is passed over: the GTIN answers");
    const owners = (await firestore().collection("gs1Keys").where("value", "==", gtin).get()).docs.map((d) => d.get("merchantId"));
    assert.deepEqual(owners, [brand.merchantId]);
  });

  it("is reported and taken down by its address on the brand's host; an address on a host that serves nobody is refused as today", async () => {
    const gtin = newGtin();
    const saved = await rest(brand, "/api/gs1/items", "POST", item(gtin, "https://brand.example/reported", { domainId: domain.domainId }));
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    // The same GTIN is another workspace's on the shared host: an address on the brand's host never names it.
    assert.equal((await rest(other, "/api/gs1/items", "POST", item(gtin, "https://other.example/shared"))).status, 201);
    const reporter = newClient();
    const report = async (code: string, reason = "phishing") => {
      const res = await reporter.fetch(`${baseUrl()}/api/reports`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code, reason }) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const stored = async (reportId: string) => (await firestore().collection("abuseReports").doc(reportId).get()).data()!;
    const uri = `https://${domain.hostname}/01/${gtin}`;

    const filed = await report(`${uri.replace(domain.hostname, domain.hostname.toUpperCase())}/10/LOT1?utm_source=pack`);
    assert.equal(filed.status, 202, JSON.stringify(filed.body));
    const first = await stored(filed.body.reportId);
    assert.deepEqual([first.subject, first.merchantId, first.url, first.destinationUrl], [`gs1_${saved.body.itemId}`, brand.merchantId, uri, "https://brand.example/reported"]);
    const compressed = await report(compressDigitalLink(uri), "scam");
    assert.equal(compressed.status, 202, JSON.stringify(compressed.body));
    assert.equal((await stored(compressed.body.reportId)).subject, `gs1_${saved.body.itemId}`);

    // Nothing registered at the address on that host: not found, as on the shared host.
    assert.equal((await report(`https://${domain.hostname}/01/${newGtin()}`)).status, 404);
    // A host that serves nobody, one not yet active, the brand's host with a port, over http: no address of this service.
    const pending = (await rest(brand, "/api/domains", "POST", { hostname: `gs1r.m${randomUUID().slice(0, 8)}.example.com` })).body;
    for (const address of [`https://nobody-${randomUUID().slice(0, 8)}.example/01/${gtin}`, `https://${pending.hostname}/01/${gtin}`, `https://${domain.hostname}:8443/01/${gtin}`, `http://${domain.hostname}/01/${gtin}`]) {
      const refused = await report(address);
      assert.deepEqual([refused.status, refused.body.code, refused.body.details?.field], [400, "VALIDATION_FAILED", "code"], address);
      assert.match(refused.body.message, /not the address of a QR code or a GS1 product link made here/);
    }

    // An operator takes it down by the same address: the brand's host answers the warning page, the other
    // workspace's item on the shared host is untouched.
    const cli = await adminCli("takedown", "--code", uri, "--reason", "Product page replaced by a lure");
    assert.equal(cli.subject, `gs1_${saved.body.itemId}`);
    assert.equal((await onBrand(`/01/${gtin}`)).status, 410);
    assert.equal(await location(onShared(`/01/${gtin}`)), "https://other.example/shared");
  });
});
