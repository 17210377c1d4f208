// `npm run check`: the build, the type check of the tests and scripts, and the linter, side by side. Each is
// one or two single-threaded TypeScript programs; run one after another they left a core idle for about
// half their time (functions build 13 s, tsc 20 s, lint 32 s on two cores). Each one's output is printed
// whole when it ends, so the three never interleave; the check fails if any of them does.
import { spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");

/** The three steps, by name: each is a command line run in the repository's root. */
export const CHECK_STEPS: ReadonlyArray<readonly [name: string, command: string]> = [
  ["build", "npm run build"],
  ["tsc", "npx tsc -p tsconfig.json"],
  ["lint", "npm run lint"],
];

interface StepResult {
  name: string;
  code: number;
  seconds: number;
  output: string;
}

function run(name: string, command: string): Promise<StepResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: ROOT, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("close", (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000, output: Buffer.concat(chunks).toString() }));
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  const results = await Promise.all(
    CHECK_STEPS.map(([name, command]) =>
      run(name, command).then((result) => {
        process.stdout.write(`\n--- ${name} (${command}): ${result.code ? "FAILED" : "ok"} in ${result.seconds.toFixed(1)} s ---\n${result.output.trimEnd()}\n`);
        return result;
      }),
    ),
  );
  const failed = results.filter((r) => r.code);
  console.log(`\ncheck: ${failed.length ? `FAILED (${failed.map((r) => r.name).join(", ")})` : "ok"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return failed.length ? 1 : 0;
}

if (require.main === module) void main().then((code) => process.exit(code));
