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
