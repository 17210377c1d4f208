import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { rememberResolution } from "../../functions/src/core/requireResolution";

// A package with an `exports` map, required from inside a function of another module after it was first
// loaded another way (as google-gax/fallback is by the time the Firestore client commits).
// A require of our own, as the modules under test are CommonJS and loaded by file name.
const load = createRequire(__filename);

describe("rememberResolution", () => {
  let root: string;
  let consumerFile: string;
  let subFile: string;

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), "require-resolution-"));
    const pkg = path.join(root, "node_modules", "exports-pkg");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "exports-pkg", exports: { "./sub": "./sub.js" } }));
    subFile = path.join(pkg, "sub.js");
    writeFileSync(subFile, "module.exports = { loaded: Symbol('sub') };\n");
    consumerFile = path.join(root, "consumer.js");
    writeFileSync(consumerFile, "module.exports = () => require('exports-pkg/sub');\n");
  });

  after(() => {
    for (const file of [consumerFile, subFile]) delete load.cache[file];
    rmSync(root, { recursive: true, force: true });
  });

  /** Runs `body` with the package's directory moved away, so only a remembered resolution can find it. */
  function withPackageMoved<T>(body: () => T): T {
    const from = path.join(root, "node_modules", "exports-pkg");
    renameSync(from, `${from}-moved`);
    try {
      return body();
    } finally {
      renameSync(`${from}-moved`, from);
    }
  }

  it("makes a later require of a package's export a lookup, with the file Node itself resolves", () => {
    const sub = load(subFile) as { loaded: symbol };
    const requireSub = load(consumerFile) as () => { loaded: symbol };
    assert.equal(requireSub(), sub);
    // Unremembered, each require resolves the exports map again on disk: with the package gone it fails.
    assert.throws(() => withPackageMoved(requireSub), /Cannot find module/);

    assert.equal(rememberResolution(consumerFile, "exports-pkg/sub"), true);
    assert.equal(withPackageMoved(requireSub), sub);
    assert.equal(requireSub(), sub);
  });

  it("does nothing for a module that is not loaded or a request that does not resolve", () => {
    assert.equal(rememberResolution(path.join(root, "never-loaded.js"), "exports-pkg/sub"), false);
    load(consumerFile);
    assert.equal(rememberResolution(consumerFile, "exports-pkg/missing"), false);
    assert.equal(rememberResolution(consumerFile, "no-such-package/sub"), false);
  });
});
