// The folder ladder (docs/architecture.md): dependency-cruiser reads functions/src with the rules of
// .dependency-cruiser.cjs (no import from a higher layer, no folder cycle; type-only and deferred imports
// count) and this test allows only the exceptions listed below, each with its reason.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const REPO = resolve(__dirname, "../..");
const SRC = "functions/src/";

interface Step { layer: string; folders: string[]; root?: boolean }
interface Rule { name: string; from: object; to: object; scope?: string; severity: string; comment?: string }
interface Config { forbidden: Rule[]; options: Record<string, unknown> }
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS config dependency-cruiser itself reads
const config = require(join(REPO, ".dependency-cruiser.cjs")) as Config & { LADDER: Step[] };

/**
 * Known exceptions, by `rule from -> to` (paths under functions/src; folder cycles name the two folders).
 * Each must still occur: an entry that no longer matches fails the test, so the list only shrinks.
 */
export const ALLOWED: Record<string, string> = {};

interface Dependency { resolved: string; dependencyTypes: string[] }
interface Module { source: string; dependencies: Dependency[] }
interface Violation { rule: { name: string }; from: string; to: string; cycle?: Array<{ name: string } | string> }
interface Output { modules: Module[]; summary: { violations: Violation[] } }

async function cruiseTree(baseDir: string): Promise<Output> {
  // An ES module: loaded with import(), typed by hand (its types are ES module declarations).
  const { cruise } = (await import("dependency-cruiser" as string)) as {
    cruise: (files: string[], options: object) => Promise<{ output: Output }>;
  };
  const { output } = await cruise(["functions/src"], { ...config.options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  return output;
}

const short = (path: string) => path.replace(SRC, "").replace(/\/$/, "");
const folderOf = (path: string) => short(path).split("/")[0];

/** How a file imports another: a static import, a type-only one, or a deferred require()/import(). */
function kindOf(types: string[]): "static" | "type-only" | "deferred" {
  if (types.some((t) => t === "import" || t === "export" || t === "import-equals")) return types.includes("type-only") ? "type-only" : "static";
  if (types.includes("require") || types.includes("dynamic-import")) return "deferred";
  return "type-only"; // `typeof import("...")` alone
}

interface Finding { key: string; rule: string; lines: string[]; kinds: string[] }

/** One finding per violation, with the file-level imports behind it and their kinds. */
function findings(output: Output): Finding[] {
  const bySource = new Map(output.modules.map((m) => [m.source, m]));
  const edges = (fromFolder: string, toFolder: string) =>
    output.modules
      .filter((m) => m.source.startsWith(SRC) && folderOf(m.source) === fromFolder)
      .flatMap((m) => m.dependencies.filter((d) => d.resolved.startsWith(SRC) && folderOf(d.resolved) === toFolder).map((d) => ({ from: m.source, ...d })));
  return output.summary.violations.map((v) => {
    const rule = v.rule.name;
    const key = `${rule} ${short(v.from)} -> ${short(v.to)}`;
    const imports = rule === "no-folder-cycle"
      ? edges(short(v.from), short(v.to))
      : (bySource.get(v.from)?.dependencies ?? []).filter((d) => d.resolved === v.to).map((d) => ({ from: v.from, ...d }));
    const kinds = [...new Set(imports.map((d) => kindOf(d.dependencyTypes)))].sort();
    const lines = imports.map((d) => `    ${short(d.from)} -> ${short(d.resolved)} (${kindOf(d.dependencyTypes)}: ${d.dependencyTypes.filter((t) => t !== "local").join(", ")})`);
    if (v.cycle?.length) lines.push(`    cycle: ${short(v.from)} > ${v.cycle.map((c) => short(typeof c === "string" ? c : c.name)).join(" > ")}`);
    return { key, rule, lines, kinds };
  });
}

const describeAll = (list: Finding[]) => list.map((f) => `  ${f.key} [${f.kinds.join(", ")}]\n${f.lines.join("\n")}`).join("\n");

describe("folder ladder (dependency-cruiser)", function () {
  this.timeout(120_000);
  let found: Finding[];
  before(async () => {
    found = findings(await cruiseTree(REPO));
  });

  it("gives every folder of functions/src a layer", () => {
    const laddered = config.LADDER.flatMap((s) => s.folders);
    const folders = readdirSync(join(REPO, SRC)).filter((name) => statSync(join(REPO, SRC, name)).isDirectory());
    assert.deepEqual(folders.filter((f) => !laddered.includes(f)), [], "folders without a layer: add them to LADDER in .dependency-cruiser.cjs and docs/architecture.md");
    assert.equal(new Set(laddered).size, laddered.length, "a folder is on two layers");
  });

  it("has no upward import and no folder cycle beyond the allowlist", () => {
    // Upward imports first: one of them can knot many folders, and it is the one to fix.
    const unexpected = found.filter((f) => !(f.key in ALLOWED)).sort((a, b) => Number(a.rule === "no-folder-cycle") - Number(b.rule === "no-folder-cycle"));
    // A summary: violations by rule, and how many of them involve a type-only or a deferred import.
    const count = (list: Finding[]) => `${list.length} (${["static", "type-only", "deferred"].map((k) => `${k} ${list.filter((f) => f.kinds.includes(k)).length}`).join(", ")})`;
    const cycles = found.filter((f) => f.rule === "no-folder-cycle");
    const upward = found.filter((f) => f.rule !== "no-folder-cycle");
    console.log(`      folder ladder: upward imports ${count(upward)}; folder-cycle edges ${count(cycles)}; ${found.length - unexpected.length} allowed`);
    // Printed in full here: mocha shortens a long assertion message.
    if (unexpected.length) console.log(`\n${describeAll(unexpected)}\n`);
    assert.ok(unexpected.length === 0, `${unexpected.length} violation(s) of the folder ladder (listed above; docs/architecture.md): move the code down a layer, pass the value in, or (last) allow it with a reason in test/unit/folder-ladder.test.ts`);
  });

  it("keeps no stale exception: each allowed one still occurs", () => {
    const keys = new Set(found.map((f) => f.key));
    const stale = Object.keys(ALLOWED).filter((k) => !keys.has(k));
    assert.deepEqual(stale, [], "fixed: remove these from ALLOWED (and docs/architecture.md)");
  });

  it("catches an upward import of each kind and a folder cycle (a made-up tree)", async () => {
    const base = mkdtempSync(join(tmpdir(), "ladder-"));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(base, SRC, path)), { recursive: true });
      writeFileSync(join(base, SRC, path), text);
    };
    try {
      write("core/a.ts", 'import type { B } from "../store/b";\nexport type A = B;\n');
      write("store/b.ts", 'export type B = number;\nexport const b = () => require("../mcp/c") as { c: number };\n');
      write("mcp/c.ts", 'export const c = 1;\nexport const d = () => import("../store/b");\n');
      write("codes/d.ts", 'import { c } from "../mcp/c";\nexport const d = c;\n');
      const made = findings(await cruiseTree(base));
      const keyed = Object.fromEntries(made.map((f) => [f.key, f.kinds.join(",")]));
      assert.equal(keyed["upward-from-core core/a.ts -> store/b.ts"], "type-only", describeAll(made));
      assert.equal(keyed["upward-from-store store/b.ts -> mcp/c.ts"], "deferred", describeAll(made));
      assert.equal(keyed["upward-from-domain codes/d.ts -> mcp/c.ts"], "static", describeAll(made));
      assert.ok(made.some((f) => f.rule === "no-folder-cycle" && f.key.includes("store -> mcp")), describeAll(made));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
