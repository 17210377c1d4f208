// `npm test`: start the emulator stack, run every mocha test against it, stop everything, and exit
// with the tests' result. Extra arguments go to mocha (e.g. `npm test -- --grep sandbox`).
import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT, Stack, tailOf } from "./lib/stack";

async function main(): Promise<number> {
  const stack = new Stack();
  const stopOnSignal = () => void stack.stop().then(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const started = Date.now();
    const info = await stack.start();
    console.log(`emulators ready in ${((Date.now() - started) / 1000).toFixed(1)} s (mode: ${info.mode}; log: ${path.relative(ROOT, info.logFile)})`);
    const mocha = path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js");
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [mocha, ...process.argv.slice(2)], {
        cwd: ROOT,
        stdio: "inherit",
        env: {
          ...process.env,
          ...info.env,
          TEST_BASE_URL: info.urls.base,
          TEST_APP_URL: info.urls.app,
          TEST_FUNCTIONS_URL: info.urls.functions,
          TEST_STORAGE_EMULATOR: info.storageEmulator ? "1" : "",
        },
      });
      child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
    if (code !== 0) console.log(`\n--- last lines of ${info.logFile} ---\n${tailOf(info.logFile)}`);
    return code;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    if (stack.info) console.log(tailOf(stack.info.logFile));
    else console.log(tailOf(path.join(ROOT, ".emulator-data", "emulators.log")));
    return 1;
  } finally {
    await stack.stop();
  }
}

main().then((code) => process.exit(code));
