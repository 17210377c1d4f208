// `npm test`: run every mocha test and exit with the result; extra arguments go to mocha (e.g.
// `npm test -- --grep sandbox`). Two phases, since both need the stack's fixed ports:
//  1. test/lifecycle: tests that start and interrupt stacks of their own (npm start, the README's quick start);
//  2. every other test against one stack started here from empty state (npm start's saved state is never
//     read or written), stopped at the end.
// `--tier <name>` (repeatable) runs only those tiers (TIERS below; `npm run test:integration` and the
// others): the stack starts once, and only when a chosen tier needs it.
// Ctrl-C at any moment stops everything this started.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { readdirSync } from "node:fs";
import path from "node:path";
import { checkPrerequisites, PrerequisiteError, ROOT, Stack, tailOf, LOG_FILE } from "./lib/stack";

const mocha = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");

/**
 * The test tiers: each a folder of test/, runnable alone; `npm test` runs them all: lifecycle, then unit
 * (pure CPU, so its files run on every core at once), then the tiers that share one stack.
 */
export const TIERS = {
  lifecycle: { spec: "test/lifecycle/**/*.test.ts", stack: false },
  // `slowFirst`: the files that take longest start first, so no long file starts last and runs alone.
  unit: { spec: "test/unit/**/*.test.ts", stack: false, slowFirst: ["scan-bounds", "print-package", "design-fuzz", "gs1-qr", "qr-render"] },
  integration: { spec: "test/integration/**/*.test.ts", stack: true },
  rules: { spec: "test/rules/**/*.test.ts", stack: true },
  browser: { spec: "test/browser/**/*.test.ts", stack: true },
} as const;
export type Tier = keyof typeof TIERS;

/** Splits `--tier a --tier b` out of the arguments; no tier named means every tier. */
export function tiersOf(args: string[]): { tiers: Tier[]; rest: string[] } {
  const tiers: Tier[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "--tier") {
      rest.push(args[i]);
      continue;
    }
    const name = args[++i];
    if (!(name in TIERS)) throw new Error(`unknown tier "${name}"; tiers: ${Object.keys(TIERS).join(", ")}`);
    tiers.push(name as Tier);
  }
  return { tiers: tiers.length ? tiers : (Object.keys(TIERS) as Tier[]), rest };
}

/** mocha's options for the tiers after lifecycle (the same as .mocharc.json's, with the tiers' folders). */
const mochaArgs = (tiers: Tier[], extra: string[]) => ["--no-config", "--node-option", "import=tsx", "--timeout", "30000", "--exit", ...tiers.map((t) => TIERS[t].spec), ...extra];
/** The unit tier's files (its spec's folder, subfolders included), the slow-first ones first. */
export function unitTierFiles(): string[] {
  const dir = TIERS.unit.spec.split("/**")[0];
  const slow = (file: string) => TIERS.unit.slowFirst.findIndex((name) => file === `${name}.test.ts`) >>> 0; // not listed: last
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .sort((a, b) => slow(a) - slow(b) || a.localeCompare(b))
    .map((f) => `${dir}/${f}`);
}

/** The unit tier's files spread over the machine's cores (UNIT_JOBS workers if set), its slowest first. */
function unitArgs(extra: string[]): string[] {
  // One worker per core, at least two and at most four: each worker holds its own copy of the modules.
  const jobs = Number(process.env.UNIT_JOBS) || Math.min(4, Math.max(2, availableParallelism()));
  return [...mochaArgs([], extra), ...unitTierFiles(), "--parallel", "--jobs", String(jobs)];
}
let running: ChildProcess | undefined;

function runMocha(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise<number>((resolve) => {
    // Its own process group: a test that interrupts a stack of its own signals only what it started.
    running = spawn(process.execPath, [mocha, ...args], { cwd: ROOT, stdio: "inherit", env, detached: true });
    running.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const stack = new Stack();
  stack.stopOnSignals(() => {
    if (running?.pid) {
      try {
        process.kill(-running.pid, "SIGINT");
      } catch {
        // already gone
      }
    }
  });
  try {
    const { tiers, rest: extra } = tiersOf(process.argv.slice(2));
    // The unit tier alone needs no emulator, ports or browser.
    if (tiers.some((t) => t !== "unit")) await checkPrerequisites({ chromium: tiers.includes("browser") || tiers.includes("lifecycle") });
    if (tiers.includes("lifecycle")) {
      const lifecycle = await runMocha(["--no-config", "--node-option", "import=tsx", "--timeout", "600000", "--exit", TIERS.lifecycle.spec, ...extra], process.env);
      if (lifecycle !== 0) return lifecycle;
    }
    let failed = 0;
    if (tiers.includes("unit")) failed = await runMocha(unitArgs(extra), process.env);
    const rest = tiers.filter((t) => t !== "lifecycle" && t !== "unit");
    if (!rest.length) return failed;
    if (!rest.some((t) => TIERS[t].stack)) return (await runMocha(mochaArgs(rest, extra), process.env)) || failed;
    const started = Date.now();
    const info = await stack.start();
    console.log(`emulators ready in ${((Date.now() - started) / 1000).toFixed(1)} s (mode: ${info.mode}; log: ${path.relative(ROOT, info.logFile)})`);
    const code = await runMocha(mochaArgs(rest, extra), {
      ...process.env,
      ...info.env,
      TEST_BASE_URL: info.urls.base,
      TEST_APP_URL: info.urls.app,
      TEST_FUNCTIONS_URL: info.urls.functions,
      TEST_STORAGE_EMULATOR: info.storageEmulator ? "1" : "",
    });
    if (code !== 0) console.log(`\n--- last lines of ${info.logFile} ---\n${tailOf(info.logFile)}`);
    return code || failed;
  } catch (error) {
    if (error instanceof PrerequisiteError) console.error(error.message);
    else {
      console.error(error instanceof Error ? error.message : error);
      console.log(tailOf(LOG_FILE));
    }
    return 1;
  } finally {
    await stack.stop();
  }
}

/**
 * The emulators' ports are fixed, so two runs on one machine (two checkouts, two terminals) would fight over
 * them and fail in confusing ways. A run that needs ports re-runs itself under an exclusive `flock` of
 * MACHINE_LOCK and so waits for the other to finish. Where `flock` is missing it runs unlocked, as before.
 */
const MACHINE_LOCK = "/tmp/qr-emulators.lock";
function rerunUnderMachineLock(): number | undefined {
  if (process.env.QR_EMULATORS_LOCK_HELD) return undefined;
  const { tiers } = tiersOf(process.argv.slice(2));
  if (tiers.every((t) => t === "unit")) return undefined;
  if (spawnSync("flock", ["--version"]).error) return undefined;
  console.log(`(waiting for ${MACHINE_LOCK} if another test run on this machine holds the emulators' ports)`);
  const run = spawnSync("flock", [MACHINE_LOCK, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, QR_EMULATORS_LOCK_HELD: "1" },
  });
  return run.status ?? 1;
}

if (require.main === module) {
  const locked = rerunUnderMachineLock();
  if (locked !== undefined) process.exit(locked);
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
