// The README's quick start on a fresh clone: `npm install` (over packages linked from this checkout, see
// quickStart.ts), `npm start`, a code made through the printed demo key, Ctrl-C. Runs on every change; the
// install from scratch and the second start that keeps the key and codes are restart.test.ts (test:full).
import assert from "node:assert/strict";
import { installedClone, startRound, tool } from "./quickStart";

describe("the README's quick start on a fresh clone", function () {
  this.timeout(600_000);
  let clone: ReturnType<typeof installedClone> | undefined;
  after(() => clone?.remove());

  it("installs, starts with a demo key that makes a code, and stops on Ctrl-C leaving nothing behind", async () => {
    clone = installedClone("linked");
    await startRound(clone.dir, "start", async (key) => {
      const { codeId } = await tool(key, "svc.qr.create", { destinationUrl: "https://example.com/quick-start", title: "Quick start" });
      assert.ok(codeId);
      const listed = await tool(key, "svc.qr.list", { limit: 100 });
      assert.ok(listed.codes.some((c: any) => c.codeId === codeId), "the new code is listed");
    });
  });
});
