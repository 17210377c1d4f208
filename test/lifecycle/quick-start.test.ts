// The README's quick start, word for word, on a fresh clone: `npm install`, then `npm start` twice in a
// row (Ctrl-C after each). The second start finds the first one's demo key and codes. Runs before npm
// test's own stack (scripts/test.ts); the clone keeps its state in its own directory.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "../../scripts/lib/stack";
import { openPorts, Terminal } from "./harness";

const README_COMMANDS = /```sh\nnpm install\nnpm start\b/;
const MCP = "http://127.0.0.1:5000/api/mcp";

async function tool(key: string, name: string, args: Record<string, unknown>): Promise<any> {
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

describe("the README's quick start on a fresh clone", function () {
  this.timeout(600_000);
  let clone: string;
  before(() => {
    clone = path.join(mkdtempSync(path.join(tmpdir(), "svc-clone-")), "svc");
  });
  after(() => rmSync(path.dirname(clone), { recursive: true, force: true }));

  it("installs, starts, stops, and starts again with the same demo key and codes", async () => {
    assert.match(readFileSync(path.join(ROOT, "README.md"), "utf8"), README_COMMANDS, "the README's quick start is npm install, npm start");
    execFileSync("git", ["clone", "--quiet", ROOT, clone]);
    // A fresh clone may take packages from the machine's npm cache (--prefer-offline), as a developer's would.
    // Dependencies' install scripts are skipped: nothing the stack runs needs one, and re2's (an optional
    // native speed-up of firebase-tools' hosting) spends minutes trying GitHub and then compiling here.
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: clone,
      stdio: "ignore",
      env: { ...process.env, npm_config_loglevel: "error", npm_config_ignore_scripts: "true" },
    });

    const keys: string[] = [];
    let codeId = "";
    for (const round of [1, 2]) {
      assert.deepEqual(await openPorts(), [], `ports free before start ${round}`);
      const terminal = new Terminal("npm", ["start"], clone, { ...process.env, SVC_STATE_DIR: "" });
      try {
        await terminal.waitFor(/Stop: Ctrl-C/, 300_000);
        const key = /Demo API key\s+(sk-svc-[0-9a-f]{64})/.exec(terminal.output)?.[1];
        assert.ok(key, terminal.output);
        keys.push(key);
        assert.match(terminal.output, /\[\s*[\d.]+ s\] building/, "steps are reported with their elapsed time");
        if (round === 1) {
          codeId = (await tool(key, "svc.qr.create", { destinationUrl: "https://example.com/quick-start", title: "Quick start" })).codeId;
          assert.ok(codeId);
        } else {
          assert.match(terminal.output, /demo key kept from the last start/);
          const listed = await tool(key, "svc.qr.list", { limit: 100 });
          assert.ok(listed.codes.some((c: any) => c.codeId === codeId), "the first start's code is still there");
        }
        terminal.ctrlC();
        const left = await terminal.leftovers(120_000);
        assert.deepEqual(left, [], `processes left behind:\n${terminal.describe(left)}\n${terminal.output}`);
        assert.deepEqual(await openPorts(), [], `ports still bound:\n${terminal.output}`);
      } finally {
        terminal.cleanUp();
      }
    }
    assert.equal(keys[1], keys[0], "the same demo key across restarts");
  });
});
