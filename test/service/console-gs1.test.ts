// The console's GS1 routes (/api/console/gs1/...) through the front end, as the page "Product codes (GS1)"
// calls them with a signed-in member's ID token: register, replace links, list, one, the packaging QR code
// (plain and compressed, decoded), delete; refusals worded for people; one workspace cannot see or change
// another's items, nor claim its GTIN.
import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { consoleApi } from "../helpers/consoleApi";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { newGtin } from "../helpers/gs1";
import { decodePng } from "../helpers/qr";
import { posRead } from "../../functions/src/gs1/pos";
import { compressDigitalLink } from "../../functions/src/gs1/grammar";

const links = (base: string) => [
  { linkType: "gs1:pip", href: `${base}/product`, title: "Product page", hreflang: ["en"], isDefault: true },
  { linkType: "gs1:recipeInfo", href: `${base}/recipes`, title: "Recettes", hreflang: ["fr"] },
];

const qr = (m: TestMerchant, itemId: string, compressed?: boolean) =>
  fetch(`${appUrl()}/api/console/gs1/items/${itemId}/qr.png${compressed === undefined ? "" : `?compressed=${compressed}`}`, { headers: { Authorization: `Bearer ${m.idToken}` } });

describe("console API: GS1 product codes", function () {
  this.timeout(120_000);
  let owner: TestMerchant;
  let other: TestMerchant;
  let gtin: string;
  let itemId: string;

  before(async () => {
    [owner, other] = await Promise.all([createMerchant(), createMerchant()]);
    gtin = newGtin();
  });

  it("registers an item with links, replaces its links, lists it and shows it; REST sees the same item", async () => {
    const created = await consoleApi("/gs1/items", owner.idToken, { body: { key: "gtin", value: gtin, qualifiers: [{ ai: "10", value: "LOT7" }], description: "Oat biscuits", links: links("https://example.com/oats") } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.created, true);
    assert.match(created.body.uri, new RegExp(`/01/${gtin}/10/LOT7$`));
    assert.deepEqual(created.body.links.map((l: any) => [l.linkType, l.isDefault]), [["gs1:pip", true], ["gs1:recipeInfo", false]]);
    itemId = created.body.itemId;

    // Editing links is registering the same key again: 200, the links replaced.
    const edited = await consoleApi("/gs1/items", owner.idToken, {
      body: { key: "01", value: gtin, qualifiers: [{ ai: "10", value: "LOT7" }], description: "Oat biscuits", links: [...links("https://example.com/oats"), { linkType: "gs1:promotion", href: "https://example.com/oats/offer", title: "Offer", isDefault: false }] },
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.created, false);
    assert.equal(edited.body.itemId, itemId);
    assert.equal(edited.body.links.length, 3);

    const list = await consoleApi("/gs1/items", owner.idToken);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((i: any) => i.itemId), [itemId]);
    assert.equal(list.body.nextCursor, null);
    const one = await consoleApi(`/gs1/items/${itemId}`, owner.idToken);
    assert.equal(one.status, 200);
    assert.equal(one.body.description, "Oat biscuits");
    const rest = await fetch(`${appUrl()}/api/gs1/items/${itemId}`, { headers: { Authorization: `Bearer ${owner.apiKey}` } });
    assert.equal(rest.status, 200);
    assert.deepEqual(((await rest.json()) as any).links, one.body.links);
  });

  it("answers the packaging QR code, plain and compressed, that decodes to the item's URI and GTIN, with its smallest print size", async () => {
    const { body: item } = await consoleApi(`/gs1/items/${itemId}`, owner.idToken);
    const sides: number[] = [];
    for (const compressed of [undefined, false, true]) {
      const res = await qr(owner, itemId, compressed);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.match(res.headers.get("cache-control") ?? "", /^private/, "never cached by a shared cache");
      const text = res.headers.get("x-gs1-encoded-uri")!;
      assert.equal(text, compressed ? compressDigitalLink(item.uri) : item.uri);
      const side = Number(res.headers.get("x-print-min-side-mm"));
      assert.ok(side >= 10 && side <= 60, `${side} mm`);
      sides.push(side);
      assert.equal(decodePng(Buffer.from(await res.arrayBuffer())).payload, text);
      assert.deepEqual(posRead(text), { gtin, lot: "LOT7" });
    }
    assert.ok(sides[2] <= sides[1], `the compressed code is no larger (${sides.join(", ")} mm)`);
    const bad = await fetch(`${appUrl()}/api/console/gs1/items/${itemId}/qr.png?compressed=yes`, { headers: { Authorization: `Bearer ${owner.idToken}` } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).message, /compressed/, "the refusal names the parameter");
  });

  it("refuses bad items with a message a person can act on, and writes nothing", async () => {
    const wrongDigit = gtin.slice(0, 13) + String((Number(gtin[13]) + 1) % 10);
    const refused = await consoleApi("/gs1/items", owner.idToken, { body: { value: wrongDigit, links: links("https://example.com/x") } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, "VALIDATION_FAILED");
    assert.match(refused.body.message, new RegExp(`GTIN ${wrongDigit} has a wrong check digit: ${wrongDigit[13]}, expected ${gtin[13]}`));
    const twoDefaults = await consoleApi("/gs1/items", owner.idToken, { body: { value: newGtin(), links: links("https://example.com/y").map((l) => ({ ...l, isDefault: true })) } });
    assert.equal(twoDefaults.status, 400);
    assert.match(twoDefaults.body.message, /Exactly one link must have isDefault: true \(2 do\)/);
    const badType = await consoleApi("/gs1/items", owner.idToken, { body: { value: newGtin(), links: [{ linkType: "gs1:nope", href: "https://example.com", title: "x", isDefault: true }] } });
    assert.equal(badType.status, 400);
    assert.match(badType.body.message, /links\.0\.linkType/);
    const list = await consoleApi("/gs1/items", owner.idToken);
    assert.equal(list.body.items.length, 1, "nothing written by the refusals");
    assert.equal((await consoleApi("/gs1/items", undefined)).status, 401);
    assert.equal((await consoleApi("/gs1/items/not-an-id", owner.idToken)).status, 400);
  });

  it("keeps each workspace's items its own: another workspace cannot read, draw, change, delete or claim them", async () => {
    assert.equal((await consoleApi(`/gs1/items/${itemId}`, other.idToken)).status, 404);
    assert.equal((await qr(other, itemId)).status, 404);
    assert.deepEqual((await consoleApi("/gs1/items", other.idToken)).body.items, []);
    const deleted = await consoleApi(`/gs1/items/${itemId}`, other.idToken, { method: "DELETE" });
    assert.equal(deleted.status, 404);
    const claim = await consoleApi("/gs1/items", other.idToken, { body: { value: gtin, qualifiers: [{ ai: "10", value: "LOT7" }], links: [{ linkType: "gs1:pip", href: "https://evil.example/", title: "Mine now", isDefault: true }] } });
    assert.equal(claim.status, 409);
    assert.equal(claim.body.code, "CONFLICT");
    assert.match(claim.body.message, new RegExp(`GTIN ${gtin} is already registered by another workspace`));
    const still = await consoleApi(`/gs1/items/${itemId}`, owner.idToken);
    assert.equal(still.status, 200);
    assert.equal(still.body.links.length, 3, "the owner's links are untouched");
    assert.ok(still.body.links.every((l: any) => l.href.startsWith("https://example.com/")));
  });

  it("deletes an item: gone from the list and from REST", async () => {
    const deleted = await consoleApi(`/gs1/items/${itemId}`, owner.idToken, { method: "DELETE" });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { itemId, deleted: true });
    assert.equal((await consoleApi(`/gs1/items/${itemId}`, owner.idToken)).status, 404);
    assert.deepEqual((await consoleApi("/gs1/items", owner.idToken)).body.items, []);
    assert.equal((await fetch(`${appUrl()}/api/gs1/items/${itemId}`, { headers: { Authorization: `Bearer ${owner.apiKey}` } })).status, 404);
  });
});
