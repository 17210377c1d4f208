// Who may claim a GS1 key on the shared resolver host (docs/gs1-resolver.md, "Who may claim a key"): no
// restricted circulation numbers, a per-workspace item cap, new keys under an unverified company prefix
// limited until an operator approves the prefix (exclusive) or the workspace proves it by DNS on one of
// its verified domains (the loopback DNS server of test/helpers/dns.ts); and an operator's reassignment
// that pages through any number of items.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl, baseUrl } from "../helpers/env";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { newGtin } from "../helpers/gs1";
import { TestDns } from "../helpers/dns";
import { adminCli, runAdminCli } from "../helpers/admin";
import { checkDigitOf } from "../../functions/src/gs1/keys";
import { GS1_ITEMS_PER_WORKSPACE_MAX } from "../../functions/src/gs1/model";
import { gs1ItemIdOf } from "../../functions/src/store/gs1Items";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";

const client = newClient();

async function rest(m: TestMerchant, path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${m.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const item = (value: string, qualifiers: Array<{ ai: string; value: string }> = [], href = "https://example.com/p") => ({
  value,
  qualifiers,
  links: [{ linkType: "gs1:pip", href, title: "Product", isDefault: true }],
});
const put = (m: TestMerchant, value: string, qualifiers: Array<{ ai: string; value: string }> = [], href?: string) => rest(m, "/api/gs1/items", "POST", item(value, qualifiers, href));
const withCheck = (body: string) => body + String(checkDigitOf(body));
/** A GTIN-14 under `prefix` (7 digits after the indicator digit 0), with fresh item reference digits. */
const gtinUnder = (prefix: string) => withCheck(`0${prefix}${String(Math.floor(Math.random() * 1e5)).padStart(12 - prefix.length, "0")}`);
/** A fresh 7-digit company prefix of no restricted range (GS1 prefix 30-97). */
const newPrefix = () => `${30 + Math.floor(Math.random() * 68)}${String(Math.floor(Math.random() * 1e5)).padStart(5, "0")}`;
const host = () => new URL(baseUrl()).host;

/** Writes `n` items of a workspace straight to Firestore (500 a batch), as if registered: for the bounds only. */
async function seedItems(merchantId: string, n: number, key: { ai: string; value: string } | ((i: number) => { ai: string; value: string })) {
  for (let from = 0; from < n; from += 500) {
    const batch = firestore().batch();
    for (let i = from; i < Math.min(n, from + 500); i++) {
      const k = typeof key === "function" ? key(i) : key;
      const path = `/${k.ai}/${k.value}/21/S${i}`;
      const itemId = gs1ItemIdOf(host(), path);
      batch.set(firestore().collection("gs1Items").doc(itemId), {
        itemId, merchantId, host: host(), ai: k.ai, value: k.value, qualifiers: [{ ai: "21", value: `S${i}` }], path, description: null,
        links: [{ linkType: "gs1:pip", href: "https://example.com/seeded", title: "Seeded", default: true }], hrefs: ["https://example.com/seeded"],
        createdAt: new Date(), updatedAt: new Date(),
      });
    }
    await batch.commit();
  }
}

describe("GS1 claims on the shared host", function () {
  this.timeout(180_000);
  let a: TestMerchant;
  let b: TestMerchant;

  before(async () => {
    [a, b] = await Promise.all([createMerchant(), createMerchant()]);
    for (const m of [a, b]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
  });

  it("refuses restricted circulation and coupon numbers with a sentence, writing nothing", async () => {
    for (const [value, what] of [
      // The number the review registered: GTIN-13 2012345678903 in GTIN-14 form.
      ["02012345678903", /restricted circulation number \(in-store or variable-measure, within a geographic region\) \(GS1 prefix 20\)/],
      [withCheck("020123456789"), /GS1 prefix 02\)/],
      [withCheck("21234567890"), /restricted circulation number/], // a U.P.C. of number system 2 (variable measure)
      [withCheck("041234567890"), /restricted circulation number \(within a company\)/],
      [withCheck("251234567890"), /GS1 prefix 25/],
      [withCheck("991234567890"), /a coupon number \(GS1 prefix 991\)/],
      [withCheck("2012345"), /RCN-8/],
    ] as const) {
      const res = await put(a, value);
      assert.equal(res.status, 400, `${value}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "VALIDATION_FAILED");
      assert.match(res.body.message, what);
      assert.match(res.body.message, /belongs to no company, so it cannot be registered on the shared resolver host/);
    }
    assert.equal((await firestore().collection("gs1Keys").where("merchantId", "==", a.merchantId).where("value", "==", "02012345678903").get()).size, 0);
  });

  it("limits new keys under an unverified prefix; an operator's approval lifts it and shuts other workspaces out", async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    await writeRateLimitOverride(m.merchantId, "gs1KeyClaims", 2);
    const first = newGtin();
    for (const g of [first, newGtin()]) assert.equal((await put(m, g)).status, 201);
    // A lot of a key it owns is not a new key: not counted.
    assert.equal((await put(m, first, [{ ai: "10", value: "L1" }])).status, 201);
    const prefix = newPrefix();
    const limited = await put(m, gtinUnder(prefix));
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.equal(limited.body.code, "RATE_LIMITED");
    assert.match(limited.body.message, /New GS1 keys under a company prefix this workspace has not verified are limited to 2 a day/);
    assert.match(limited.body.hint, /Verify your GS1 company prefix/);

    // The operator approves the prefix for m: its keys under it are no longer counted; another workspace's new
    // key under it is refused; a key b claimed before the approval stays b's (a reassignment moves it).
    const early = gtinUnder(prefix);
    assert.equal((await put(b, early)).status, 201);
    const approved = await adminCli("gs1-approve-prefix", "--company-prefix", prefix, "--to", m.merchantId, "--reason", "GEPIR checked");
    assert.deepEqual([approved.companyPrefix, approved.to, approved.from], [prefix, m.merchantId, null]);
    for (let i = 0; i < 3; i++) {
      const own = await put(m, gtinUnder(prefix));
      assert.equal(own.status, 201, JSON.stringify(own.body));
    }
    const shut = await put(b, gtinUnder(prefix));
    assert.equal(shut.status, 409);
    assert.match(shut.body.message, new RegExp(`begins with GS1 company prefix ${prefix}, which the service's operators have verified for another workspace`));
    assert.equal((await put(b, early, [], "https://example.com/b-updated")).status, 200, "a key claimed before the approval is still its owner's");
    const audit = (await firestore().collection("auditEvents").where("merchantId", "==", m.merchantId).where("tool", "==", "admin.gs1_prefix").get()).docs.map((d) => d.data());
    assert.equal(audit.length, 1);
    assert.equal(audit[0].details.companyPrefix, prefix);
    // Withdrawn: m is limited again.
    await adminCli("gs1-approve-prefix", "--company-prefix", prefix, "--to", "none");
    assert.equal((await put(m, gtinUnder(prefix))).status, 429);
    const bad = await runAdminCli(["gs1-approve-prefix", "--company-prefix", "12a", "--to", m.merchantId]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--company-prefix must be a GS1 company prefix: 4 to 12 digits/);
  });

  it("lifts the limit for a prefix the workspace proves by DNS on a verified domain, and only then", async () => {
    const dns = new TestDns();
    await dns.start();
    try {
      const m = await createMerchant();
      await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
      await writeRateLimitOverride(m.merchantId, "gs1KeyClaims", 1);
      const prefix = newPrefix();
      assert.equal((await put(m, gtinUnder(prefix))).status, 201);
      assert.equal((await put(m, gtinUnder(prefix))).status, 429);

      const hostname = `brand.m${randomUUID().slice(0, 8)}.example.com`;
      const added = (await rest(m, "/api/domains", "POST", { hostname })).body;
      const prove = () => rest(m, "/api/gs1/prefixes", "POST", { companyPrefix: prefix, domainId: added.domainId }, { "X-Test-Dns": dns.address });
      // Not verified yet: refused, even with the record published.
      dns.set(`_svc-gs1.${hostname}`, { TXT: [`svc-gs1-prefix=${prefix}`] });
      const unverified = await prove();
      assert.equal(unverified.status, 409);
      assert.match(unverified.body.message, /is pending: its ownership must be proven/);
      for (const r of added.records) {
        if (r.type === "TXT") dns.set(r.name, { TXT: [r.value] });
        if (r.type === "CNAME") dns.set(r.name, { CNAME: r.value });
      }
      const verified = await rest(m, `/api/domains/${added.domainId}/verify`, "POST", {}, { "X-Test-Dns": dns.address });
      assert.notEqual(verified.body.state, "pending", JSON.stringify(verified.body));
      // Verified, but the prefix record is wrong: refused with the record to publish.
      dns.set(`_svc-gs1.${hostname}`, { TXT: ["svc-gs1-prefix=0000000"] });
      const wrong = await prove();
      assert.equal(wrong.status, 409);
      assert.deepEqual(wrong.body.details.record, { type: "TXT", name: `_svc-gs1.${hostname}`, value: `svc-gs1-prefix=${prefix}` });
      dns.set(`_svc-gs1.${hostname}`, { TXT: [`svc-gs1-prefix=${prefix}`] });
      const proven = await prove();
      assert.equal(proven.status, 200, JSON.stringify(proven.body));
      assert.deepEqual([proven.body.companyPrefix, proven.body.domain], [prefix, hostname]);
      for (let i = 0; i < 2; i++) assert.equal((await put(m, gtinUnder(prefix))).status, 201);
      assert.equal((await put(m, gtinUnder(newPrefix()))).status, 429, "another prefix is still limited");
      // A DNS proof does not shut anyone else out: a domain is not a GS1 licence.
      assert.equal((await put(b, gtinUnder(prefix))).status, 201);
    } finally {
      await dns.close();
    }
  });

  it(`refuses a workspace's item past ${GS1_ITEMS_PER_WORKSPACE_MAX} with a sentence; its existing items still change`, async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    const own = newGtin();
    assert.equal((await put(m, own)).status, 201);
    const seeded = newGtin();
    await seedItems(m.merchantId, GS1_ITEMS_PER_WORKSPACE_MAX - 1, { ai: "01", value: seeded });
    const refused = await put(m, own, [{ ai: "10", value: "ONE-MORE" }]);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(refused.body.message, new RegExp(`This workspace holds ${GS1_ITEMS_PER_WORKSPACE_MAX} GS1 items, the most a workspace may hold`));
    assert.equal((await put(m, own, [], "https://example.com/changed")).status, 200, "replacing an item's links adds none");
  });

  it("reassigns a key with more items than one transaction holds (401 serials and more), paging through them", async () => {
    const gtin = newGtin();
    assert.equal((await put(a, gtin)).status, 201);
    await seedItems(a.merchantId, 950, { ai: "01", value: gtin });
    assert.equal((await client.fetch(`${baseUrl()}/01/${gtin}/21/S949`, { redirect: "manual" })).status, 307);
    const done = await adminCli("gs1-reassign", "--key", gtin, "--to", b.merchantId, "--company-prefix", gtin.slice(1, 8), "--reason", "squat");
    assert.deepEqual([done.from, done.to, done.itemsRemoved], [a.merchantId, b.merchantId, 951]);
    assert.equal((await firestore().collection("gs1Items").where("value", "==", gtin).count().get()).data().count, 0);
    assert.equal((await client.fetch(`${baseUrl()}/01/${gtin}/21/S949`, { redirect: "manual" })).status, 404);
    const [event] = (await firestore().collection("auditEvents").where("merchantId", "==", b.merchantId).where("tool", "==", "admin.gs1_reassign").get()).docs.map((d) => d.data());
    assert.equal(event.details.itemsRemoved, 951);
    assert.equal((await put(b, gtin)).status, 201);
  });
});
