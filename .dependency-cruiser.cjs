// The folder ladder of functions/src (docs/architecture.md, "Folder ladder"): every folder sits on one
// layer, and a module may import only from its own layer or a lower one. No folder may reach back into a
// folder that reaches it (no folder cycle), on any layer.
//
// Every kind of import counts: static imports and re-exports, `import type` (tsPreCompilationDeps keeps
// what TypeScript would erase), `typeof import("...")`, and deferred loads (a require() or import() run
// inside a function): a deferred load still ties the two folders together, it only moves the cost.
//
// Checked by test/unit/folder-ladder.test.ts (`npm run deps:check`), which also holds the allowlist of the
// few known exceptions, each with its reason. The CLI reads this file too:
//   npx depcruise --config .dependency-cruiser.cjs functions/src
/** @typedef {import("dependency-cruiser").IConfiguration} IConfiguration */

/** Top to bottom. A folder not named here fails the test until it is given a layer. */
const LADDER = [
  { layer: "edge", folders: ["contract"], root: true },
  { layer: "surfaces", folders: ["bulk", "console", "http", "images", "listings", "mcp", "oauth", "redirect", "sandbox", "site"] },
  { layer: "domain", folders: ["abuse", "attribution", "auth", "campaigns", "codes", "designs", "domains", "gs1", "jobs", "menus", "moderation", "qr", "scans", "webhooks"] },
  { layer: "store", folders: ["store"] },
  { layer: "core", folders: ["core"] },
];

const SRC = "^functions/src/";
/** Modules of a layer: its folders, and for the edge also the files at the top of functions/src (index.ts). */
const pathOf = (step) => [`${SRC}(${step.folders.join("|")})/`, ...(step.root ? [`${SRC}[^/]+$`] : [])].join("|");

/** One rule per layer: nothing in it may import from a layer above it. */
const upward = LADDER.slice(1).map((step, i) => ({
  name: `upward-from-${step.layer}`,
  comment: `${step.layer} may import ${LADDER.slice(i + 1).map((s) => s.layer).join(", ")} only, not ${LADDER.slice(0, i + 1).map((s) => s.layer).join(" or ")}`,
  severity: "error",
  from: { path: pathOf(step) },
  to: { path: LADDER.slice(0, i + 1).map(pathOf).join("|") },
}));

/** @type {IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    {
      name: "no-folder-cycle",
      comment: "two folders of functions/src import each other, directly or through others",
      severity: "error",
      scope: "folder",
      from: { path: `${SRC}[^/]+/?$` },
      to: { path: `${SRC}[^/]+/?$`, circular: true },
    },
  ],
  options: {
    // Type-only imports (`import type`, `typeof import()`) count: they tie the folders as much as any.
    tsPreCompilationDeps: true,
    exclude: { path: "node_modules" },
    doNotFollow: { path: "node_modules" },
    // Deferred loads count as well: require() and import() are found wherever they are called.
    detectProcessBuiltinModuleCalls: true,
  },
};

// For the test and the docs; not enumerable, so dependency-cruiser's config schema does not see it.
Object.defineProperty(module.exports, "LADDER", { value: LADDER, enumerable: false });
