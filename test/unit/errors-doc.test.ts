// docs/errors.md shows a JsonError example as "what GET /api?foo=1 answers today": this keeps it so, by
// asking the site app (in process, on loopback) and comparing with the document's JSON.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { siteApp } from "../../functions/src/contract/surfaces";

describe("docs/errors.md", () => {
  it("the JsonError example is the site API's real answer to GET /api?foo=1", async () => {
    const doc = readFileSync(join(__dirname, "..", "..", "docs", "errors.md"), "utf8");
    const example = /`GET \/api\?foo=1` answers today \((\d+)\):\n\n```json\n([\s\S]*?)\n```/.exec(doc);
    assert.ok(example, "the example is in docs/errors.md");
    const server = siteApp.listen(0, "127.0.0.1");
    try {
      await new Promise((resolve) => server.once("listening", resolve));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api?foo=1`);
      assert.equal(res.status, Number(example[1]));
      assert.deepEqual(await res.json(), JSON.parse(example[2]));
    } finally {
      server.close();
    }
  });
});
