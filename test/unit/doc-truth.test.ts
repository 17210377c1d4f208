// Copies people read, checked against the code: the README's layout against functions/src's folders, and
// docs/deploy.md against the parameters and secrets the functions declare.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const SRC = path.join(ROOT, "functions", "src");
const read = (f: string) => readFileSync(path.join(ROOT, f), "utf8");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

describe("doc truth", () => {
  it("the README's layout names every folder of functions/src, and no folder that is gone", () => {
    const layout = read("README.md").split("## Layout")[1]?.split("\n## ")[0] ?? "";
    const listed = new Set([...layout.matchAll(/^functions\/src\/([a-z0-9]+)\//gm)].map((m) => m[1]));
    const folders = new Set(readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
    assert.deepEqual([...folders].filter((f) => !listed.has(f)).sort(), [], "folders missing from the README's layout");
    assert.deepEqual([...listed].filter((f) => !folders.has(f)).sort(), [], "folders in the README's layout that do not exist");
  });

  it("docs/deploy.md names every parameter and secret the functions declare", () => {
    const declared = new Set(sources(SRC).flatMap((f) => [...readFileSync(f, "utf8").matchAll(/\bdefine(?:String|Secret|Int|Boolean|Float|List)\(\s*"([A-Z0-9_]+)"/g)].map((m) => m[1])));
    assert.ok(declared.size >= 15, `${declared.size} parameters`);
    const deploy = read("docs/deploy.md");
    const missing = [...declared].filter((name) => !new RegExp(`\\b${name}\\b`).test(deploy));
    assert.deepEqual(missing.sort(), [], "parameters docs/deploy.md does not name");
  });
});
