// The redirect instance's memories of codes (redirect/memory.ts): past their bound they forget the code
// used longest ago, so a code scanned often stays known (its scans skip the first read) while many codes
// scanned once pass by; a first-in-first-out memory would forget it first.
import assert from "node:assert/strict";
import { instanceMemory, knownCode, remember, rememberGood } from "../../functions/src/redirect/memory";
import type { Link } from "../../functions/src/store/codes";

const link = (codeId: string) => ({ merchantId: "m1", codeId, campaign: null, destinationUrl: `https://example.com/${codeId}` }) as unknown as Link;

/** A code learnt as the redirect learns it: its link read, then its identity. */
function learn(id: string): void {
  rememberGood(id, link(id));
  remember(id, link(id));
}

describe("redirect instance memory", () => {
  const entries = instanceMemory.entries;
  afterEach(() => (instanceMemory.entries = entries));

  it("keeps a code scanned often while many others pass, and forgets the one used longest ago", () => {
    instanceMemory.entries = 3;
    learn("HOT");
    learn("A");
    for (let i = 0; i < 50; i++) {
      const { last, known } = knownCode("HOT"); // a scan of the hot code: a use of both memories
      assert.equal(last?.codeId, "HOT", `its last link still known after ${i} other codes`);
      assert.equal(known?.codeId, "HOT", `its identity still known after ${i} other codes`);
      rememberGood("HOT", link("HOT")); // its read answered
      learn(`COLD${i}`);
    }
    assert.deepEqual(knownCode("A"), { last: undefined, known: undefined }, "a code scanned once is forgotten");
    assert.equal(knownCode("COLD49").known?.codeId, "COLD49");
    assert.equal(knownCode("COLD47").known, undefined, "three codes at most");
  });
});
