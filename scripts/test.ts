// `npm test`: run every mocha test and exit with the result; extra arguments go to mocha (e.g.
// `npm test -- --grep sandbox`). Two phases, since both need the stack's fixed ports:
//  1. test/lifecycle: tests that start and interrupt stacks of their own (npm start, the README's quick start);
//  2. every other test against one stack started here from empty state (npm start's saved state is never
//     read or written), stopped at the end.
// Ctrl-C at any moment stops everything this started.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { checkPrerequisites, PrerequisiteError, ROOT, Stack, tailOf, LOG_FILE } from "./lib/stack";

const mocha = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");
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
  const extra = process.argv.slice(2);
  try {
    await checkPrerequisites({ chromium: true });
    const lifecycle = await runMocha(["--no-config", "--node-option", "import=tsx", "--timeout", "600000", "--exit", "test/lifecycle/**/*.test.ts", ...extra], process.env);
    if (lifecycle !== 0) return lifecycle;
    const started = Date.now();
    const info = await stack.start();
    console.log(`emulators ready in ${((Date.now() - started) / 1000).toFixed(1)} s (mode: ${info.mode}; log: ${path.relative(ROOT, info.logFile)})`);
    const code = await runMocha(extra, {
      ...process.env,
      ...info.env,
      TEST_BASE_URL: info.urls.base,
      TEST_APP_URL: info.urls.app,
      TEST_FUNCTIONS_URL: info.urls.functions,
      TEST_STORAGE_EMULATOR: info.storageEmulator ? "1" : "",
    });
    if (code !== 0) console.log(`\n--- last lines of ${info.logFile} ---\n${tailOf(info.logFile)}`);
    return code;
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

main().then((code) => process.exit(code));
