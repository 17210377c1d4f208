import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

// What `firebase deploy` installs for the functions is functions/package-lock.json. It must say exactly
// what the tests ran: the packages installed from the root lockfile. (`npm run lock:functions` rewrites it.)
const ROOT = path.resolve(__dirname, "..", "..");
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8"));

describe("functions lockfile", () => {
  const manifest = read("functions/package.json");
  const lock = read("functions/package-lock.json");
  const rootLock = read("package-lock.json");

  it("is in sync with functions/package.json", () => {
    const locked = lock.packages[""];
    assert.deepEqual(locked.dependencies, manifest.dependencies, "run npm run lock:functions");
    assert.deepEqual(locked.devDependencies ?? {}, manifest.devDependencies ?? {}, "run npm run lock:functions");
  });

  it("locks only package versions the tests ran with", () => {
    const tested = new Set(
      Object.entries<{ version?: string }>(rootLock.packages)
        .filter(([key]) => key.includes("node_modules/"))
        .map(([key, entry]) => `${key.slice(key.lastIndexOf("node_modules/") + 13)}@${entry.version}`),
    );
    const untested = Object.entries<{ version?: string }>(lock.packages)
      .filter(([key]) => key)
      .map(([key, entry]) => `${key.slice(key.lastIndexOf("node_modules/") + 13)}@${entry.version}`)
      .filter((id) => !tested.has(id));
    assert.deepEqual(untested, [], "run npm run lock:functions");
  });

  it("resolves each top-level package from functions/ to the locked version", () => {
    for (const [key, entry] of Object.entries<{ version: string }>(lock.packages)) {
      if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(key)) continue;
      const name = key.slice("node_modules/".length);
      const installed = [path.join(ROOT, "functions", "node_modules", name), path.join(ROOT, "node_modules", name)].find((dir) => existsSync(path.join(dir, "package.json")));
      if (!installed) continue; // an optional dependency for another platform
      assert.equal(JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")).version, entry.version, name);
    }
  });
});
