// Figures per campaign rule and variant (scans/analytics.ts ruleFigures) from a code's `ru` rollup map
// (store/scans.ts ruleKey): keys written by the scan path read back as rules and variants, named from the
// code's current rules.
import assert from "node:assert/strict";
import { ruleFigures } from "../../functions/src/scans/analytics";
import { ruleKey } from "../../functions/src/store/scans";

describe("figures per campaign rule", () => {
  it("keys the destination, a rule and a rule's variant apart, and reads them back", () => {
    assert.deepEqual([ruleKey({ index: null }), ruleKey({ index: 3 }), ruleKey({ index: 3, variant: 1 }), ruleKey({ index: 19, variant: 3 })], ["d", "3", "3.1", "19.3"]);
    const current = {
      rules: [
        { name: "French", then: { type: "redirect" } },
        { then: { type: "split", variants: [{ url: "https://example.com/a" }, { url: "https://example.com/b" }] } },
      ],
    };
    const ru = { [ruleKey({ index: 1, variant: 1 })]: 4, [ruleKey({ index: null })]: 2, [ruleKey({ index: 0 })]: 5, [ruleKey({ index: 1, variant: 0 })]: 6, "7": 1, Other: 3, "1.x": 9, "0.0": 0 };
    assert.deepEqual(ruleFigures(ru, current), [
      { rule: 0, name: "French", scans: 5, variants: [] },
      {
        rule: 1,
        name: null,
        scans: 10,
        variants: [
          { variant: 0, url: "https://example.com/a", scans: 6 },
          { variant: 1, url: "https://example.com/b", scans: 4 },
        ],
      },
      // A position the current rules no longer have (rules were shortened): counted, unnamed.
      { rule: 7, name: null, scans: 1, variants: [] },
      { rule: null, name: null, scans: 2, variants: [] },
    ]);
  });

  it("a code without rules, or with no scans under them, has no rows", () => {
    assert.deepEqual(ruleFigures(undefined, undefined), []);
    assert.deepEqual(ruleFigures({}, { rules: [] }), []);
  });
});
