// `npm run lock:functions`: writes functions/package-lock.json, the lockfile `firebase deploy` ships with
// the functions source (Cloud Build installs from it). It is derived from the root lockfile, which is
// what `npm install` here and every test run use, so production installs exactly the versions tested:
// the root lock's entries for the functions workspace are re-rooted at functions/, and npm prunes what the
// functions do not need and fills in nothing new unless a range cannot be met.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");

export function deriveFunctionsLock(): string {
  const rootLock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "functions", "package.json"), "utf8"));
  const packages: Record<string, unknown> = {
    "": { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies, engines: manifest.engines },
  };
  for (const [key, entry] of Object.entries<Record<string, unknown>>(rootLock.packages)) {
    if (!key.startsWith("node_modules/") || key === "node_modules/functions") continue;
    packages[key] ??= entry;
  }
  // The workspace's own nested copies win over the hoisted ones, as they do when resolving from functions/.
  for (const [key, entry] of Object.entries<Record<string, unknown>>(rootLock.packages)) {
    if (key.startsWith("functions/node_modules/")) packages[key.slice("functions/".length)] = entry;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "functions-lock-"));
  try {
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    writeFileSync(path.join(dir, "package-lock.json"), JSON.stringify({ name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages }, null, 2));
    execFileSync("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    return readFileSync(path.join(dir, "package-lock.json"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  writeFileSync(path.join(ROOT, "functions", "package-lock.json"), deriveFunctionsLock());
  console.log("wrote functions/package-lock.json");
}
