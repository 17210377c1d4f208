// `npm run lines:scan-path`: the size of the scan path, in non-blank non-comment lines (and all lines), by
// group (redirect, record, scan store, rollups, stream, consumer), and the part a plain code's scan goes
// through (a code without campaign rules: the redirect's arrival, then the consumer's count). Printed for
// this checkout and for `main` (read with `git show`, nothing checked out), side by side.
//
// Which files are on the path is a documented list (SCAN_PATH below), not a guess from imports: the
// redirect's module imports the capped codes' recording too, which a plain code's scan never runs.
// test/unit/scan-lines.test.ts keeps the list honest: every listed file exists, and every file of the scan
// folders that the redirect's or the consumer's entry imports, however deep, is listed.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..");

export const GROUPS = ["redirect", "record", "scan store", "rollups", "stream", "consumer"] as const;
export type Group = (typeof GROUPS)[number];

/** A scan-path file: its group, and whether a plain code's scan runs it (if not, why not). */
export interface PathFile {
  group: Group;
  plain: true | { not: string };
  /** On a plain code's path only through the consumer (the redirect never calls it for such a code). */
  consumerOnly?: true;
}

const notPlain = (why: string) => ({ not: why });
const CAPPED = notPlain("codes with a cap or scan-count thresholds only (their synchronous admission)");

/** The scan path's files on this branch, under functions/src. */
export const SCAN_PATH: Record<string, PathFile> = {
  "redirect/app.ts": { group: "redirect", plain: true },
  "redirect/memory.ts": { group: "redirect", plain: true },
  "redirect/customHost.ts": { group: "redirect", plain: true },
  "core/clientAddress.ts": { group: "redirect", plain: true },
  "core/coalescer.ts": { group: "redirect", plain: true },
  "redirect/appScans.ts": { group: "redirect", plain: notPlain("POST /api/scans: the service's own app, not a scan of a printed code") },
  "redirect/pages.ts": { group: "redirect", plain: notPlain("the ended, busy, unavailable and not-found pages: never a plain code's 302") },
  "redirect/password.ts": { group: "redirect", plain: notPlain("password-protected codes (campaign rules)") },
  "redirect/discountPage.ts": { group: "redirect", plain: notPlain("the in-store discount page a tracked code hands out (attribution)") },
  "scans/arrival.ts": { group: "record", plain: true },
  "scans/classify.ts": { group: "record", plain: true },
  "scans/device.ts": { group: "record", plain: true },
  "scans/geo.ts": { group: "record", plain: true },
  "scans/place.ts": { group: "record", plain: true },
  "scans/localTime.ts": { group: "record", plain: true },
  "scans/timeZones.ts": { group: "record", plain: true },
  "scans/visitors.ts": { group: "record", plain: true },
  "scans/clientLimit.ts": { group: "record", plain: true },
  "scans/guards.ts": { group: "record", plain: true, consumerOnly: true },
  "scans/record.ts": { group: "record", plain: CAPPED },
  "store/scanSecrets.ts": { group: "scan store", plain: true },
  "store/scanOutbox.ts": { group: "scan store", plain: true },
  "store/scanArrivalMarks.ts": { group: "scan store", plain: true },
  "store/scans.ts": { group: "scan store", plain: true, consumerOnly: true },
  "store/rollups.ts": { group: "rollups", plain: true, consumerOnly: true },
  "scans/maintenance.ts": { group: "rollups", plain: notPlain("the fold, every 10 minutes: counted apart (148 lines with the recount in the issue)") },
  "scans/codeScanCounts.ts": { group: "rollups", plain: notPlain("the fold's recount") },
  "store/scanLedger.ts": { group: "rollups", plain: notPlain("each code's per-day ledger of its 7- and 30-day scans, kept by the fold, never by a scan") },
  "store/scanEvents.ts": { group: "stream", plain: true },
  "store/scanStream.ts": { group: "stream", plain: true },
  "redirect/scanConsumer.ts": { group: "consumer", plain: true },
  "scans/consume.ts": { group: "consumer", plain: true },
  "store/scanCounts.ts": { group: "consumer", plain: true },
};

/** The files a plain code's scan ran on main (the issue's 2,259 lines: docs/performance.md, issue 56). */
export const MAIN_PLAIN_PATH = [
  "redirect/app.ts",
  "scans/record.ts",
  "store/scans.ts",
  "store/rollups.ts",
  "store/scanEvents.ts",
  "store/scanStream.ts",
  "core/coalescer.ts",
  "scans/classify.ts",
  "scans/device.ts",
  "scans/geo.ts",
  "scans/place.ts",
  "scans/localTime.ts",
  "scans/timeZones.ts",
  "store/scanSecrets.ts",
  "core/clientAddress.ts",
];

/** Where the redirect and the consumer start. */
export const ENTRIES = ["redirect/app.ts", "redirect/scanConsumer.ts"];

/** Whether the import check must account for a file: the scan folders and the store's scan and rollup files. */
export const inScanFolders = (file: string) => /^(redirect|scans)\/|^store\/(scan|rollup)/.test(file);

/** Reads a file under functions/src of one tree: this checkout, or a git revision of a repository. */
export type TreeReader = (file: string) => string | undefined;

export const workingTree = (root = ROOT): TreeReader => (file) => {
  const full = path.join(root, "functions/src", file);
  return existsSync(full) ? readFileSync(full, "utf8") : undefined;
};

export const gitTree = (repo: string, rev: string): TreeReader => {
  const listed = new Set(execFileSync("git", ["-C", repo, "ls-tree", "-r", "--name-only", rev, "functions/src"], { encoding: "utf8" }).split("\n").filter(Boolean));
  return (file) => {
    const full = `functions/src/${file}`;
    return listed.has(full) ? execFileSync("git", ["-C", repo, "show", `${rev}:${full}`], { encoding: "utf8", maxBuffer: 1 << 26 }) : undefined;
  };
};

/** Lines of a source: all of them, and those neither blank nor comment (as counted in the issue). */
export function countLines(source: string): { all: number; code: number } {
  const lines = source.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let code = 0;
  let inBlock = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) {
        inBlock = false;
        if (line.slice(line.indexOf("*/") + 2).trim()) code++;
      }
      continue;
    }
    if (!line || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      if (!line.includes("*/", 2)) inBlock = true;
      else if (line.slice(line.indexOf("*/", 2) + 2).trim()) code++;
      continue;
    }
    code++;
  }
  return { all: lines.length, code };
}

/** The value imports of a source (static, `require`, `import()`), relative ones resolved under functions/src; type-only ones left out. */
export function importsOf(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause?.isTypeOnly || (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if ((ts.isIdentifier(callee) && callee.text === "require") || callee.kind === ts.SyntaxKind.ImportKeyword) found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found.filter((s) => s.startsWith(".")).map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

/** Every file under functions/src that `entries` import, however deep (value imports only). */
export function importClosure(read: TreeReader, entries = ENTRIES): string[] {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    const candidates = [file, `${file}.ts`, `${file}/index.ts`];
    const hit = candidates.find((c) => c.endsWith(".ts") && read(c) !== undefined);
    if (!hit || seen.has(hit)) continue;
    seen.add(hit);
    queue.push(...importsOf(hit, read(hit)!));
  }
  return [...seen].sort();
}

export interface Figures {
  groups: Record<Group, { all: number; code: number; files: number }>;
  plain: { all: number; code: number; files: string[] };
  /** Files of the scan folders the entries import that SCAN_PATH does not name (none, on this branch). */
  unlisted: string[];
}

export function figuresOf(read: TreeReader, plainFiles: string[]): Figures {
  const groups = Object.fromEntries(GROUPS.map((g) => [g, { all: 0, code: 0, files: 0 }])) as Figures["groups"];
  for (const [file, { group }] of Object.entries(SCAN_PATH)) {
    const source = read(file);
    if (source === undefined) continue;
    const n = countLines(source);
    groups[group].all += n.all;
    groups[group].code += n.code;
    groups[group].files++;
  }
  const plain = { all: 0, code: 0, files: [] as string[] };
  for (const file of plainFiles) {
    const source = read(file);
    if (source === undefined) continue;
    const n = countLines(source);
    plain.all += n.all;
    plain.code += n.code;
    plain.files.push(file);
  }
  const unlisted = importClosure(read).filter((f) => inScanFolders(f) && !(f in SCAN_PATH));
  return { groups, plain, unlisted };
}

export const branchPlainPath = () => Object.entries(SCAN_PATH).filter(([, f]) => f.plain === true).map(([file]) => file);

function main(): void {
  const mainRepo = process.env.MAIN_REPO ?? "/work/main";
  const mainRev = process.env.MAIN_REV ?? "main";
  const here = figuresOf(workingTree(), branchPlainPath());
  let before: Figures | undefined;
  try {
    before = figuresOf(gitTree(mainRepo, mainRev), MAIN_PLAIN_PATH);
  } catch (error) {
    console.log(`(no ${mainRev} at ${mainRepo} to compare with: ${String(error).split("\n")[0]}; MAIN_REPO and MAIN_REV choose it)`);
  }
  const rev = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const cell = (n: { all: number; code: number } | undefined) => (n ? `${n.code} (${n.all})` : "-").padStart(13);
  console.log(`Scan path, non-blank non-comment lines (all lines): this checkout ${rev}${before ? ` against ${mainRev} at ${mainRepo}` : ""}`);
  console.log(`${"group".padEnd(12)}${"here".padStart(13)}${before ? mainRev.padStart(13) : ""}`);
  let total = { all: 0, code: 0 };
  let totalBefore = { all: 0, code: 0 };
  for (const g of GROUPS) {
    total = { all: total.all + here.groups[g].all, code: total.code + here.groups[g].code };
    if (before) totalBefore = { all: totalBefore.all + before.groups[g].all, code: totalBefore.code + before.groups[g].code };
    console.log(`${g.padEnd(12)}${cell(here.groups[g])}${before ? cell(before.groups[g]) : ""}`);
  }
  console.log(`${"all groups".padEnd(12)}${cell(total)}${before ? cell(totalBefore) : ""}`);
  console.log(`${"plain code".padEnd(12)}${cell(here.plain)}${before ? cell(before.plain) : ""}`);
  const redirectSide = here.plain.files.filter((f) => SCAN_PATH[f].group !== "consumer" && !SCAN_PATH[f].consumerOnly);
  const sum = (files: string[]) => files.reduce((n, f) => n + countLines(workingTree()(f)!).code, 0);
  console.log(`  of which the redirect's side ${sum(redirectSide)} non-comment lines; the consumer's files and the scan store and rollups it writes through ${here.plain.code - sum(redirectSide)}`);
  const goal = Math.floor(2259 / 2);
  console.log(`goal (issue 56): a plain code's path at most half of 2,259 lines (all lines, as the issue counted): ${goal}; here ${here.plain.all} (${here.plain.all <= goal ? "met" : `${here.plain.all - goal} over`})`);
  if (before) console.log(`half of ${mainRev}'s own plain path today: ${Math.floor(before.plain.code / 2)} non-comment lines (${Math.floor(before.plain.all / 2)} all); here ${here.plain.code} (${here.plain.all})`);
  console.log("plain code's files here:");
  for (const f of here.plain.files) {
    const n = countLines(workingTree()(f)!);
    console.log(`  ${`functions/src/${f}`.padEnd(42)} ${String(n.code).padStart(5)} (${n.all})  ${SCAN_PATH[f].group}`);
  }
  for (const [name, figures] of [["here", here], [mainRev, before]] as const) {
    if (figures?.unlisted.length) console.log(`imported from the entries but not listed (${name}): ${figures.unlisted.join(", ")}`);
  }
}

if (require.main === module) main();
