// Through firebase-tools' Hosting and Functions emulators (the stack tier): each of firebase.json's rewrites,
// in order, reaches the function it names. A GET of a path that only that rewrite matches answers through
// Hosting exactly as the same function answers at its own URL (status and content type); a rewrite that
// sent the path to another function, or none, would answer otherwise (another app's 404, Hosting's page).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { baseUrl, functionsUrl } from "../helpers/env";

interface Rewrite {
  source?: string;
  regex?: string;
  function: { functionId: string } | string;
}

const ROOT = path.resolve(__dirname, "..", "..");
const rewrites = (JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8")) as { hosting: { rewrites: Rewrite[] } }).hosting.rewrites;

/** A path this rewrite's pattern matches: `**` stands for one segment, the regex for a 12-character id. */
export function pathFor(rewrite: Rewrite): string {
  if (rewrite.regex) return "/StackProbe12";
  return rewrite.source!.replace(/\*\*/g, "stack-probe");
}

const functionOf = (r: Rewrite) => (typeof r.function === "string" ? r.function : r.function.functionId);

describe("stack: every Hosting rewrite reaches its function", () => {
  it("the table covers every rewrite with a distinct path", () => {
    const paths = rewrites.map(pathFor);
    assert.equal(new Set(paths).size, paths.length, paths.join(" "));
    assert.ok(rewrites.length >= 40, `${rewrites.length} rewrites`);
  });

  for (const rewrite of rewrites) {
    const probe = pathFor(rewrite);
    const fn = functionOf(rewrite);
    it(`${rewrite.source ?? rewrite.regex} -> ${fn}`, async () => {
      const [viaHosting, direct] = await Promise.all(
        [`${baseUrl()}${probe}`, `${functionsUrl()}/${fn}${probe}`].map((url) => fetch(url, { redirect: "manual", headers: { Accept: "application/json" } })),
      );
      await Promise.all([viaHosting.arrayBuffer(), direct.arrayBuffer()]);
      assert.notEqual(direct.status, 500, `${fn} failed on ${probe}`);
      assert.equal(viaHosting.status, direct.status, `${probe}: through Hosting ${viaHosting.status}, at ${fn}'s own URL ${direct.status}`);
      const type = (r: Response) => (r.headers.get("content-type") ?? "").split(";")[0];
      assert.equal(type(viaHosting), type(direct), probe);
    });
  }
});
