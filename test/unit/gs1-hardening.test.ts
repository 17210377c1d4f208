// Lower findings of review 4 on the GS1 surfaces (issue 60): the resolver's bounded parsing of Accept and
// Accept-Language (L1), and a key value in a download's file name header (I2).
import assert from "node:assert/strict";
import { chooseLink, WEIGHTED_RANGES_MAX, weightedList } from "../../functions/src/gs1/match";
import { downloadName } from "../../functions/src/gs1/service";
import type { StoredGs1Item } from "../../functions/src/store/gs1Items";
import { int, prng } from "../helpers/fuzz";

const LANGS = ["en", "fr", "de", "it", "es", "nl", "pt", "pl", "sv", "da"];

/** An attacker's own item: 50 links of one type, each with 10 languages. */
function crowdedItem(): StoredGs1Item {
  return {
    itemId: "x".repeat(32), merchantId: "m", host: "h", ai: "01", value: "09506000134352", qualifiers: [], path: "/01/09506000134352", description: null,
    links: Array.from({ length: 50 }, (_, i) => ({ linkType: "gs1:pip", href: `https://example.com/${i}`, title: `t${i}`, hreflang: LANGS.map((l) => `${l}-${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + ((i * 7) % 26))}`), default: i === 0 })),
    createdAt: new Date(), updatedAt: new Date(),
  };
}

describe("GS1 resolver hardening (review 4, L1 and I2)", () => {
  it(`reads at most ${WEIGHTED_RANGES_MAX} ranges of the first 512 characters of Accept and Accept-Language`, () => {
    const huge = Array.from({ length: 5_000 }, (_, i) => `x${i}-yy;q=0.${(i % 9) + 1}`).join(",");
    assert.ok(huge.length > 15_000);
    assert.ok(weightedList(huge).length <= WEIGHTED_RANGES_MAX);
    assert.ok(weightedList(`${"a".repeat(600)},fr`).every((w) => w.tag !== "fr"), "past 512 characters nothing is read");
    assert.deepEqual(weightedList("fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5").map((w) => w.tag), ["fr-ch", "fr", "en", "*"], "a browser's header is read whole");
  });

  it("matches a 16 KB header against 50 links of 10 languages each as its first 512 characters: nothing past them is read", () => {
    // The work is bounded by what is read (the test above: at most 20 ranges), times the item's links and
    // languages; so a 16 KB header costs what a browser's does. Asserted by answers, not by a clock.
    const item = crowdedItem();
    const header = Array.from({ length: 5_000 }, (_, i) => `${LANGS[i % 10]}-Z${String.fromCharCode(65 + (i % 26))}`).join(",");
    assert.ok(header.length > 16_000);
    const cut = header.slice(0, 512);
    assert.deepEqual(chooseLink([item], { acceptLanguage: header, accept: header }), chooseLink([item], { acceptLanguage: cut, accept: cut }));
    // A language only past the cut never wins, though an item's link carries it.
    const late = `${"zz-ZZ,".repeat(100)}it-AG`;
    assert.ok(late.indexOf("it-AG") > 512);
    assert.deepEqual(chooseLink([item], { acceptLanguage: late }), chooseLink([item], { acceptLanguage: late.slice(0, 512) }));
  });

  it("gives download file names that stay one quoted parameter for any GS1 set 82 key value", () => {
    const SET82 = "!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    const rand = prng(60);
    for (let n = 0; n < 2_000; n++) {
      const value = Array.from({ length: int(rand, 30) + 1 }, () => SET82[int(rand, SET82.length)]).join("");
      // One quoted-string: nothing in the name can close the quotes, escape, or start another parameter.
      assert.match(`inline; filename="${downloadName(value, n % 2 === 0)}"`, /^inline; filename="gs1-[A-Za-z0-9._-]+\.png"$/, value);
    }
    assert.equal(downloadName('ABC";x=1', false), "gs1-ABC__x_1.png");
  });
});
