// The test tiers are what the README says they are: every test file belongs to exactly one tier, each tier
// has its npm script, and the README's table names each.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { TIERS, tiersOf, unitTierFiles } from "../../scripts/test";

const ROOT = path.resolve(__dirname, "..", "..");

function testFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(path.join(dir, e.name)) : e.name.endsWith(".test.ts") ? [path.join(dir, e.name)] : [],
  );
}

describe("test tiers", () => {
  it("every test file belongs to exactly one tier", () => {
    const files = testFiles("test");
    assert.ok(files.length > 50, `${files.length} test files`);
    for (const file of files) {
      const tiers = Object.entries(TIERS).filter(([, t]) => file.startsWith(t.spec.split("/**")[0] + path.sep));
      assert.equal(tiers.length, 1, `${file}: tiers ${tiers.map(([n]) => n).join(", ") || "none"}`);
    }
  });

  it("the unit tier runs every file of its folder, subfolders included, the slow-first ones first", () => {
    const files = unitTierFiles();
    assert.deepEqual([...files].sort(), testFiles("test/unit").sort());
    // A renamed slow file would silently start last.
    assert.deepEqual(files.slice(0, TIERS.unit.slowFirst.length), TIERS.unit.slowFirst.map((name) => `test/unit/${name}.test.ts`));
  });

  it("each tier has its npm script and a row in the README; unknown tiers are refused", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    for (const tier of Object.keys(TIERS)) {
      assert.ok(scripts[`test:${tier}`], `npm run test:${tier}`);
      assert.ok(readme.includes(`| \`npm run test:${tier}\` |`), `README row for test:${tier}`);
      assert.match(scripts[`test:${tier}`], new RegExp(`--tier ${tier}$`));
    }
    assert.deepEqual(tiersOf(["--tier", "browser", "--grep", "x"]), { tiers: ["browser"], rest: ["--grep", "x"] });
    assert.deepEqual(tiersOf([]).tiers, Object.keys(TIERS));
    assert.throws(() => tiersOf(["--tier", "everything"]), /unknown tier "everything"/);
  });
});
