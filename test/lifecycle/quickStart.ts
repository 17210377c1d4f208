// The README's quick start as a person follows it: a fresh clone, `npm install`, then `npm start` rounds with
// Ctrl-C after each. quick-start.test.ts runs one round on every change; restart.test.ts (test:full) runs two
// and checks the second keeps the first one's demo key and codes.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "../../scripts/lib/stack";
import { openPorts, Terminal } from "./harness";

const README_COMMANDS = /```sh\nnpm install\nnpm start\b/;
const MCP = "http://127.0.0.1:5000/api/mcp";

export async function tool(key: string, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await fetch(MCP, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.ok(!body.result?.isError, JSON.stringify(body));
  return body.result.structuredContent ?? JSON.parse(body.result.content[0].text);
}

/**
 * A fresh clone of this repository with `npm install` done in it; `remove()` deletes it. `packages: "linked"`
 * (every change) first hard-links this checkout's installed packages into the clone, so `npm install` there
 * checks them against the lockfile and finds nothing to fetch: installing from scratch is what `.ci/run` has
 * just done on its own clean clone, and re-extracting 1,100 packages here took 20-30 s of the run's two
 * cores. `"scratch"` (restart.test.ts, test:full) installs into an empty clone as a person would.
 */
export function installedClone(packages: "linked" | "scratch"): { dir: string; remove(): void } {
  assert.match(readFileSync(path.join(ROOT, "README.md"), "utf8"), README_COMMANDS, "the README's quick start is npm install, npm start");
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "svc-clone-")), "svc");
  execFileSync("git", ["clone", "--quiet", ROOT, dir]);
  if (packages === "linked") {
    const { workspaces = [] } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { workspaces?: string[] };
    for (const at of [".", ...workspaces]) {
      if (existsSync(path.join(ROOT, at, "node_modules"))) execFileSync("cp", ["-al", path.join(ROOT, at, "node_modules"), path.join(dir, at)]);
    }
  }
  // A fresh clone may take packages from the machine's npm cache (--prefer-offline), as a developer's would.
  // Dependencies' install scripts are skipped: nothing the stack runs needs one, and re2's (an optional
  // native speed-up of firebase-tools' hosting) spends minutes trying GitHub and then compiling here.
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: dir,
    stdio: "ignore",
    env: { ...process.env, npm_config_loglevel: "error", npm_config_ignore_scripts: "true" },
  });
  return { dir, remove: () => rmSync(path.dirname(dir), { recursive: true, force: true }) };
}

/**
 * One `npm start` in the clone until it prints how to stop it; `use` runs against the running stack with its
 * demo key; then Ctrl-C, which must leave no process and no bound port. Returns the demo key.
 */
export async function startRound(clone: string, label: string, use: (key: string, output: string) => Promise<void>): Promise<string> {
  assert.deepEqual(await openPorts(), [], `ports free before ${label}`);
  const terminal = new Terminal("npm", ["start"], clone, { ...process.env, SVC_STATE_DIR: "" });
  try {
    await terminal.waitFor(/Stop: Ctrl-C/, 300_000);
    const key = /Demo API key\s+(sk-svc-[0-9a-f]{64})/.exec(terminal.output)?.[1];
    assert.ok(key, terminal.output);
    assert.match(terminal.output, /\[\s*[\d.]+ s\] building/, "steps are reported with their elapsed time");
    await use(key, terminal.output);
    terminal.ctrlC();
    const left = await terminal.leftovers(120_000);
    assert.deepEqual(left, [], `processes left behind:\n${terminal.describe(left)}\n${terminal.output}`);
    assert.deepEqual(await openPorts(), [], `ports still bound:\n${terminal.output}`);
    return key;
  } finally {
    terminal.cleanUp();
  }
}
