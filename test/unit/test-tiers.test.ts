// The test tiers are what the README says they are: every test file belongs to exactly one tier, each tier
// has its npm script and budget, the README's table names each, and the map of full-size tests names only
// files and paths that exist.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { CHECK_STEPS } from "../../scripts/check";
import { BUDGETS, failuresOf, shardFiles, summary, TIERS, tierFiles, tiersOf, unitTierFiles } from "../../scripts/test";
import { FULL_SIZE_GUARDS, fullSizeFilesFor } from "../../scripts/lib/fullSize";

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

  it("full-only files run only under --full, and exist", () => {
    for (const [tier, t] of Object.entries(TIERS) as [keyof typeof TIERS, (typeof TIERS)[keyof typeof TIERS]][]) {
      for (const name of t.fullOnly) {
        const file = `${t.spec.split("/**")[0]}/${name}.test.ts`;
        assert.ok(existsSync(path.join(ROOT, file)), file);
        assert.ok(!tierFiles(tier, false).includes(file), `${file} is left out of npm test`);
        assert.ok(tierFiles(tier, true).includes(file), `${file} runs under test:full`);
      }
    }
  });

  it("each tier has its npm script, a README row and a budget; the budgets sum to under 11 minutes", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    for (const tier of Object.keys(TIERS)) {
      assert.ok(scripts[`test:${tier}`], `npm run test:${tier}`);
      assert.ok(readme.includes(`| \`npm run test:${tier}\` |`), `README row for test:${tier}`);
      assert.match(scripts[`test:${tier}`], new RegExp(`--tier ${tier}$`));
      assert.ok(BUDGETS[tier as keyof typeof BUDGETS] > 0, `budget for ${tier}`);
    }
    assert.ok(readme.includes("| `npm run test:full` |"), "README row for test:full");
    assert.match(scripts["test:full"], /--full$/);
    assert.match(scripts.test, /^npm run check && node --import tsx scripts\/test\.ts$/, "npm test builds, type-checks and lints before the tests");
    assert.match(scripts["test:full"], /^npm run check && /);
    assert.deepEqual(
      CHECK_STEPS.map(([, command]) => command),
      ["npm run build", "npx tsc -p tsconfig.json", "npm run lint"],
      "the check builds, type-checks the tests and scripts, and lints",
    );
    const total = Object.values(BUDGETS).reduce((a, b) => a + b, 0);
    assert.ok(total < 11 * 60, `budgets sum to ${total} s`);
    assert.deepEqual(tiersOf(["--tier", "browser", "--grep", "x"]), { tiers: ["browser"], rest: ["--grep", "x"], full: false });
    assert.deepEqual(tiersOf(["--full"]).tiers, ["unit", "service", "browser", "stack", "lifecycle"]);
    assert.equal(tiersOf(["--full"]).full, true);
    assert.throws(() => tiersOf(["--tier", "everything"]), /unknown tier "everything"/);
  });

  it("a run past 1.5 times its tier's budget fails the run; full-size runs have no budget", () => {
    const run = (seconds: number) => ({ label: "unit", tiers: ["unit" as const], seconds, code: 0, slowest: [], logFile: "unit.log" });
    assert.deepEqual(summary([run(BUDGETS.unit * 1.4)], false).overBudget, []);
    assert.equal(summary([run(BUDGETS.unit * 1.6)], false).overBudget.length, 1);
    assert.deepEqual(summary([run(BUDGETS.unit * 3)], true).overBudget, []);
    assert.deepEqual(summary([{ ...run(BUDGETS.unit * 3), label: "service (full size)" }], false).overBudget, []);
    // A shard that runs the service and browser files together has their budgets together.
    const both = BUDGETS.service + BUDGETS.browser;
    const shard = (seconds: number) => ({ label: "service + browser 1/2", tiers: ["service" as const, "browser" as const], seconds, code: 0, slowest: [], logFile: "shard.log" });
    assert.deepEqual(summary([shard(both * 1.4)], false).overBudget, []);
    assert.match(summary([shard(both * 1.6)], false).overBudget[0], new RegExp(`> 1.5 x ${both} s`));
  });

  it("shares the service and browser files out evenly over two shards, browser files on the first, an untimed file at the median", () => {
    const files = ["test/browser/a.test.ts", "test/service/b.test.ts", "test/service/c.test.ts", "test/service/d.test.ts", "test/service/new.test.ts"];
    const seconds = { "test/browser/a.test.ts": 30, "test/service/b.test.ts": 40, "test/service/c.test.ts": 20, "test/service/d.test.ts": 10 };
    const [first, second] = shardFiles(files, 2, seconds);
    assert.ok(first.includes("test/browser/a.test.ts"));
    assert.deepEqual([...first, ...second].sort(), [...files].sort(), "every file once");
    const load = (share: string[]) => share.reduce((sum, f) => sum + ((seconds as Record<string, number>)[f] ?? 30), 0);
    assert.ok(Math.abs(load(first) - load(second)) <= 20, `${load(first)} s against ${load(second)} s`);
    assert.deepEqual(shardFiles(files, 1, seconds), [files.filter((f) => f.startsWith("test/browser/")).concat(["test/service/b.test.ts", "test/service/new.test.ts", "test/service/c.test.ts", "test/service/d.test.ts"])]);
  });

  it("the map of full-size tests names files and paths that exist, and picks files by changed path", () => {
    for (const [file, guards] of Object.entries(FULL_SIZE_GUARDS)) {
      assert.ok(existsSync(path.join(ROOT, file)), file);
      for (const guard of guards) assert.ok(existsSync(path.join(ROOT, guard)), `${file}: ${guard}`);
    }
    assert.deepEqual(fullSizeFilesFor(["functions/src/jobs/task.ts"]), ["test/service/workloads/jobs.test.ts"]);
    assert.deepEqual(fullSizeFilesFor(["README.md"]), []);
  });

  it("repeats a failed run's failures from mocha's own account, colour codes removed, or its last lines after a crash", () => {
    const log = "  ok\n    \u001b[32m✔\u001b[0m passes\n\n  3 passing (2s)\n  1 failing\n\n  1) a suite\n       fails:\n     AssertionError: 1 !== 2\n";
    assert.equal(failuresOf(log), "  1 failing\n\n  1) a suite\n       fails:\n     AssertionError: 1 !== 2\n");
    const crash = Array.from({ length: 60 }, (_, i) => `line ${i}`).join("\n");
    assert.equal(failuresOf(crash), Array.from({ length: 40 }, (_, i) => `line ${i + 20}`).join("\n"));
  });
});
