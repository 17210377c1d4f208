// Runs the ops CLI (scripts/admin.ts) against the test emulators and parses its --json output.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "..", "..");

export async function adminCli(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args, "--json"], { cwd: ROOT, env: process.env });
  return JSON.parse(stdout);
}

/** Runs the CLI as a person would (no --json added) and reports its exit code, output and duration. */
export async function runAdminCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args], { cwd: ROOT, env });
    return { code: 0, stdout, stderr, ms: Date.now() - started };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", ms: Date.now() - started };
  }
}
