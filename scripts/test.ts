// `npm test`: run the tiers cheapest first and exit with the result; extra arguments go to mocha (e.g.
// `npm test -- --grep sandbox`). The tiers that need ports share them in turn: one stack with the functions
// served in process (service, browser), then one on firebase-tools' emulators (stack), then lifecycle's own
// (each started here from empty state; npm start's saved state is never read or written).
// `--tier <name>` (repeatable) runs only those tiers (TIERS below; `npm run test:<tier>`); `--full`
// (`npm run test:full`) runs every file at full size, and the service files again on the emulators.
// Each run prints its time and slowest files; a tier past 1.5x its budget (test/budgets.json) fails.
// Ctrl-C at any moment stops everything this started.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { changedPaths, fullSizeFilesFor } from "./lib/fullSize";
import { checkPrerequisites, PrerequisiteError, ROOT, Stack, tailOf, LOG_FILE, type Shard, type StackInfo } from "./lib/stack";

const mocha = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");

/** Where each tier's tests are served from: nothing, the in-process service host, or firebase-tools' emulators. */
type Serve = "none" | "in-process" | "emulators" | "own";

/**
 * The test tiers, each a folder of test/, runnable alone (`npm run test:<tier>`), cheapest first:
 *  - unit: pure code, no ports (its files run on every core at once);
 *  - service: the HTTP contract and the domain against the Firestore, Auth and Pub/Sub emulators, the
 *    functions and Hosting served in one Node 22 process (scripts/lib/serviceHost.ts) behind the front;
 *  - browser: the pages in Chromium, served the same way;
 *  - stack: a thin end-to-end set through firebase-tools' Hosting and Functions emulators, and the smoke check;
 *  - lifecycle: `npm start` on a fresh clone and interrupted; starts stacks of its own.
 * `fullOnly` files run only under `npm run test:full` (TEST_FULL=1), with every file at full size.
 */
export const TIERS = {
  // `slowFirst`: the files that take longest start first, so no long file starts last and runs alone.
  unit: { spec: "test/unit/**/*.test.ts", serve: "none", slowFirst: ["scan-bounds", "print-package", "design-fuzz", "gs1-qr", "qr-render"], fullOnly: [] },
  service: { spec: "test/service/**/*.test.ts", serve: "in-process", fullOnly: ["scan-retries-crowds"] },
  browser: { spec: "test/browser/**/*.test.ts", serve: "in-process", fullOnly: [] },
  stack: { spec: "test/stack/**/*.test.ts", serve: "emulators", fullOnly: ["job-kill"] },
  lifecycle: { spec: "test/lifecycle/**/*.test.ts", serve: "own", fullOnly: ["start-interrupt", "restart"] },
} as const satisfies Record<string, { spec: string; serve: Serve; fullOnly: readonly string[]; slowFirst?: readonly string[] }>;
export type Tier = keyof typeof TIERS;
const ORDER: Tier[] = ["unit", "service", "browser", "stack", "lifecycle"];

/** Seconds each tier may take on this project's 2-core CI machine; a tier that passes 1.5x its budget fails. */
export const BUDGETS = JSON.parse(readFileSync(path.join(ROOT, "test", "budgets.json"), "utf8")) as Record<Tier, number>;
export const OVER_BUDGET = 1.5;

/**
 * Splits `--tier a --tier b`, `--full` and `--save-times` (record each service and browser file's time in
 * test/file-times.json, which shares files out over shards) out of the arguments; no tier named means every tier.
 */
export function tiersOf(args: string[]): { tiers: Tier[]; rest: string[]; full: boolean } {
  const tiers: Tier[] = [];
  const rest: string[] = [];
  let full = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--save-times") continue;
    if (args[i] === "--full") {
      full = true;
      continue;
    }
    if (args[i] !== "--tier") {
      rest.push(args[i]);
      continue;
    }
    const name = args[++i];
    if (!(name in TIERS)) throw new Error(`unknown tier "${name}"; tiers: ${Object.keys(TIERS).join(", ")}`);
    tiers.push(name as Tier);
  }
  return { tiers: ORDER.filter((t) => (tiers.length ? tiers.includes(t) : true)), rest, full };
}

/** A tier's files (its folder, subfolders included): the slow-first ones first, full-only ones only when full. */
export function tierFiles(tier: Tier, full: boolean): string[] {
  const t = TIERS[tier] as { spec: string; fullOnly: readonly string[]; slowFirst?: readonly string[] };
  const dir = t.spec.split("/**")[0];
  const slowFirst = t.slowFirst ?? [];
  const slow = (file: string) => slowFirst.findIndex((name) => file === `${name}.test.ts`) >>> 0; // not listed: last
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .filter((f) => full || !t.fullOnly.some((name) => f === `${name}.test.ts`))
    .sort((a, b) => slow(a) - slow(b) || a.localeCompare(b))
    .map((f) => `${dir}/${f}`);
}
/** The unit tier's files, the slow-first ones first (kept for the tier check). */
export const unitTierFiles = () => tierFiles("unit", false);

/** mocha's options for a run of test files: one timeout, exit when done, each file's time recorded. */
const mochaArgs = (files: string[], extra: string[], timeout = 30_000) => [
  "--no-config",
  "--node-option",
  "import=tsx",
  "--timeout",
  String(timeout),
  "--exit",
  "--reporter",
  path.join(ROOT, "scripts", "lib", "timingReporter.ts"),
  ...files,
  ...extra,
];

/** Each file of the tiers that share a stack starts on an empty Firestore (test/helpers/freshData.ts). */
const FRESH_DATA = ["--require", path.join(ROOT, "test", "helpers", "freshData.ts")];

const running = new Set<ChildProcess>();

/**
 * Runs mocha; its output goes to `logFile` and, unless `quiet` (a shard that runs beside another), to ours as
 * it comes. The log lets the end of the run repeat each failure (CI shows a run's last lines).
 */
function runMocha(args: string[], env: NodeJS.ProcessEnv, logFile: string, quiet: boolean): Promise<number> {
  return new Promise<number>((resolve) => {
    const log = createWriteStream(logFile);
    // Its own process group: a test that interrupts a stack of its own signals only what it started.
    const colour = !quiet && process.stdout.isTTY ? ["--color"] : [];
    const child = spawn(process.execPath, [mocha, ...args, ...colour], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env, detached: true });
    for (const [from, to] of [[child.stdout!, process.stdout], [child.stderr!, process.stderr]] as const) {
      from.on("data", (chunk: Buffer) => {
        log.write(chunk);
        if (!quiet) to.write(chunk);
      });
    }
    running.add(child);
    child.on("close", (c, signal) => {
      running.delete(child);
      const code = c ?? (signal ? 1 : 0);
      log.end(() => resolve(code));
    });
  });
}

/** Mocha's account of a failed run: from its "N failing" line on (the failures, each with its stack). */
export function failuresOf(log: string): string {
  // eslint-disable-next-line no-control-regex -- colour codes in a terminal's log
  const plain = log.replace(/\u001b\[[0-9;]*m/g, "");
  const at = plain.search(/^ {2}\d+ failing/m);
  return at < 0 ? plain.split("\n").slice(-40).join("\n") : plain.slice(at);
}

interface TierResult {
  label: string;
  /** The tiers whose files the run held: its budget is theirs together. */
  tiers: Tier[];
  seconds: number;
  code: number;
  slowest: [string, number][];
  /** Where its output was kept (test-artifacts/logs/). */
  logFile: string;
}

/** Every file's time stays in test-artifacts/times/, for a look past the five slowest printed. */
/** A run's label as a file name ("service + browser 1/2" -> "service_browser_1_2"). */
const fileNameOf = (label: string) => label.replace(/\W+/g, "_");
const timesFileOf = (label: string) => path.join(ROOT, "test-artifacts", "times", `${fileNameOf(label)}.json`);

function readTimes(label: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(timesFileOf(label), "utf8")) as Record<string, number>;
  } catch {
    return {}; // the run ended before its reporter wrote (a crash): no file times
  }
}

const slowestOf = (times: Record<string, number>) =>
  Object.entries(times)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([f, ms]) => [path.relative(ROOT, f), ms / 1000] as [string, number]);

/** Runs files with mocha, timing the run and its files; a run that fails keeps its code. */
async function timedRun(label: string, tiers: Tier[], args: string[], env: NodeJS.ProcessEnv, quiet = false): Promise<TierResult> {
  const timesFile = timesFileOf(label);
  const logFile = path.join(ROOT, "test-artifacts", "logs", `${fileNameOf(label)}.log`);
  for (const file of [timesFile, logFile]) {
    mkdirSync(path.dirname(file), { recursive: true });
    rmSync(file, { force: true });
  }
  const started = Date.now();
  const code = await runMocha(args, { ...env, TEST_TIMES_FILE: timesFile }, logFile, quiet);
  const seconds = (Date.now() - started) / 1000;
  return { label, tiers, seconds, code, slowest: slowestOf(readTimes(label)), logFile };
}

/**
 * How many stacks the service and browser files share out: two where there are two cores (one shard's
 * tests wait on I/O about half the time, and the other's fill it), TEST_SHARDS=1 for one.
 */
export const shardCount = (): 1 | 2 => (Number(process.env.TEST_SHARDS) === 1 || availableParallelism() < 2 ? 1 : 2);

/** Each file's seconds in the last recorded run (test/file-times.json), for sharing files out evenly. */
const FILE_TIMES_FILE = path.join(ROOT, "test", "file-times.json");

/**
 * Shares files out over shards, the longest first to the least loaded (a file not yet timed counts as
 * the median). The browser files stay on shard 0: the console's Firebase config names its Auth emulator.
 */
export function shardFiles(files: string[], shards: number, seconds: Record<string, number>): string[][] {
  const known = Object.values(seconds).sort((a, b) => a - b);
  const median = known.length ? known[Math.floor(known.length / 2)] : 1;
  const weight = (f: string) => seconds[f] ?? median;
  const out = Array.from({ length: shards }, () => [] as string[]);
  const load = out.map(() => 0);
  const pinned = files.filter((f) => f.startsWith("test/browser/"));
  for (const f of pinned) load[0] += weight(f);
  out[0].push(...pinned);
  for (const f of files.filter((f) => !pinned.includes(f)).sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const least = load.indexOf(Math.min(...load));
    out[least].push(f);
    load[least] += weight(f);
  }
  return out;
}

/** The summary at the end: each run's time against its tier's budget, and its slowest files. */
export function summary(results: TierResult[], full: boolean): { text: string; overBudget: string[] } {
  const lines = ["", "tier times (budget; fails above " + OVER_BUDGET + "x):"];
  const overBudget: string[] = [];
  for (const r of results) {
    const budget = r.tiers.reduce((sum, tier) => sum + BUDGETS[tier], 0);
    // Full-size runs have no budget: they are the nightly and pre-resolve check, or a branch's guarded files.
    const over = !full && !r.label.endsWith("(full size)") && r.seconds > budget * OVER_BUDGET;
    if (over) overBudget.push(`${r.label}: ${r.seconds.toFixed(0)} s > ${OVER_BUDGET} x ${budget} s`);
    lines.push(`  ${r.label.padEnd(22)} ${r.seconds.toFixed(1).padStart(7)} s  (budget ${budget} s)${r.code ? "  FAILED" : ""}${over ? "  OVER BUDGET" : ""}`);
    for (const [file, s] of r.slowest) lines.push(`      ${s.toFixed(1).padStart(6)} s  ${file}`);
  }
  return { text: lines.join("\n"), overBudget };
}

async function main(): Promise<number> {
  const { tiers, rest: extra, full: fullFlag } = tiersOf(process.argv.slice(2));
  const full = fullFlag || process.env.TEST_FULL === "1";
  const scaleEnv: NodeJS.ProcessEnv = full ? { TEST_FULL: "1", TEST_SCALE: "1" } : {};
  // No Google client in a test process may look for a metadata server (a DNS query and 169.254.169.254: off the machine).
  const baseEnv = { ...process.env, METADATA_SERVER_DETECTION: "none", ...scaleEnv };
  const results: TierResult[] = [];
  let stacks: Stack[] = [];
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    for (const child of running) {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        // already gone
      }
    }
    void Promise.all(stacks.map((s) => s.stop())).then(() => process.exit(130));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  const testEnv = (serve: "in-process" | "emulators", info: StackInfo): NodeJS.ProcessEnv => ({
    ...baseEnv,
    ...info.env,
    TEST_TARGET: serve === "emulators" ? "stack" : "service",
    TEST_BASE_URL: info.urls.base,
    TEST_APP_URL: info.urls.app,
    TEST_FUNCTIONS_URL: info.urls.functions,
    TEST_FUNCTIONS_DIRECT_URL: info.urls.functionsDirect,
    TEST_DOMAINS_PORT: String(info.domains.port),
    TEST_DOMAINS_CA: info.domains.caFile,
    TEST_DOMAINS_DEFAULT_HOST: info.domains.defaultHost,
    TEST_STORAGE_EMULATOR: info.storageEmulator ? "1" : "",
    TEST_LOG_FILE: info.logFile,
  });
  /** Starts a stack per shard side by side (shard 0 on the usual ports), runs, and stops them. */
  const withStacks = async (serve: "in-process" | "emulators", shards: Shard[], run: (envs: NodeJS.ProcessEnv[]) => Promise<void>) => {
    if (interrupted) return;
    const started = Date.now();
    const mine = shards.map(() => new Stack());
    stacks.push(...mine);
    try {
      const infos = await Promise.all(mine.map((s, i) => s.start({ functions: serve, shard: shards[i] })));
      const logs = infos.map((info) => path.relative(ROOT, info.logFile)).join(", ");
      const count = shards.length;
      console.log(`${count > 1 ? `${count} stacks` : "stack"} (${serve}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s (mode: ${infos[0].mode}; log: ${logs})`);
      try {
        await run(infos.map((info) => testEnv(serve, info)));
      } finally {
        if (results.some((r) => r.code)) for (const info of infos) console.log(`\n--- last lines of ${info.logFile} ---\n${tailOf(info.logFile)}`);
      }
    } finally {
      await Promise.all(mine.map((s) => s.stop()));
      stacks = stacks.filter((s) => !mine.includes(s));
    }
  };
  try {
    // The unit tier alone needs no emulator, ports or browser.
    if (tiers.some((t) => t !== "unit")) await checkPrerequisites({ chromium: tiers.includes("browser") || tiers.includes("lifecycle") });
    if (tiers.includes("unit")) {
      // One worker per core, at least two and at most four: each worker holds its own copy of the modules.
      const jobs = Number(process.env.UNIT_JOBS) || Math.min(4, Math.max(2, availableParallelism()));
      results.push(await timedRun("unit", ["unit"], [...mochaArgs(tierFiles("unit", full), extra), "--parallel", "--jobs", String(jobs)], baseEnv));
    }
    const inProcess = tiers.filter((t) => TIERS[t].serve === "in-process");
    if (inProcess.length) {
      // The service and browser files, shared out over the stacks and run side by side; shard 0 prints as it
      // goes, the others' output follows it. A shard left with no file (the browser files alone all stay on
      // shard 0) starts no stack.
      const shares = shardFiles(inProcess.flatMap((tier) => tierFiles(tier, full)), shardCount(), recordedSeconds()).filter((share) => share.length);
      const count = shares.length;
      await withStacks("in-process", count > 1 ? [0, 1] : [0], async (envs) => {
        const label = (i: number) => (count > 1 ? `${inProcess.join(" + ")} ${i + 1}/${count}` : inProcess.join(" + "));
        const runs = await Promise.all(shares.map((share, i) => timedRun(label(i), inProcess, [...mochaArgs(share, extra), ...FRESH_DATA], envs[i], i > 0)));
        for (const run of runs.slice(1)) console.log(`\n--- ${run.label} ---\n${readFileSync(run.logFile, "utf8")}`);
        results.push(...runs);
        if (process.argv.includes("--save-times")) saveFileTimes(runs.map((r) => r.label));
        // Full-size files whose guarded code this branch changed run again at full size (scripts/lib/fullSize.ts).
        const guarded = full ? [] : fullSizeFilesFor(changedPaths()).filter((f) => inProcess.some((t) => f.startsWith(TIERS[t].spec.split("/**")[0])));
        if (guarded.length) {
          console.log(`\nchanged code that full-size tests guard: running ${guarded.join(", ")} at full size`);
          results.push(await timedRun("service (full size)", ["service"], mochaArgs(guarded, extra, 600_000), { ...envs[0], TEST_SCALE: "1", TEST_FULL: "1" }));
        }
      });
    }
    const onEmulators = tiers.includes("stack") || (full && tiers.includes("service"));
    const lifecycle = (quiet: boolean) => timedRun("lifecycle", ["lifecycle"], mochaArgs(tierFiles("lifecycle", full), extra, 600_000), baseEnv, quiet);
    // The quick start runs in a clone of its own on the usual ports while the stack tier's emulators run on
    // the second shard's: each spends much of its time waiting on start-ups, so side by side they fill the
    // two cores. Not under test:full, whose lifecycle tests interrupt start-ups at chosen moments.
    const besideStack = onEmulators && tiers.includes("lifecycle") && !full;
    const lifecycleBeside = besideStack ? lifecycle(true) : undefined;
    if (onEmulators) {
      await withStacks("emulators", [besideStack ? 1 : 0], async ([env]) => {
        if (tiers.includes("stack")) results.push(await timedRun("stack", ["stack"], mochaArgs(tierFiles("stack", full), extra, 120_000), env));
        // Under test:full the service files run again through firebase-tools' Hosting and Functions emulators.
        if (full && tiers.includes("service")) results.push(await timedRun("service on emulators", ["service"], [...mochaArgs(tierFiles("service", full), extra, 120_000), ...FRESH_DATA], env));
      });
    }
    if (lifecycleBeside) {
      const run = await lifecycleBeside;
      console.log(`\n--- ${run.label} ---\n${readFileSync(run.logFile, "utf8")}`);
      results.push(run);
    } else if (tiers.includes("lifecycle")) results.push(await lifecycle(false));
    // Full-size runs (test:full, or TEST_SCALE=1 as `npm run fuzz` sets it) have no budget.
    const { text, overBudget } = summary(results, full || process.env.TEST_SCALE === "1");
    // Each failure again, last: a long run's failures are otherwise far above where its output ends.
    for (const run of results.filter((r) => r.code)) console.log(`\n=== failed: ${run.label} (${path.relative(ROOT, run.logFile)}) ===\n${failuresOf(readFileSync(run.logFile, "utf8"))}`);
    console.log(text);
    for (const line of overBudget) console.log(`over budget: ${line} (test/budgets.json)`);
    const failed = results.find((r) => r.code);
    return failed ? failed.code : overBudget.length ? 1 : 0;
  } catch (error) {
    if (error instanceof PrerequisiteError) console.error(error.message);
    else {
      console.error(error instanceof Error ? error.message : error);
      console.log(tailOf(LOG_FILE));
    }
    return 1;
  } finally {
    await Promise.all(stacks.map((s) => s.stop()));
  }
}

/** test/file-times.json: the seconds each file took when last recorded (`npm test -- --save-times`). */
function recordedSeconds(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(FILE_TIMES_FILE, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

function saveFileTimes(labels: string[]): void {
  const seconds = recordedSeconds();
  for (const label of labels) for (const [file, ms] of Object.entries(readTimes(label))) seconds[path.relative(ROOT, file)] = Math.round(ms / 100) / 10;
  const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(FILE_TIMES_FILE, JSON.stringify(sorted, null, 2) + "\n");
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
