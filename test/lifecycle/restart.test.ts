// The README's quick start started twice in a row on a fresh clone (Ctrl-C after each): the second start
// finds the first one's demo key and codes. test:full only (scripts/test.ts); quick-start.test.ts runs the
// first round on every change.
import assert from "node:assert/strict";
import { installedClone, startRound, tool } from "./quickStart";

describe("the README's quick start started again", function () {
  this.timeout(900_000);
  let clone: ReturnType<typeof installedClone> | undefined;
  after(() => clone?.remove());

  it("installs, starts, stops, and starts again with the same demo key and codes", async () => {
    clone = installedClone("scratch");
    let codeId = "";
    const first = await startRound(clone.dir, "start 1", async (key) => {
      codeId = (await tool(key, "svc.qr.create", { destinationUrl: "https://example.com/quick-start", title: "Quick start" })).codeId;
      assert.ok(codeId);
    });
    const second = await startRound(clone.dir, "start 2", async (key, output) => {
      assert.match(output, /demo key kept from the last start/);
      const listed = await tool(key, "svc.qr.list", { limit: 100 });
      assert.ok(listed.codes.some((c: any) => c.codeId === codeId), "the first start's code is still there");
    });
    assert.equal(second, first, "the same demo key across restarts");
  });
});
