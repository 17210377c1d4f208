// No import cycles in functions/src: a cycle means two modules each need the other loaded first, which
// is what layering (core/ below store/ below services below routes) rules out. A regex walk of static
// imports and eager top-level require() calls, enough for this code base (madge is not a dependency).
// A require() inside a function runs when it is called, not at load: that is how the code defers heavy
// or upper-layer modules (designs, webhooks, the OpenAPI builder), so it is not an edge here.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../../functions/src");
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']|(?:^|\n)(?:(?:const|let|var)\s+[\w{}\s,]+=\s*)?require\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, "index.ts")]) if (existsSync(candidate)) return candidate;
  return null; // JSON and other assets
}

/** Edges of the runtime graph: `import type` and `export type` are erased and do not count. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(ROOT)) {
    // Type-only named imports (`import { type A, type B }`) are erased as well.
    const text = readFileSync(file, "utf8").replace(/import\s*\{(\s*type\s+\w+\s*(?:as\s+\w+\s*)?,?)+\}\s*from\s*["'][^"']+["'];?/g, "");
    const targets = [...text.matchAll(IMPORT)].map((m) => resolveImport(file, m[1] ?? m[2])).filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle's smallest representative path (Tarjan's strongly connected components). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe("functions/src import graph", () => {
  it("finds the imports it walks (a sanity check of the regex)", () => {
    const graph = importGraph();
    const edges = (file: string) => (graph.get(join(ROOT, file)) ?? []).map((f) => relative(ROOT, f));
    assert.ok(graph.size > 100, `${graph.size} files`);
    assert.ok(edges("codes/service.ts").includes("core/config.ts"));
    assert.ok(!edges("codes/service.ts").includes("designs/design.ts"), "a require() deferred into a function does not count");
    assert.deepEqual([...'\nimport "./wiring";\n'.matchAll(IMPORT)].map((m) => m[1]), ["./wiring"], "a side-effect import counts");
    assert.ok(!edges("codes/look.ts").includes("core/constants.ts"), "import type does not count");
  });

  it("has no import cycles", () => {
    const found = cycles(importGraph());
    assert.deepEqual(found, [], `cycles:\n${found.map((c) => c.join(" <-> ")).join("\n")}`);
  });

  it("keeps core/ below store/: no core module loads a store module", () => {
    const graph = importGraph();
    const upward = [...graph].flatMap(([from, tos]) => tos.map((to) => [relative(ROOT, from), relative(ROOT, to)])).filter(([from, to]) => from.startsWith("core/") && to.startsWith("store/"));
    assert.deepEqual(upward, []);
  });

  it("keeps the console's shared modules bundle-safe (no Node modules, firebase or zod)", () => {
    for (const file of ["core/limits.ts", "core/rules.ts", "core/constants.ts", "codes/look.ts"]) {
      const text = readFileSync(join(ROOT, file), "utf8");
      assert.doesNotMatch(text, /from\s+["'](node:|firebase|zod)|require\(/, file);
    }
  });
});
