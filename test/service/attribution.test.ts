// From scan to sale through the local front (docs/attribution.md): a tracked code's 302 carries a signed
// click id; leads, sales and refunds reported against it are counted once by the scan consumer on the
// code, rule and A/B arm that answered; forged and other workspaces' click ids write nothing; a till
// redemption of an in-store discount code counts once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { pullScans, subscribeToScans } from "../helpers/pubsub";
import { readConversionFigures } from "../../functions/src/store/conversions";
import { signClickId, verifyClickId, type ClickFacts } from "../../functions/src/attribution/clickId";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

async function scan(id: string, client: TestClient, userAgent = PHONE): Promise<{ status: number; location: string }> {
  const res = await client.fetch(`${baseUrl()}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": userAgent } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location") ?? "" };
}

async function post(key: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl()}${path}`, { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

/** The local stack's click id keys, for the test to sign and verify as the functions do. */
const useStackKeys = () => (process.env.CLICK_ID_KEYS ??= /^CLICK_ID_KEYS=(.+)$/m.exec(readFileSync("functions/.secret.local", "utf8"))![1]);

/** The password form posted from the code's own page; the URL the right password's page opens (its meta refresh). */
async function passwordPass(id: string, password: string, client: TestClient, userAgent = PHONE): Promise<string> {
  const res = await client.fetch(`${baseUrl()}/qr/${id}`, {
    method: "POST",
    redirect: "manual",
    headers: { "User-Agent": userAgent, "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(baseUrl()).origin },
    body: new URLSearchParams({ password }).toString(),
  });
  const body = await res.text();
  assert.equal(res.status, 200, body);
  return /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(body)![1].replaceAll("&amp;", "&");
}

const clickIdOf = (location: string) => new URL(location).searchParams.get("svc_sid");
const today = () => new Date().toISOString().slice(0, 10);
const around = () => ({ from: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10), to: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) });
const conversionDocs = async (merchant: TestMerchant) => (await firestore().collection("workspaces").doc(merchant.merchantId).collection("conversions").get()).size;

describe("attribution: scan -> lead -> sale through the local front", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  let other: TestMerchant;
  before(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
  });

  it("counts 1 / 1 / 1 with exact minor units on the code, rule and arm; repeats are one; a refund reverses", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Poster", destinationUrl: "https://shop.example/p?q=red+shoes#top", dynamic: true }, merchant.apiKey));
    const split = [
      { url: "https://shop.example/a?x=%2F", weight: 50 },
      { url: "https://shop.example/b", weight: 50 },
    ];
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { trackConversions: true, rules: [{ name: "Phones", when: { device: ["mobile"] }, then: { type: "split", variants: split } }] } }, merchant.apiKey));

    // A machine gets the plain destination; a person the arm's URL with the click id last.
    assert.doesNotMatch((await scan(code.uniqueQRCodeID, newClient(), CRAWLER)).location, /svc_sid/);
    const scanned = await scan(code.uniqueQRCodeID, newClient());
    assert.equal(scanned.status, 302);
    const clickId = clickIdOf(scanned.location)!;
    assert.ok(clickId, scanned.location);
    const variant = scanned.location.startsWith("https://shop.example/a?x=%2F&svc_sid=") ? 0 : 1;
    assert.ok(variant === 0 || scanned.location.startsWith("https://shop.example/b?svc_sid="), scanned.location);

    const lead = await post(merchant.apiKey, "/api/track/lead", { clickId, customerExternalId: "cust-1", eventName: "sign_up" });
    assert.equal(lead.status, 202, JSON.stringify(lead.body));
    assert.deepEqual([lead.body.duplicate, lead.body.attributed], [false, true]);
    // The customer's later sale follows their lead; a repeat (same invoice, or same Idempotency-Key) is one sale.
    const sale = await post(merchant.apiKey, "/api/track/sale", { customerExternalId: "cust-1", amount: 1999, currency: "EUR", invoiceId: "INV-1" }, { "Idempotency-Key": "k-1" });
    assert.equal(sale.status, 202, JSON.stringify(sale.body));
    assert.equal(sale.body.duplicate, false);
    const again = await post(merchant.apiKey, "/api/track/sale", { customerExternalId: "cust-1", amount: 1999, currency: "EUR", invoiceId: "INV-1" });
    const sameKey = await post(merchant.apiKey, "/api/track/sale", { clickId, amount: 5, currency: "EUR", invoiceId: "INV-other" }, { "Idempotency-Key": "k-1" });
    assert.deepEqual([again.status, again.body.duplicate, again.body.saleId], [202, true, sale.body.saleId]);
    assert.deepEqual([sameKey.status, sameKey.body.duplicate, sameKey.body.saleId], [202, true, sale.body.saleId]);
    const yen = await post(merchant.apiKey, "/api/track/sale", { clickId, amount: 500, currency: "JPY", invoiceId: "INV-2" });
    assert.equal(yen.status, 202);
    const stored = await firestore().collection("workspaces").doc(merchant.merchantId).collection("customers").get();
    assert.equal(JSON.stringify(stored.docs.map((d) => [d.id, d.data()])).includes("cust-1"), false, "the customer id is stored hashed");

    const arm = `0.${variant}`;
    const figures = await eventually(
      () => readConversionFigures(merchant.merchantId, { codeId: code.codeId, ...around() }),
      (f) => f.total.sales === 2 && f.total.scans === 1,
      { what: "the conversions counted" },
    );
    assert.deepEqual({ ...figures.total, people: undefined }, { scans: 1, people: undefined, leads: 1, sales: 2, revenue: { EUR: 1999, JPY: 500 } });
    assert.deepEqual(figures.byArm, [{ arm, scans: 1, people: 1, leads: 1, sales: 2, revenue: { EUR: 1999, JPY: 500 } }]);
    assert.deepEqual(figures.byRule, [{ ruleId: "0", scans: 1, people: 1, leads: 1, sales: 2, revenue: { EUR: 1999, JPY: 500 } }]);
    assert.equal(figures.byDay.length, 1);
    assert.equal(figures.byDay[0].day, today());
    const workspace = await readConversionFigures(merchant.merchantId, around());
    assert.deepEqual([workspace.total.leads, workspace.total.sales, workspace.total.revenue], [1, 2, { EUR: 1999, JPY: 500 }]);

    // A partial refund, then the rest: revenue goes to 0 and the sale leaves the count; a repeat changes nothing.
    const partial = await post(merchant.apiKey, "/api/track/reversal", { invoiceId: "INV-1", amount: 999, reason: "refund", reversalId: "RF-1" });
    assert.equal(partial.status, 202, JSON.stringify(partial.body));
    const tooMuch = await post(merchant.apiKey, "/api/track/reversal", { invoiceId: "INV-1", amount: 1001, reason: "refund", reversalId: "RF-2" });
    assert.equal(tooMuch.status, 400);
    const rest = await post(merchant.apiKey, "/api/track/reversal", { invoiceId: "INV-1", reason: "cancel", reversalId: "RF-3" });
    const restAgain = await post(merchant.apiKey, "/api/track/reversal", { invoiceId: "INV-1", reason: "cancel", reversalId: "RF-3" });
    assert.deepEqual([rest.status, restAgain.status, restAgain.body.duplicate], [202, 202, true]);
    const reversed = await eventually(
      () => readConversionFigures(merchant.merchantId, { codeId: code.codeId, ...around() }),
      (f) => f.total.sales === 1 && f.total.revenue.EUR === 0,
      { what: "the reversals counted" },
    );
    assert.deepEqual(reversed.byArm[0].revenue, { EUR: 0, JPY: 500 });
    const none = await post(merchant.apiKey, "/api/track/reversal", { invoiceId: "INV-none", reason: "refund", reversalId: "RF-9" });
    assert.equal(none.status, 404);

    // Forged, altered, other workspace's: refused with a sentence, nothing written.
    const before = await conversionDocs(merchant);
    const forged = `${clickId.slice(0, -3)}${clickId.endsWith("AAA") ? "BBB" : "AAA"}`;
    const refusals = [
      await post(merchant.apiKey, "/api/track/sale", { clickId: forged, amount: 100, currency: "EUR", invoiceId: "INV-forged" }),
      await post(merchant.apiKey, "/api/track/lead", { clickId: "not-a-click-id", eventName: "sign_up" }),
      await post(merchant.apiKey, "/api/track/sale", { clickId, amount: 100, currency: "XAU", invoiceId: "INV-gold" }),
    ];
    for (const r of refusals) assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(refusals[0].body.message, /signature/);
    assert.equal(await conversionDocs(merchant), before);
    const stolen = await post(other.apiKey, "/api/track/sale", { clickId, amount: 100, currency: "EUR", invoiceId: "INV-x" });
    assert.equal(stolen.status, 400);
    assert.match(stolen.body.message, /another workspace/);
    assert.equal(await conversionDocs(other), 0);

    // A key without the scope is refused.
    const readOnly = await mintKey(merchant, ["merchant:read", "qr:write"]);
    assert.equal((await post(readOnly, "/api/track/sale", { clickId, amount: 1, currency: "EUR", invoiceId: "INV-3" })).status, 403);
  });

  it("counts a sale whose scan is not counted yet on its code, rule and arm, and the scan joins it once counted", async () => {
    useStackKeys();
    const code = toolResult(await callTool("svc.qr.create", { title: "Counter", destinationUrl: "https://shop.example/c", dynamic: true }, merchant.apiKey));
    assert.equal((await post(merchant.apiKey, `/api/track/codes/${code.codeId}`, { trackConversions: true })).status, 200);
    // The click id of a scan the consumer has not counted (made as the redirect makes it).
    const early = signClickId({ scanId: "not-yet-counted-scan-id", merchantId: merchant.merchantId, codeId: code.codeId, rule: { index: null }, person: true, at: new Date() });
    assert.equal((await post(merchant.apiKey, "/api/track/sale", { clickId: early, amount: 1234, currency: "KWD", invoiceId: "EARLY-1" })).status, 202);
    const first = await eventually(() => readConversionFigures(merchant.merchantId, { codeId: code.codeId, ...around() }), (f) => f.total.sales === 1);
    assert.deepEqual(first.total, { scans: 0, people: 0, leads: 0, sales: 1, revenue: { KWD: 1234 } });
    assert.deepEqual(first.byRule.map((r) => [r.ruleId, r.sales]), [[null, 1]]);
    const scanned = await scan(code.uniqueQRCodeID, newClient());
    assert.match(scanned.location, /^https:\/\/shop\.example\/c\?svc_sid=/);
    const after = await eventually(() => readConversionFigures(merchant.merchantId, { codeId: code.codeId, ...around() }), (f) => f.total.scans === 1);
    assert.deepEqual(after.total, { scans: 1, people: 1, leads: 0, sales: 1, revenue: { KWD: 1234 } });
    // The code's own "off" wins over the workspace's "on".
    assert.equal((await post(merchant.apiKey, "/api/track/settings", { trackConversions: true, windowDays: 14 })).body.windowDays, 14);
    assert.equal((await post(merchant.apiKey, `/api/track/codes/${code.codeId}`, { trackConversions: false })).status, 200);
    assert.equal((await scan(code.uniqueQRCodeID, newClient())).location, "https://shop.example/c");
  });

  it("a password code's right password opens its page with the click id, once, after the UTM parameters; none for machines or when tracking is off", async () => {
    useStackKeys();
    const password = "open sesame please";
    const utm = await fetch(`${appUrl()}/api/utm-templates`, { method: "POST", headers: { Authorization: `Bearer ${merchant.apiKey}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "door", source: "door", medium: "print" }) });
    assert.ok(utm.ok, await utm.text());
    const code = toolResult(await callTool("svc.qr.create", { title: "Members", destinationUrl: "https://shop.example/members", dynamic: true }, merchant.apiKey));
    const rules = [
      { name: "Phones", when: { device: ["mobile"] }, then: { type: "password", url: "https://shop.example/vip?a=1+2&flag#room" } },
      { when: {}, then: { type: "password" } },
    ];
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { trackConversions: true, utmTemplate: "door", rules, password } }, merchant.apiKey));

    const client = newClient();
    const page = await client.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
    assert.equal(page.status, 200, "the page asks for the password");
    await page.arrayBuffer();
    const opened = await passwordPass(code.uniqueQRCodeID, password, client);
    // The destination's own parameters and fragment as written, the UTM parameters, then the click id once.
    const clickId = /^https:\/\/shop\.example\/vip\?a=1\+2&flag&utm_source=door&utm_medium=print&svc_sid=([A-Za-z0-9._-]+)#room$/.exec(opened)?.[1];
    assert.ok(clickId, opened);
    assert.equal(opened.split("svc_sid=").length, 2);
    const verdict = verifyClickId(clickId, { merchantId: merchant.merchantId, windowDays: 30, now: new Date() });
    assert.ok("facts" in verdict, JSON.stringify(verdict));
    assert.deepEqual([verdict.facts.codeId, verdict.facts.merchantId, verdict.facts.rule, verdict.facts.person], [code.codeId, merchant.merchantId, { index: 0 }, true]);
    assert.deepEqual(verifyClickId(clickId, { merchantId: other.merchantId, windowDays: 30, now: new Date() }), { refused: "other_workspace" });
    // The tracking API takes it as any click id of that code.
    assert.equal((await post(merchant.apiKey, "/api/track/lead", { clickId, eventName: "member" })).body.attributed, true);

    // A machine that has the password gets the page's URL without a click id.
    assert.doesNotMatch(await passwordPass(code.uniqueQRCodeID, password, newClient(), CRAWLER), /svc_sid/);
    // Tracking off for the code: the same pass-through, no click id.
    assert.equal((await post(merchant.apiKey, `/api/track/codes/${code.codeId}`, { trackConversions: false })).status, 200);
    assert.equal(await passwordPass(code.uniqueQRCodeID, password, newClient()), "https://shop.example/vip?a=1+2&flag&utm_source=door&utm_medium=print#room");
  });

  it("a capped code's click id names the scan id, rule and arm of the scan's event in the stream", async () => {
    useStackKeys();
    const subscription = await subscribeToScans();
    const code = toolResult(await callTool("svc.qr.create", { title: "Capped", destinationUrl: "https://shop.example/capped", dynamic: true }, merchant.apiKey));
    const split = [
      { url: "https://shop.example/capped-a", weight: 50 },
      { url: "https://shop.example/capped-b", weight: 50 },
    ];
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { trackConversions: true, humanScanCap: 5, rules: [{ when: {}, then: { type: "split", variants: split } }] } }, merchant.apiKey));
    // Two people: the first scan reaches an instance that has not read the code yet, the second one that has.
    const facts: ClickFacts[] = [];
    for (const client of [newClient(), newClient()]) {
      const scanned = await scan(code.uniqueQRCodeID, client);
      assert.match(scanned.location, /^https:\/\/shop\.example\/capped-[ab]\?svc_sid=/);
      const verdict = verifyClickId(clickIdOf(scanned.location)!, { merchantId: merchant.merchantId, windowDays: 30, now: new Date() });
      assert.ok("facts" in verdict, JSON.stringify(verdict));
      facts.push(verdict.facts);
    }
    const scanIds = new Set(facts.map((f) => f.scanId));
    assert.equal(scanIds.size, 2);
    const events = await pullScans(subscription, 2, (m) => m.event.unique_qr_code_id === code.uniqueQRCodeID && scanIds.has(m.event.scan_id));
    for (const f of facts) {
      const event = events.find((m) => m.event.scan_id === f.scanId)?.event;
      assert.ok(event, `no stream event has the click id's scan id ${f.scanId}`);
      // The redirect's own copy (a capped code's scan is counted there, not by the consumer).
      assert.deepEqual([event.code_id, event.kind, event.served_from, event.rule_index, event.variant], [code.codeId, "person", "live", f.rule.index, f.rule.variant ?? null]);
    }
  });

  it("hands each person one in-store discount code, and the till's redemption counts once", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Till", destinationUrl: "https://shop.example/till", dynamic: true }, merchant.apiKey));
    const pool = await post(merchant.apiKey, `/api/track/discounts/${code.codeId}`, { codes: ["save-10a", "SAVE-10B"] });
    assert.equal(pool.status, 200, JSON.stringify(pool.body));
    assert.deepEqual(pool.body.codes, ["SAVE-10A", "SAVE-10B"]);
    const client = newClient();
    const scanned = await scan(code.uniqueQRCodeID, client);
    assert.match(scanned.location, new RegExp(`/qr/${code.uniqueQRCodeID}/discount\\?svc_sid=`));
    const pageOf = async (location: string) => {
      const res = await client.fetch(`${baseUrl()}${new URL(location).pathname}${new URL(location).search}`, { headers: { "User-Agent": PHONE } });
      return { status: res.status, html: await res.text() };
    };
    const page = await pageOf(scanned.location);
    assert.equal(page.status, 200);
    const shown = /class="code">([A-Z0-9-]+)</.exec(page.html)![1];
    assert.equal((await pageOf(scanned.location)).html.includes(shown), true, "a reload shows the same code");
    assert.equal((await pageOf(scanned.location.replace(/svc_sid=[^&]+/, "svc_sid=forged"))).status, 404);

    const unshown = await post(merchant.apiKey, "/api/track/redeem", { discountCode: shown === "SAVE-10A" ? "SAVE-10B" : "SAVE-10A", amount: 700, currency: "EUR", invoiceId: "TILL-0" });
    assert.equal(unshown.status, 202, "a code never handed out is a sale of the workspace only");
    const redeemed = await post(merchant.apiKey, "/api/track/redeem", { discountCode: shown.toLowerCase(), amount: 4500, currency: "EUR", invoiceId: "TILL-1" });
    assert.equal(redeemed.status, 202, JSON.stringify(redeemed.body));
    const retried = await post(merchant.apiKey, "/api/track/redeem", { discountCode: shown, amount: 4500, currency: "EUR", invoiceId: "TILL-1" });
    assert.deepEqual([retried.status, retried.body.duplicate], [202, true]);
    assert.equal((await post(merchant.apiKey, "/api/track/redeem", { discountCode: shown, amount: 4500, currency: "EUR", invoiceId: "TILL-2" })).status, 409);
    const figures = await eventually(() => readConversionFigures(merchant.merchantId, { codeId: code.codeId, ...around() }), (f) => f.total.sales === 1 && f.total.scans === 1);
    assert.deepEqual(figures.total.revenue, { EUR: 4500 });
  });
});
