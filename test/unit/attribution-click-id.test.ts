// The signed click id (attribution/clickId.ts), its place on the destination (attribution/append.ts, after
// campaigns/utm.ts) and the currencies' minor units (attribution/currency.ts): docs/attribution.md.
import assert from "node:assert/strict";
import { appendClickId } from "../../functions/src/attribution/append";
import { parseClickKeys, signClickId, verifyClickId, type ClickFacts } from "../../functions/src/attribution/clickId";
import { currencyExponent } from "../../functions/src/attribution/currency";
import { applyUtm } from "../../functions/src/campaigns/utm";

const DAY = 86_400_000;
const at = new Date("2026-11-20T10:00:00Z");
const facts: ClickFacts = { scanId: "Qm8ZpT1xVb4sLr9NeHk2Qw", merchantId: "m_3f9a2c7d1e5b4a60", codeId: "Hk2Qm8ZpT1xVb4sLr9Ne", rule: { index: 2, variant: 1 }, person: true, at };
const keys = parseClickKeys("k2=new-secret-0123456789,k1=old-secret-0123456789@2026-11-01");
const expect = (over: Partial<{ merchantId: string; windowDays: number; now: Date }> = {}) => ({ merchantId: facts.merchantId, windowDays: 30, now: new Date(at.getTime() + DAY), ...over });

describe("attribution: the signed click id", () => {
  it("carries the scan, workspace, code, rule, arm, person and time, URL-safe and compact", () => {
    const token = signClickId(facts, keys);
    assert.match(token, /^[A-Za-z0-9_-]+\.k2\.[A-Za-z0-9_-]{22}$/);
    assert.ok(token.length < 140, `${token.length} characters`);
    assert.deepEqual(verifyClickId(token, expect(), keys), { facts });
    const destination = { ...facts, rule: { index: null } };
    assert.deepEqual(verifyClickId(signClickId(destination, keys), expect(), keys), { facts: destination });
  });

  it("refuses a forged, altered, other workspace's, expired or unreadable click id", () => {
    const token = signClickId(facts, keys);
    const [body, kid, mac] = token.split(".");
    const flipped = `${body.slice(0, 10)}${body[10] === "A" ? "B" : "A"}${body.slice(11)}`;
    assert.deepEqual(verifyClickId(`${flipped}.${kid}.${mac}`, expect(), keys), { refused: "forged" });
    assert.deepEqual(verifyClickId(`${body}.${kid}.${mac.slice(0, -2)}AA`, expect(), keys), { refused: "forged" });
    assert.deepEqual(verifyClickId(signClickId(facts, parseClickKeys("k2=someone-else")), expect(), keys), { refused: "forged" });
    assert.deepEqual(verifyClickId(`${body}.k9.${mac}`, expect(), keys), { refused: "forged" });
    assert.deepEqual(verifyClickId(token, expect({ merchantId: "m_other" }), keys), { refused: "other_workspace" });
    assert.deepEqual(verifyClickId(token, expect({ now: new Date(at.getTime() + 31 * DAY) }), keys), { refused: "expired" });
    assert.ok("facts" in verifyClickId(token, expect({ now: new Date(at.getTime() + 31 * DAY), windowDays: 60 }), keys), "a longer window accepts it");
    assert.deepEqual(verifyClickId(token, expect({ now: new Date(at.getTime() - DAY) }), keys), { refused: "forged" });
    for (const junk of ["", "abc", "a.b", "a.b.c.d", `${body}.${kid}.${mac}%`, "x".repeat(400)]) assert.deepEqual(verifyClickId(junk, expect(), keys), { refused: "malformed" }, junk);
  });

  it("rotates keys: the first unretired key signs, a retired one verifies for 90 days after its date, then not", () => {
    const oldOnly = parseClickKeys("k1=old-secret-0123456789");
    const old = signClickId(facts, oldOnly);
    assert.match(old, /\.k1\./);
    assert.match(signClickId(facts, keys), /\.k2\./, "the retired key never signs");
    assert.ok("facts" in verifyClickId(old, expect(), keys));
    const late = new Date(Date.parse("2026-11-01T00:00:00Z") + 91 * DAY);
    assert.deepEqual(verifyClickId(old, { merchantId: facts.merchantId, windowDays: 90, now: late }, keys), { refused: "retired" });
    assert.throws(() => signClickId(facts, parseClickKeys("k1=x@2026-01-01")), /no key that is not retired/);
    assert.deepEqual(parseClickKeys("9f86d081884c7d65"), [{ kid: "k0", secret: "9f86d081884c7d65" }], "the local stack's random value is one key");
    assert.throws(() => parseClickKeys("k1=a,bad key=b"), /not a key id=secret entry/);
  });
});

describe("attribution: the click id on the destination", () => {
  const id = "AQEAAAAA.k0.abc_-";
  it("goes last in the query, before the fragment, once", () => {
    assert.equal(appendClickId("https://shop.example/p", "svc_sid", id), `https://shop.example/p?svc_sid=${id}`);
    assert.equal(appendClickId("https://shop.example/p?a=1#top", "svc_sid", id), `https://shop.example/p?a=1&svc_sid=${id}#top`);
    assert.equal(appendClickId("https://shop.example/p#a?b=1", "svc_sid", id), `https://shop.example/p?svc_sid=${id}#a?b=1`);
    assert.equal(appendClickId("https://shop.example/p?", "svc_sid", id), `https://shop.example/p?svc_sid=${id}`);
    assert.equal(appendClickId("https://shop.example/p?a=1&", "ref", id), `https://shop.example/p?a=1&ref=${id}`);
  });

  it("keeps the destination's own parameters, their order and encoding, and its own svc_sid", () => {
    const url = "https://shop.example/s?q=red+shoes&x=%2F%20y&flag&z=%C3%A9";
    assert.equal(appendClickId(url, "svc_sid", id), `${url}&svc_sid=${id}`);
    assert.equal(appendClickId("https://shop.example/p?svc_sid=mine&a=1", "svc_sid", id), "https://shop.example/p?svc_sid=mine&a=1");
    assert.equal(appendClickId("https://shop.example/p?svc%5Fsid=mine", "svc_sid", id), "https://shop.example/p?svc%5Fsid=mine");
    assert.equal(appendClickId("https://shop.example/p?SVC_SID=x", "svc_sid", id), `https://shop.example/p?SVC_SID=x&svc_sid=${id}`, "a parameter of another name is the destination's");
    assert.throws(() => appendClickId(url, "bad name", id));
  });

  it("comes after the UTM template's parameters", () => {
    const withUtm = applyUtm("https://shop.example/p?utm_source=door&k=1#top", { source: "qr", medium: "print", campaign: "winter" });
    assert.equal(appendClickId(withUtm, "svc_sid", id), `https://shop.example/p?utm_source=door&k=1&utm_medium=print&utm_campaign=winter&svc_sid=${id}#top`);
  });
});

describe("attribution: ISO 4217 minor units", () => {
  it("knows the exponents and refuses what is not money", () => {
    const known: Record<string, number> = { EUR: 2, USD: 2, GBP: 2, JPY: 0, KRW: 0, ISK: 0, CLP: 0, VND: 0, KWD: 3, BHD: 3, TND: 3, OMR: 3, CLF: 4, UYW: 4, CHF: 2 };
    for (const [code, exponent] of Object.entries(known)) assert.equal(currencyExponent(code), exponent, code);
    for (const code of ["eur", "EU", "EURO", "XAU", "XXX", "XTS", "ZZZ", ""]) assert.equal(currencyExponent(code), undefined, code);
  });
});
