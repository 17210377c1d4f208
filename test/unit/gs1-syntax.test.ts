// GS1 Digital Link syntax (gs1/keys.ts), checked against GS1's grammar through digital-link.js, and the
// resolver's choice of link and its linkset (gs1/match.ts). Checklist: docs/gs1-resolver.md.
import assert from "node:assert/strict";
import {
  checkDigitOf,
  checkKeyValue,
  checkQualifiers,
  Gs1SyntaxError,
  levelPathsOf,
  parseDigitalLinkPath,
  pathOf,
  primaryKeyDef,
} from "../../functions/src/gs1/keys";
import { matchesGs1Grammar } from "../../functions/src/gs1/grammar";
import { chooseLink, linksetOf, weightedList } from "../../functions/src/gs1/match";
import { linkTypeTermOf } from "../../functions/src/gs1/linkTypes";
import { Gs1LinkInputSchema } from "../../functions/src/gs1/model";
import { resolverDescription } from "../../functions/src/gs1/resolver";
import type { StoredGs1Item, StoredGs1Link } from "../../functions/src/store/gs1Items";
import { prng, int } from "../helpers/fuzz";
import { assertValidLinkset, assertValidResolverDescription, isValidLinkset } from "../helpers/gs1";

const gtin = primaryKeyDef("01")!;

function withCheck(body: string): string {
  return body + String(checkDigitOf(body));
}

describe("GS1 keys: check digits and paths", () => {
  it("computes GS1 mod-10 check digits (GTIN, GLN, SSCC examples from GS1)", () => {
    assert.equal(checkDigitOf("0950600013435"), 2); // 09506000134352
    assert.equal(checkDigitOf("950600013435"), 2); // GTIN-13 9506000134352
    assert.equal(checkDigitOf("10614141234567890"), 8); // SSCC 106141412345678908
    assert.equal(checkDigitOf("950600001000"), 7); // GLN 9506000010007
  });

  it("pads GTIN-8, -12 and -13 to 14 digits and refuses a wrong check digit with the expected one", () => {
    assert.equal(checkKeyValue(gtin, "9506000134352"), "09506000134352");
    assert.equal(checkKeyValue(gtin, "96385074"), "00000096385074");
    assert.throws(() => checkKeyValue(gtin, "09506000134353"), (e: Error) => e instanceof Gs1SyntaxError && /wrong check digit: 3, expected 2/.test(e.message));
    assert.throws(() => checkKeyValue(gtin, "0950600013435"), /wrong check digit: 5, expected 9/); // a GTIN-13 whose check digit is wrong
    assert.throws(() => checkKeyValue(gtin, "12345"), /8, 12, 13 or 14 digits/);
    assert.throws(() => checkKeyValue(gtin, "0950600013435A"), /8, 12, 13 or 14 digits/);
  });

  it("checks GLN, SSCC and GRAI check digits", () => {
    assert.equal(checkKeyValue(primaryKeyDef("gln")!, "9506000010007"), "9506000010007");
    assert.throws(() => checkKeyValue(primaryKeyDef("414")!, "9506000010004"), /expected 7/);
    assert.equal(checkKeyValue(primaryKeyDef("sscc")!, "106141412345678908"), "106141412345678908");
    assert.throws(() => checkKeyValue(primaryKeyDef("00")!, "106141412345678909"), /expected 8/);
    assert.equal(checkKeyValue(primaryKeyDef("8003")!, "09506000134352ABC"), "09506000134352ABC");
  });

  it("checks qualifiers: known for the key, in the standard's order, values of the right set", () => {
    assert.deepEqual(checkQualifiers(gtin, [{ ai: "22", value: "v1" }, { ai: "10", value: "LOT-1" }, { ai: "21", value: "S/1" }]).length, 3);
    assert.throws(() => checkQualifiers(gtin, [{ ai: "21", value: "S" }, { ai: "10", value: "L" }]), /order 22, 10, 21/);
    assert.throws(() => checkQualifiers(gtin, [{ ai: "254", value: "x" }]), /not a key qualifier of GTIN/);
    assert.throws(() => checkQualifiers(gtin, [{ ai: "10", value: "x".repeat(21) }]), /1 to 20 characters/);
    assert.throws(() => checkQualifiers(gtin, [{ ai: "10", value: "é" }]), /set 82/);
  });

  it("parses paths, tolerates one trailing slash and refuses malformed ones with a reason", () => {
    const p = parseDigitalLinkPath("/01/9506000134352/10/ABC%2F1/21/xyz/");
    assert.equal(p.value, "09506000134352");
    assert.deepEqual(p.qualifiers, [{ ai: "10", value: "ABC/1" }, { ai: "21", value: "xyz" }]);
    assert.equal(p.trailingSlash, true);
    assert.equal(pathOf("01", p.value, p.qualifiers), "/01/09506000134352/10/ABC%2F1/21/xyz");
    assert.deepEqual(levelPathsOf("01", p.value, p.qualifiers), ["/01/09506000134352/10/ABC%2F1/21/xyz", "/01/09506000134352/10/ABC%2F1", "/01/09506000134352"]);
    for (const [path, reason] of [
      ["/01", /value is missing/],
      ["/01/09506000134352/10", /value is missing/],
      ["/01//10/x", /empty segment/],
      ["/99/123", /not a GS1 primary key/],
      ["/gtin/09506000134352", /not a GS1 primary key/],
      ["/01/09506000134353", /check digit/],
      ["/01/09506000134352/10/%E0%A4%A", /percent-encoding/],
    ] as const) {
      assert.throws(() => parseDigitalLinkPath(path), (e: Error) => e instanceof Gs1SyntaxError && reason.test(e.message), path);
    }
  });

  it("agrees with GS1's grammar (digital-link.js) on 300 generated GTIN paths, valid and with a wrong check digit", () => {
    const rand = prng(37);
    for (let i = 0; i < 300; i++) {
      const body = Array.from({ length: 13 }, () => String(int(rand, 10))).join("");
      const good = withCheck(body);
      const qualifiers = [
        ...(int(rand, 2) ? [{ ai: "10", value: `L${int(rand, 100000)}` }] : []),
        ...(int(rand, 2) ? [{ ai: "21", value: `S${int(rand, 100000)}` }] : []),
      ];
      const path = pathOf("01", good, qualifiers);
      assert.ok(matchesGs1Grammar(`https://id.example.com${path}`), path);
      assert.equal(parseDigitalLinkPath(path).value, good);
      const bad = body + String((checkDigitOf(body) + 1 + int(rand, 9)) % 10);
      const badPath = pathOf("01", bad, qualifiers);
      assert.equal(matchesGs1Grammar(`https://id.example.com${badPath}`), false, badPath);
      assert.throws(() => parseDigitalLinkPath(badPath), Gs1SyntaxError);
    }
  });

  it("accepts link types as CURIEs or vocabulary URIs, and nothing else", () => {
    assert.equal(linkTypeTermOf("gs1:pip"), "pip");
    assert.equal(linkTypeTermOf("https://gs1.org/voc/recipeInfo"), "recipeInfo");
    assert.equal(linkTypeTermOf("https://ref.gs1.org/voc/promotion"), "promotion");
    assert.equal(linkTypeTermOf("gs1:nonsense"), undefined);
    assert.equal(linkTypeTermOf("pip"), undefined);
  });
});

function item(path: string, links: Array<Partial<StoredGs1Link> & Pick<StoredGs1Link, "linkType" | "href">>, description: string | null = null): StoredGs1Item {
  return {
    itemId: path,
    merchantId: "m",
    host: "id.example.com",
    ai: "01",
    value: "09506000134352",
    // The qualifiers the path names: /01/X/10/LOT1 has [{ ai: "10", value: "LOT1" }].
    qualifiers: path.split("/").slice(3).flatMap((part, i, parts) => (i % 2 === 0 ? [{ ai: part, value: parts[i + 1] }] : [])),
    path,
    description,
    links: links.map((l) => ({ title: l.href, default: false, ...l })),
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

describe("GS1 resolver: choosing a link and the linkset", () => {
  const gtinLevel = item("/01/09506000134352", [
    { linkType: "gs1:pip", href: "https://e.com/en", hreflang: ["en"], type: "text/html", default: true },
    { linkType: "gs1:pip", href: "https://e.com/fr", hreflang: ["fr"], type: "text/html" },
    { linkType: "gs1:pip", href: "https://e.com/de", hreflang: ["de"] },
    { linkType: "gs1:recipeInfo", href: "https://e.com/recipes-en", hreflang: ["en"] },
    { linkType: "gs1:recipeInfo", href: "https://e.com/recipes-fr", hreflang: ["fr-CA"] },
    { linkType: "gs1:promotion", href: "https://e.com/promo-gb", context: ["GB"] },
    { linkType: "gs1:promotion", href: "https://e.com/promo-us", context: ["US"] },
  ], "Risotto rice");
  const lotLevel = item("/01/09506000134352/10/LOT1", [{ linkType: "gs1:recallStatus", href: "https://e.com/recall", default: true }]);

  const href = (outcome: ReturnType<typeof chooseLink>) => (outcome.kind === "redirect" ? outcome.link.href : outcome.kind);

  it("reads weighted headers best first", () => {
    assert.deepEqual(weightedList("fr;q=0.5, de, en;q=0.8, it;q=0").map((w) => w.tag), ["de", "en", "fr"]);
  });

  it("redirects to the default link unless the language matches a link of the same type better", () => {
    assert.equal(href(chooseLink([gtinLevel], {})), "https://e.com/en");
    assert.equal(href(chooseLink([gtinLevel], { acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.5" })), "https://e.com/fr");
    assert.equal(href(chooseLink([gtinLevel], { acceptLanguage: "de" })), "https://e.com/de");
    assert.equal(href(chooseLink([gtinLevel], { acceptLanguage: "ja" })), "https://e.com/en");
  });

  it("follows the requested link type, its language and context; a missing type is noSuchLinkType", () => {
    assert.equal(href(chooseLink([gtinLevel], { linkType: "recipeInfo" })), "https://e.com/recipes-en");
    assert.equal(href(chooseLink([gtinLevel], { linkType: "recipeInfo", acceptLanguage: "fr" })), "https://e.com/recipes-fr");
    assert.equal(href(chooseLink([gtinLevel], { linkType: "promotion", context: "US" })), "https://e.com/promo-us");
    assert.equal(href(chooseLink([gtinLevel], { linkType: "sustainabilityInfo" })), "noSuchLinkType");
  });

  it("takes the most specific level first and walks up to the primary key for a type it lacks", () => {
    assert.equal(href(chooseLink([lotLevel, gtinLevel], {})), "https://e.com/recall");
    assert.equal(href(chooseLink([lotLevel, gtinLevel], { linkType: "pip", acceptLanguage: "fr" })), "https://e.com/fr");
  });

  it("builds an RFC 9264 linkset, valid against GS1's linkset schema, with a context per level and the default link under gs1:defaultLink", () => {
    const built = linksetOf([lotLevel, gtinLevel], (i) => `https://id.example.com${i.path}`);
    assertValidLinkset(built);
    const { linkset } = built;
    assert.equal(linkset.length, 2);
    assert.equal(linkset[0].anchor, "https://id.example.com/01/09506000134352/10/LOT1");
    // GS1's schema requires an itemDescription: a level without its own takes the level above's, with its qualifiers.
    assert.equal(linkset[0].itemDescription, "Risotto rice, lot LOT1");
    assert.equal(linkset[1].itemDescription, "Risotto rice");
    assert.deepEqual(linkset[1]["https://ref.gs1.org/voc/defaultLink"], [{ href: "https://e.com/en", title: "https://e.com/en" }]);
    assert.equal((linkset[1]["https://ref.gs1.org/voc/pip"] as unknown[]).length, 3);
    assert.deepEqual((linkset[1]["https://ref.gs1.org/voc/promotion"] as Array<Record<string, unknown>>)[0], { href: "https://e.com/promo-gb", title: "https://e.com/promo-gb", context: ["GB"] });
  });

  it("describes a level no item describes by its key and qualifiers; every linkset of every shape validates", () => {
    const serialLevel = item("/01/09506000134352/10/LOT1/21/S1", [{ linkType: "gs1:registerProduct", href: "https://e.com/register", default: true }]);
    const bare = { ...gtinLevel, description: null };
    const uri = (i: StoredGs1Item) => `http://127.0.0.1:5000${i.path}`;
    assert.deepEqual(linksetOf([serialLevel, lotLevel, bare], uri).linkset.map((c) => c.itemDescription), [
      "GTIN 09506000134352, lot LOT1, serial S1",
      "GTIN 09506000134352, lot LOT1",
      "GTIN 09506000134352",
    ]);
    assert.equal(linksetOf([serialLevel, gtinLevel], uri).linkset[0].itemDescription, "Risotto rice, lot LOT1, serial S1");
    for (const levels of [[serialLevel, lotLevel, bare], [serialLevel, gtinLevel], [lotLevel], [bare], [gtinLevel]]) assertValidLinkset(linksetOf(levels, uri));
  });

  it("GS1's linkset schema has teeth: it refuses what the resolver must never serve", () => {
    const good = linksetOf([gtinLevel], (i) => `https://id.example.com${i.path}`);
    assert.equal(isValidLinkset(good), true);
    const context = good.linkset[0];
    const pip = context["https://ref.gs1.org/voc/pip"] as Array<Record<string, unknown>>;
    const variants: Array<[string, unknown]> = [
      ["no itemDescription", { linkset: [{ ...context, itemDescription: undefined }] }],
      ["a link without a title", { linkset: [{ ...context, "https://ref.gs1.org/voc/pip": [{ href: "https://e.com/en" }] }] }],
      ["a three-letter language", { linkset: [{ ...context, "https://ref.gs1.org/voc/pip": [{ ...pip[0], hreflang: ["fil"] }] }] }],
      ["an unknown link member", { linkset: [{ ...context, "https://ref.gs1.org/voc/pip": [{ ...pip[0], default: true }] }] }],
      ["a relation type that is no URI", { linkset: [{ ...context, "gs1:pip": pip }] }],
    ];
    for (const [what, body] of variants) assert.equal(isValidLinkset(JSON.parse(JSON.stringify(body))), false, what);
  });

  it("accepts only the language tags GS1's linkset schema allows in hreflang", () => {
    const link = { linkType: "gs1:pip", href: "https://e.com/", title: "Page" };
    for (const tag of ["en", "fr", "en-GB", "pt-br"]) assert.ok(Gs1LinkInputSchema.safeParse({ ...link, hreflang: [tag] }).success, tag);
    for (const tag of ["fil", "es-419", "zh-Hant", "en-GB-oxendict", "e"]) {
      const parsed = Gs1LinkInputSchema.safeParse({ ...link, hreflang: [tag] });
      assert.equal(parsed.success, false, tag);
      assert.match(parsed.error!.issues[0].message, /2-letter language, optionally with a 2-letter region/);
    }
  });

  it("describes itself in a resolver description file valid against GS1's description-file schema 1.2.0", () => {
    const description = resolverDescription();
    assertValidResolverDescription(description);
    // The schema refuses a key outside its enum and a missing resolverRoot.
    assert.throws(() => assertValidResolverDescription({ ...description, supportedPrimaryKeys: ["gtin"] }), /supportedPrimaryKeys\/0 must be equal to one of the allowed values/);
    assert.throws(() => assertValidResolverDescription({ ...description, resolverRoot: undefined }), /must have required property 'resolverRoot'/);
  });
});
