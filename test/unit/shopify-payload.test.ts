// Reading Shopify's webhooks (functions/src/attribution/shopifyPayload.ts) and checking their signature
// (attribution/shopify.ts), on payloads built from Shopify's documented examples (test/fixtures/shopify/).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { clickIdOf, parseShopifyJson, readOrder, readRefund, toMinorUnits } from "../../functions/src/attribution/shopifyPayload";
import { shopifySignatureMatches } from "../../functions/src/attribution/shopify";
import { AppError } from "../../functions/src/core/errors";

const fixture = (name: string) => readFileSync(path.join(__dirname, "../fixtures/shopify", name));

describe("Shopify webhook payloads", () => {
  it("keeps a 64-bit order id's digits, where JSON.parse would round them", () => {
    const raw = fixture("orders-paid.json");
    assert.equal(String((JSON.parse(raw.toString()) as { id: number }).id), "820982911946154500");
    const order = readOrder(parseShopifyJson(raw));
    assert.equal(order.orderId, "820982911946154508");
    assert.equal(order.customerId, "115310627314723954");
    // The documented example's total, 369.97 USD, in cents.
    assert.equal(order.amount, 36997);
    assert.equal(order.currency, "USD");
    assert.equal(order.clickId, undefined);
  });

  it("finds the click id in a cart attribute first, then in the landing URL", () => {
    assert.equal(clickIdOf({ note_attributes: [{ name: "gift", value: "yes" }, { name: "svc_sid", value: "sid.A" }], landing_site: "/?svc_sid=sid.B" }), "sid.A");
    assert.equal(clickIdOf({ note_attributes: [], landing_site: "/products/mug?utm_source=qr&svc_sid=sid.B" }), "sid.B");
    assert.equal(clickIdOf({ landing_site: "https://shop.example.com/?svc_sid=sid.C" }), "sid.C");
    assert.equal(clickIdOf({ note_attributes: [{ name: "svc_sid", value: 42 }], landing_site: null }), undefined);
    assert.equal(clickIdOf({ landing_site: `/?svc_sid=${"x".repeat(600)}` }), undefined);
    // A workspace that named its parameter otherwise (clickIdParam) is read under that name.
    assert.equal(clickIdOf({ note_attributes: [{ name: "svc_sid", value: "sid.A" }], landing_site: "/?ref=sid.R" }, "ref"), "sid.R");
  });

  it("turns decimal amounts into minor units by digits, per currency exponent", () => {
    assert.equal(toMinorUnits("369.97", "USD"), 36997);
    assert.equal(toMinorUnits("0.10", "EUR"), 10);
    assert.equal(toMinorUnits("1200", "JPY"), 1200);
    assert.equal(toMinorUnits("1200.00", "JPY"), 1200);
    assert.equal(toMinorUnits("1.234", "KWD"), 1234);
    // 0.1 + 0.2 as floats is 0.30000000000000004: digits never are.
    assert.equal(toMinorUnits("0.3", "USD"), 30);
    assert.throws(() => toMinorUnits("1.5", "JPY"), (e: unknown) => e instanceof AppError && /more decimals/.test(e.message));
    assert.throws(() => toMinorUnits("1", "ZZZ"), AppError);
  });

  it("reads a refund's amount from its lines when it has no transactions, and from its transactions when it has", () => {
    const refund = readRefund(parseShopifyJson(fixture("refunds-create.json")));
    assert.deepEqual(refund, { refundId: "890088186047892319", orderId: "820982911946154508", amount: 8999 });
    const withMoney = { id: 1, order_id: 2, transactions: [{ kind: "refund", status: "success", amount: "10.00", currency: "USD" }, { kind: "refund", status: "failure", amount: "99.00", currency: "USD" }], refund_line_items: [] };
    assert.equal(readRefund(withMoney).amount, 1000);
  });

  it("refuses a payload without the fields a sale needs, in words", () => {
    assert.throws(() => readOrder({ id: 1, currency: "usd", total_price: "1.00" }), (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED");
    assert.throws(() => readOrder({ id: 1, currency: "USD", total_price: "1e5" }), AppError);
    assert.throws(() => parseShopifyJson(Buffer.from("{")), (e: unknown) => e instanceof AppError && e.code === "MALFORMED_JSON");
  });

  it("verifies the base64 HMAC-SHA256 of the exact bytes, and nothing else", () => {
    const raw = fixture("orders-paid.json");
    const secret = "test-shopify-secret-0123456789";
    const good = createHmac("sha256", secret).update(raw).digest("base64");
    assert.equal(shopifySignatureMatches(secret, raw, good), true);
    // The same JSON re-serialised is other bytes: its signature is another.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString())));
    assert.equal(shopifySignatureMatches(secret, reserialised, good), false);
    assert.equal(shopifySignatureMatches("another-secret-0123456789", raw, good), false);
    assert.equal(shopifySignatureMatches(secret, raw, good.slice(0, -4)), false);
    assert.equal(shopifySignatureMatches(secret, raw, "not base64 at all"), false);
    assert.equal(shopifySignatureMatches(secret, raw, ""), false);
  });
});
