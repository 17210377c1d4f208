// The catalogue's pure parts: search tokens (word prefixes, folded, capped whatever the input), the query
// planner's words, and that every list query the console can send has the composite indexes production
// needs (the emulator answers any query without an index, so only this test would notice a missing one).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { containsWords, foldText, matchesWords, queryToken, queryWordsOf, searchTokensOf, titleKeyOf, TOKENS_MAX, TOKENS_MAX_BYTES } from "../../functions/src/store/search";
import { CODE_LIST_SORTS, listShapeOf } from "../../functions/src/codes/directory";
import { indexesFor } from "../../functions/src/store/catalogue";

const code = (title: string, destinationUrl = "https://shop.example/", campaign: string | null = null, tags: string[] = []) => ({ title, destinationUrl, campaign, tags });

describe("catalogue: search tokens", () => {
  it("folds case, accents and width", () => {
    assert.equal(foldText("Café ÉTÉ ｃａｆｅ"), "cafe ete cafe");
    assert.equal(titleKeyOf("Zebra"), titleKeyOf("zebra"));
  });

  it("indexes every prefix of the words of title, campaign, tags and destination (not the scheme)", () => {
    const tokens = searchTokensOf(code("Lunch Menu", "https://bistro.example/menu/lunch?src=window", "Été 2026", ["Counter"]));
    for (const t of ["l", "lu", "lunch", "m", "menu", "ete", "2026", "counter", "bistro", "example", "src", "window"]) assert.ok(tokens.includes(t), t);
    assert.ok(!tokens.includes("https"), "the scheme is no word anyone types");
    assert.ok(!tokens.includes("unch"), "prefixes only");
  });

  it("finds a run of characters anywhere in text written without spaces", () => {
    const tokens = searchTokensOf(code("新東京タワー限定メニュー"));
    const words = queryWordsOf("東京");
    assert.ok(tokens.includes(queryToken(words)!));
    assert.ok(matchesWords(code("新東京タワー限定メニュー"), words));
    assert.ok(!matchesWords(code("大阪"), words));
  });

  it("caps tokens by count and bytes whatever the field lengths", () => {
    const long = Array.from({ length: 400 }, (_, i) => `長い題名${i}語`).join(" ");
    for (const c of [code(long, `https://x.example/${"a/".repeat(900)}`, "c".repeat(100), Array.from({ length: 20 }, (_, i) => `tag${i}${"x".repeat(40)}`)), code("𝔘".repeat(200))]) {
      const tokens = searchTokensOf(c);
      assert.ok(tokens.length <= TOKENS_MAX, `${tokens.length} tokens`);
      assert.ok(Buffer.byteLength(tokens.join("")) <= TOKENS_MAX_BYTES);
      assert.ok(tokens.every((t) => [...t].length <= 12));
    }
    // The fields share the cap: a long destination never pushes the title out, nor a long title the tags.
    const tokens = searchTokensOf(code("Spring window poster", `https://x.example/${Array.from({ length: 300 }, (_, i) => `w${i}`).join("/")}`));
    assert.ok(tokens.includes("poster"));
    const cjk = Array.from({ length: 200 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join("");
    const crowded = searchTokensOf(code(`新店舗 ${cjk}`, "https://shop.example/new-store", cjk.slice(0, 100), [cjk.slice(50, 100), "開店"]));
    assert.ok(Buffer.byteLength(crowded.join("")) <= TOKENS_MAX_BYTES);
    for (const word of ["新店", "開店", "shop", "new"]) assert.ok(crowded.includes(queryToken(queryWordsOf(word))!), `${word} stays searchable`);
  });

  it("matches every query word as a word prefix (large workspaces) or anywhere (small ones)", () => {
    const c = code("Window poster", "https://bistro.example/offers?src=window", "spring");
    assert.ok(matchesWords(c, queryWordsOf("win post")));
    assert.ok(matchesWords(c, queryWordsOf("src=window")));
    assert.ok(!matchesWords(c, queryWordsOf("indow")));
    assert.ok(containsWords(c, queryWordsOf("indow")));
    assert.ok(!matchesWords(c, queryWordsOf("poster autumn")));
    assert.equal(queryToken(queryWordsOf("a window")), "window", "the longest word is the most selective");
    assert.equal(queryToken(queryWordsOf("extraordinarily")), "extraordinar", "cut to the token length");
    assert.deepEqual(queryWordsOf("  ,;  "), []);
  });
});

describe("catalogue: every list query has its indexes", () => {
  type Field = { fieldPath: string; order?: string; arrayConfig?: string };
  const declared: Array<{ collectionGroup: string; queryScope: string; fields: Field[] }> = JSON.parse(
    readFileSync(path.resolve(__dirname, "..", "..", "firestore.indexes.json"), "utf8"),
  ).indexes;
  const has = (fields: Field[]) =>
    declared.some((i) => i.collectionGroup === "codes" && i.queryScope === "COLLECTION" && JSON.stringify(i.fields) === JSON.stringify(fields));

  it("covers each filter, alone or combined (merged by Firestore), with each sort both ways", () => {
    let shapes = 0;
    for (const sort of CODE_LIST_SORTS)
      for (const order of ["asc", "desc"] as const)
        for (const status of [undefined, "draft", "published"] as const)
          for (const kind of [undefined, "static", "dynamic"] as const)
            for (const campaign of [undefined, "", "spring"])
              for (const [tag, token] of [[undefined, undefined], ["vip", undefined], [undefined, "menu"]]) {
                const shape = listShapeOf({ sort, status, kind, campaign, tag }, order, token);
                for (const fields of indexesFor(shape)) assert.ok(has(fields), `missing index ${JSON.stringify(fields)}`);
                shapes++;
              }
    assert.equal(shapes, 5 * 2 * 3 * 3 * 3 * 3);
    assert.ok(declared.length <= 200, "Firestore allows 200 composite indexes per database");
  });
});
