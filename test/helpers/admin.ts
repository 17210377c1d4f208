// The ops CLI (scripts/admin.ts) against the test emulators: an operator's action as a fixture, run in
// process and parsed from its --json output; and the CLI as a person runs it, as a process of its own.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { runAdmin } from "../../scripts/admin";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "..", "..");

/** Runs one command in this process (the command's code, without a process start) and parses its --json output. */
export async function adminCli(...args: string[]): Promise<any> {
  const printed: string[] = [];
  await runAdmin([...args, "--json"], (text) => printed.push(text));
  return JSON.parse(printed.join("\n"));
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
