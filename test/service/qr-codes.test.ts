import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { decodePng, fetchPng } from "../helpers/qr";
import { BOOST_FRAMES, TEMPLATES } from "../../functions/src/qr/frames";

async function create(merchant: TestMerchant, args: Record<string, unknown>) {
  return toolResult(await callTool("svc.qr.create", args, merchant.apiKey));
}

describe("QR code tools", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("svc.qr.create makes a static draft code whose hosted PNG decodes to the destination", async () => {
    const code = await create(merchant, {
      title: "Front door",
      destinationUrl: "https://example.com/menu?x=1",
      campaign: "spring",
      tags: ["door", "door", "menu"],
    });
    assert.match(code.codeId, /^[A-Za-z0-9]{20}$/);
    assert.match(code.uniqueQRCodeID, /^[0-9A-Za-z]{12}$/);
    assert.equal(code.title, "Front door");
    assert.equal(code.dynamic, false);
    assert.equal(code.dynamicLink, null);
    assert.equal(code.status, "draft");
    assert.deepEqual(code.tags, ["door", "menu"]);
    assert.equal(code.campaign, "spring");
    assert.ok(!("imageToken" in code) && !("imagePath" in code));
    assert.ok(Date.parse(code.createdAt) > Date.now() - 60_000);
    assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, "https://example.com/menu?x=1");
  });

  it("dynamic codes encode {dynamic_link_url}/qr/<uniqueQRCodeID>", async () => {
    const code = await create(merchant, { title: "Tracked", destinationUrl: "https://example.com/a", dynamic: true });
    assert.equal(code.dynamic, true);
    assert.equal(code.dynamicLink, `${baseUrl()}/qr/${code.uniqueQRCodeID}`);
    assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, code.dynamicLink);
    const link = await firestore().collection("links").doc(code.uniqueQRCodeID).get();
    assert.equal(link.data()!.destinationUrl, "https://example.com/a");
    assert.equal(link.data()!.merchantId, merchant.merchantId);
  });

  it("soundSeal and scanBeepSound force dynamic; boostFrame overrides template", async () => {
    const sound = await create(merchant, { title: "s", destinationUrl: "https://example.com/s", template: "soundSeal", dynamic: false });
    assert.equal(sound.dynamic, true);
    assert.equal(sound.template, "soundSeal");
    const beep = await create(merchant, { title: "b", destinationUrl: "https://example.com/b", scanBeepSound: "chime" });
    assert.equal(beep.dynamic, true);
    assert.equal(beep.scanBeepSound, "chime");
    const boosted = await create(merchant, { title: "x", destinationUrl: "https://example.com/x", template: "hexSeal", boostFrame: "svc_x5_gold" });
    assert.equal(boosted.boostFrame, "svc_x5_gold");
    assert.equal(boosted.template, null);
    assert.equal(boosted.dynamic, false);
  });

  for (const frame of [...TEMPLATES, ...BOOST_FRAMES]) {
    it(`a ${frame} code's hosted image decodes to its exact payload`, async () => {
      const isBoost = (BOOST_FRAMES as readonly string[]).includes(frame);
      const code = await create(merchant, {
        title: frame,
        destinationUrl: `https://example.com/${frame}`,
        ...(isBoost ? { boostFrame: frame } : { template: frame }),
      });
      const png = await fetchPng(code.qrImageUrl);
      const decoded = decodePng(png);
      assert.equal(decoded.width, 1024);
      assert.equal(decoded.payload, code.dynamic ? code.dynamicLink : code.destinationUrl);
    });
  }

  it("rejects bad arguments with -32602 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: "t", destinationUrl: "ftp://example.com" }, "destinationUrl"],
      [{ title: "t", destinationUrl: "javascript:alert(1)" }, "destinationUrl"],
      [{ title: "t", destinationUrl: `https://example.com/${"a".repeat(2048)}` }, "destinationUrl"],
      [{ title: "", destinationUrl: "https://example.com" }, "title"],
      [{ title: "x".repeat(201), destinationUrl: "https://example.com" }, "title"],
      [{ destinationUrl: "https://example.com" }, "title"],
      [{ title: "t", destinationUrl: "https://example.com", template: "star" }, "template"],
      [{ title: "t", destinationUrl: "https://example.com", boostFrame: "svc_x9" }, "boostFrame"],
      [{ title: "t", destinationUrl: "https://example.com", scanBeepSound: "none" }, "scanBeepSound"],
      [{ title: "t", destinationUrl: "https://example.com", tags: Array(21).fill("a") }, "tags"],
      [{ title: "t", destinationUrl: "https://example.com", campaign: "c".repeat(101) }, "campaign"],
      [{ title: "t", destinationUrl: "https://example.com", merchantId: "other" }, ""],
    ];
    for (const [args, field] of cases) {
      const res = await callTool("svc.qr.create", args, merchant.apiKey);
      assert.equal(res.body.error?.code, -32602, JSON.stringify(args));
      assert.ok(res.body.error.data.issues.some((i: any) => i.path === field), `${field}: ${JSON.stringify(res.body.error.data.issues)}`);
    }
  });

  it("svc.qr.list returns the newest first, honours limit, and validates it", async () => {
    const m = await createMerchant();
    for (const n of [1, 2, 3]) await create(m, { title: `code ${n}`, destinationUrl: `https://example.com/${n}` });
    const all = toolResult(await callTool("svc.qr.list", {}, m.apiKey));
    assert.equal(all.count, 3);
    assert.deepEqual(all.codes.map((c: any) => c.title), ["code 3", "code 2", "code 1"]);
    const two = toolResult(await callTool("svc.qr.list", { limit: 2 }, m.apiKey));
    assert.deepEqual(two.codes.map((c: any) => c.title), ["code 3", "code 2"]);
    for (const limit of [0, 101, 1.5, "5"]) {
      assert.equal((await callTool("svc.qr.list", { limit }, m.apiKey)).body.error.code, -32602, String(limit));
    }
  });

  describe("svc.qr.update", () => {
    it("re-points a dynamic code: its link document carries the new destination at once", async () => {
      const code = await create(merchant, { title: "dyn", destinationUrl: "https://example.com/old", dynamic: true });
      const updated = toolResult(
        await callTool("svc.qr.update", { uniqueQRCodeID: code.uniqueQRCodeID, destinationUrl: "https://example.com/new" }, merchant.apiKey),
      );
      assert.equal(updated.destinationUrl, "https://example.com/new");
      assert.equal(updated.qrImageUrl, code.qrImageUrl);
      const link = await firestore().collection("links").doc(code.uniqueQRCodeID).get();
      assert.equal(link.data()!.destinationUrl, "https://example.com/new");
      assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, code.dynamicLink, "the printed code is unchanged");
    });

    it("re-renders a static code's image at the same qrImageUrl", async () => {
      const code = await create(merchant, { title: "static", destinationUrl: "https://example.com/before" });
      const updated = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: "https://example.com/after" }, merchant.apiKey));
      assert.equal(updated.qrImageUrl, code.qrImageUrl);
      assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, "https://example.com/after");
    });

    it("changes the title and removes a sound with none", async () => {
      const code = await create(merchant, { title: "beep", destinationUrl: "https://example.com/beep", scanBeepSound: "mission" });
      const updated = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, scanBeepSound: "none", title: "quiet" }, merchant.apiKey));
      assert.equal(updated.scanBeepSound, null);
      assert.equal(updated.title, "quiet");
      const listed = toolResult(await callTool("svc.qr.list", { limit: 100 }, merchant.apiKey)).codes.find((c: any) => c.codeId === code.codeId);
      assert.equal(listed.title, "quiet");
    });

    it("needs an identifier that matches, and something to change", async () => {
      const a = await create(merchant, { title: "a", destinationUrl: "https://example.com/a" });
      const b = await create(merchant, { title: "b", destinationUrl: "https://example.com/b" });
      const none = await callTool("svc.qr.update", { title: "x" }, merchant.apiKey);
      assert.match(none.body.error.message, /codeId or uniqueQRCodeID/);
      const mismatch = await callTool("svc.qr.update", { codeId: a.codeId, uniqueQRCodeID: b.uniqueQRCodeID, title: "x" }, merchant.apiKey);
      assert.match(mismatch.body.error.message, /different codes/);
      const nothing = await callTool("svc.qr.update", { codeId: a.codeId }, merchant.apiKey);
      assert.match(nothing.body.error.message, /Nothing to update/);
      const staticBeep = await callTool("svc.qr.update", { codeId: a.codeId, scanBeepSound: "chime" }, merchant.apiKey);
      assert.match(staticBeep.body.error.message, /dynamic/);
      const unknown = await callTool("svc.qr.update", { codeId: "nope", title: "x" }, merchant.apiKey);
      assert.equal(unknown.body.error.data.code, "NOT_FOUND");
    });
  });

  it("no merchant can list, update or find another merchant's codes", async () => {
    const a = await createMerchant();
    const b = await createMerchant();
    const code = await create(a, { title: "A's code", destinationUrl: "https://a.example.com", dynamic: true });
    const listB = toolResult(await callTool("svc.qr.list", {}, b.apiKey));
    assert.equal(listB.count, 0);
    for (const ident of [{ codeId: code.codeId }, { uniqueQRCodeID: code.uniqueQRCodeID }]) {
      const res = await callTool("svc.qr.update", { ...ident, destinationUrl: "https://evil.example.com" }, b.apiKey);
      assert.equal(res.body.error.data.code, "NOT_FOUND", JSON.stringify(ident));
    }
    const link = await firestore().collection("links").doc(code.uniqueQRCodeID).get();
    assert.equal(link.data()!.destinationUrl, "https://a.example.com/", "stored normalised");
  });

  it("write tools need qr:write, list needs merchant:read", async () => {
    const readOnly = await mintKey(merchant, ["merchant:read"]);
    const res = await callTool("svc.qr.create", { title: "t", destinationUrl: "https://example.com" }, readOnly);
    assert.equal(res.body.error.data.code, "INSUFFICIENT_SCOPE");
    assert.match(res.body.error.message, /qr:write/);
    const writeOnly = await mintKey(merchant, ["qr:write"]);
    assert.equal((await callTool("svc.qr.list", {}, writeOnly)).body.error.data.code, "INSUFFICIENT_SCOPE");
  });

  it("hosted images refuse a wrong or missing token", async () => {
    // Local image store here, the Storage emulator where it runs: both answer 403 to a bad token.
    const code = await create(merchant, { title: "img", destinationUrl: "https://example.com/img" });
    const expectedOrigin = process.env.TEST_STORAGE_EMULATOR ? `http://${process.env.FIREBASE_STORAGE_EMULATOR_HOST}` : appUrl();
    assert.ok(code.qrImageUrl.startsWith(expectedOrigin), code.qrImageUrl);
    const wrong = code.qrImageUrl.replace(/token=[^&]+/, "token=00000000-0000-0000-0000-000000000000");
    assert.equal((await fetch(wrong)).status, 403);
    assert.equal((await fetch(code.qrImageUrl.replace(/token=.*/, ""))).status, 403);
    assert.equal((await fetch(`${appUrl()}/img/qr/../../etc/passwd.png?token=x`)).status, 404);
  });
});
