// The scan-path line counter's file list (scripts/scan-lines.ts) against the code: every listed file exists,
// and every file of the scan folders that the redirect's or the consumer's entry imports, however deep, is
// listed, with whether a plain code's scan runs it (and if not, why not).
import assert from "node:assert/strict";
import { countLines, ENTRIES, importClosure, importsOf, inScanFolders, MAIN_PLAIN_PATH, SCAN_PATH, workingTree } from "../../scripts/scan-lines";

describe("scan-path line counter", () => {
  const read = workingTree();

  it("lists only files that exist", () => {
    const missing = [...Object.keys(SCAN_PATH), ...ENTRIES].filter((f) => read(f) === undefined);
    assert.deepEqual(missing, []);
  });

  it("accounts for every scan-folder file the redirect and the consumer import", () => {
    const reached = importClosure(read);
    for (const entry of ENTRIES) assert.ok(reached.includes(entry), `${entry} is reached`);
    // The closure goes through other folders too: the consumer reaches the rollups through the scan store.
    assert.ok(reached.includes("store/rollups.ts") && reached.includes("store/scanCounts.ts"));
    const unlisted = reached.filter((f) => inScanFolders(f) && !(f in SCAN_PATH));
    assert.deepEqual(unlisted, [], "list each in SCAN_PATH, with whether a plain code's scan runs it (and if not, why not)");
  });

  it("puts on a plain code's path only files the entries import", () => {
    const reached = new Set(importClosure(read));
    assert.deepEqual(Object.entries(SCAN_PATH).filter(([f, { plain }]) => plain === true && !reached.has(f)).map(([f]) => f), []);
  });

  it("names main's plain path from files the list knows", () => {
    assert.deepEqual(MAIN_PLAIN_PATH.filter((f) => !(f in SCAN_PATH)), []);
  });

  it("follows value imports, deferred ones included, and leaves type-only ones out", () => {
    const source = [
      'import { a } from "./a";',
      'import type { B } from "../store/b";',
      'import { type C } from "./c";',
      'export { d } from "./d";',
      'const e = () => require("../e") as typeof import("./f");',
      'void import("./g");',
      'import http from "node:http";',
    ].join("\n");
    assert.deepEqual(importsOf("scans/x.ts", source), ["scans/a", "scans/d", "e", "scans/g"]);
  });

  it("counts lines that are neither blank nor comments", () => {
    const source = ["// a comment", "const a = 1; // trailing", "", "/**", " * doc", " */", "/* one line */", "/* open", "still */ const b = 2;", "  return a;", ""].join("\n");
    assert.deepEqual(countLines(source), { all: 10, code: 3 });
  });
});
