// Shopify orders through the local front (docs/shopify.md): a workspace connects its shop with the
// webhook secret; a person scans a tracked code; the signed orders/paid carrying the click id from that 302 becomes one sale on the right code with its
// revenue exact in cents; a wrongly signed one writes nothing; a replayed delivery is dropped, a second
// delivery of the same order is the same sale; a refund and a cancellation reverse it. Payloads are
// Shopify's documented example (test/fixtures/shopify/), signed here as Shopify signs them.
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { appUrl, baseUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { eventually } from "../helpers/poll";

const SECRET = "shpss_test_0123456789abcdef0123456789abcdef";
const fixture = (name: string) => readFileSync(path.join(__dirname, "../fixtures/shopify", name), "utf8");

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

/** A person scans the tracked code: the 302 carries the click id, which the shop keeps as a cart attribute. */
async function scanForClickId(uniqueQRCodeID: string): Promise<string> {
  const res = await newClient().fetch(`${baseUrl()}/qr/${uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
  await res.arrayBuffer();
  assert.equal(res.status, 302);
  const clickId = new URL(res.headers.get("location")!).searchParams.get("svc_sid");
  assert.ok(clickId, `no click id in ${res.headers.get("location")}`);
  return clickId;
}

async function rest(merchant: TestMerchant, p: string, method = "GET", body?: unknown) {
  const res = await fetch(`${appUrl()}${p}`, {
    method,
    headers: { Authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function deliver(shop: string, topic: string, body: string, opts: { secret?: string; webhookId?: string; hmac?: string } = {}) {
  const hmac = opts.hmac ?? createHmac("sha256", opts.secret ?? SECRET).update(Buffer.from(body, "utf8")).digest("base64");
  const res = await fetch(`${appUrl()}/api/shopify/webhooks`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shopify-Topic": topic, "X-Shopify-Shop-Domain": shop, "X-Shopify-Hmac-Sha256": hmac, "X-Shopify-Webhook-Id": opts.webhookId ?? randomUUID(), "X-Shopify-API-Version": "2025-04" },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const conversionDocs = async (merchant: TestMerchant) => (await firestore().collection("workspaces").doc(merchant.merchantId).collection("conversions").get()).docs.filter((d) => !d.id.startsWith("k~"));

describe("Shopify orders: signed webhooks become sales and reversals", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let other: TestMerchant;
  let shop: string;
  let codeId: string;
  let uniqueQRCodeID: string;
  before(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
    shop = `bakery-${randomUUID().slice(0, 8)}.myshopify.com`;
    ({ codeId, uniqueQRCodeID } = toolResult(await callTool("svc.qr.create", { title: "Poster", destinationUrl: "https://example.com/shop", dynamic: true }, merchant.apiKey)));
    assert.equal((await rest(merchant, `/api/track/codes/${codeId}`, "POST", { trackConversions: true })).status, 200);
  });

  it("connects a shop once, never answers its secret, and refuses it to another workspace", async () => {
    const created = await rest(merchant, "/api/shopify/shops", "POST", { shopDomain: shop.toUpperCase(), webhookSecret: SECRET });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.shopDomain, shop);
    assert.deepEqual(created.body.topics, ["orders/paid", "refunds/create", "orders/cancelled"]);
    assert.match(created.body.webhookUrl, /\/api\/shopify\/webhooks$/);
    const listed = await rest(merchant, "/api/shopify/shops");
    assert.equal(listed.body.count, 1);
    assert.ok(!JSON.stringify(listed.body).includes(SECRET) && !JSON.stringify(created.body).includes(SECRET), "the secret is never answered");
    const stored = (await firestore().collection("shopifyShops").doc(shop).get()).data()!;
    assert.ok(!JSON.stringify(stored).includes(SECRET), "the secret is stored sealed");
    assert.equal((await rest(other, "/api/shopify/shops", "POST", { shopDomain: shop, webhookSecret: SECRET })).status, 409);
    const bad = await rest(merchant, "/api/shopify/shops", "POST", { shopDomain: "bakery.example.com", webhookSecret: SECRET });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /myshopify\.com/);
  });

  it("a wrongly signed order writes nothing; a signed one is one sale, once, with its revenue exact; refund and cancel reverse it", async () => {
    const clickId = await scanForClickId(uniqueQRCodeID);
    // The click id as a cart attribute, the bytes otherwise as Shopify documents them (its 64-bit ids bare).
    const paid = fixture("orders-paid.json").replace('"note_attributes": []', `"note_attributes": [{ "name": "svc_sid", "value": "${clickId}" }]`);
    assert.ok(paid.includes("820982911946154508"));

    const forged = await deliver(shop, "orders/paid", paid, { secret: "another-secret-0123456789" });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.code, "INVALID_TOKEN");
    // The signature of other bytes (the same JSON re-serialised) does not verify either.
    const reserialised = await deliver(shop, "orders/paid", paid, { hmac: createHmac("sha256", SECRET).update(JSON.stringify(JSON.parse(paid))).digest("base64") });
    assert.equal(reserialised.status, 401);
    assert.equal((await deliver(shop, "orders/paid", paid, { hmac: "" })).status, 401);
    assert.equal((await deliver("unknown-shop.myshopify.com", "orders/paid", paid)).status, 401);
    assert.deepEqual(await conversionDocs(merchant), [], "nothing written for an unverified body");

    const webhookId = randomUUID();
    const sale = await deliver(shop, "orders/paid", paid, { webhookId });
    assert.equal(sale.status, 200, JSON.stringify(sale.body));
    assert.deepEqual(sale.body, { received: true, outcome: "sale" });
    assert.deepEqual((await deliver(shop, "orders/paid", paid, { webhookId })).body, { received: true, outcome: "replay" });
    assert.deepEqual((await deliver(shop, "orders/paid", paid)).body, { received: true, outcome: "duplicate" });
    assert.equal((await deliver(shop, "orders/updated", paid)).body.outcome, "ignored");

    const figures = () => rest(merchant, `/api/conversions?codeId=${codeId}&days=2`).then((r) => r.body);
    const counted = await eventually(figures, (f) => f.total?.sales === 1 && f.total?.people === 1, { what: "the scan and the sale counted", timeoutMs: 60_000 });
    assert.deepEqual(counted.total.revenue, { USD: 36997 });
    assert.deepEqual(counted.byRule.map((r: any) => [r.rule, r.sales]), [[null, 1]], "on the code's destination (no rule answered)");

    const refund = await deliver(shop, "refunds/create", fixture("refunds-create.json"));
    assert.deepEqual(refund.body, { received: true, outcome: "reversal" });
    const refunded = await eventually(figures, (f) => f.total?.revenue?.USD === 36997 - 8999, { what: "the refund counted", timeoutMs: 60_000 });
    assert.equal(refunded.total.sales, 1, "a partial refund keeps the sale");

    const cancelled = await deliver(shop, "orders/cancelled", fixture("orders-cancelled.json"));
    assert.deepEqual(cancelled.body, { received: true, outcome: "reversal" });
    const closed = await eventually(figures, (f) => f.total?.sales === 0, { what: "the cancellation counted", timeoutMs: 60_000 });
    assert.equal(closed.total.revenue.USD ?? 0, 0);
  });

  it("an order with a forged click id is answered 200 refused, so Shopify does not retry it, and counts nothing", async () => {
    const body = fixture("orders-paid.json").replace(/820982911946154508/g, "820982911946150001").replace('"note_attributes": []', '"note_attributes": [{ "name": "svc_sid", "value": "eyJ2IjoxfQ.k0.AAAAAAAAAAAAAAAAAAAAAA" }]');
    const before = (await conversionDocs(merchant)).length;
    const answer = await deliver(shop, "orders/paid", body);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.outcome, "refused");
    assert.equal((await conversionDocs(merchant)).length, before);
  });

  it("a disconnected shop's webhooks are refused", async () => {
    assert.equal((await rest(merchant, `/api/shopify/shops/${shop}`, "DELETE")).status, 200);
    assert.equal((await deliver(shop, "orders/paid", fixture("orders-paid.json"))).status, 401);
    assert.equal((await rest(merchant, `/api/shopify/shops/${shop}`, "DELETE")).status, 404);
  });
});
