// `npm start`: the whole local service on the Firebase emulators, a seeded demo merchant, and the URLs
// and demo key printed. Each step is reported as it completes. State (emulator data and the demo key)
// is kept in .emulator-data/ across restarts; `npm run reset` forgets it. Ctrl-C at any moment, once or
// more, stops every process it started. package.json runs it with `node --import tsx`, not the tsx CLI:
// that CLI's signal relay SIGKILLs a child that does not confirm a Ctrl-C at once, which would orphan the
// emulators.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { statSync } from "node:fs";
import { checkPrerequisites, LOG_FILE, PrerequisiteError, ROOT, SAVED_DIR, Stack, STATE_DIR, tailOf } from "./lib/stack";

const started = Date.now();
const say = (step: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${step}`);

/** Whether firebase-tools wrote the emulators' state (its export metadata) at or after `since`. */
function savedSince(since: number): boolean {
  try {
    return statSync(path.join(STATE_DIR, "firebase-export-metadata.json")).mtimeMs >= since - 1000;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const stack = new Stack();
  let build: ChildProcess | undefined;
  let interrupted = false;
  let stopAskedAt = 0;
  stack.stopOnSignals(
    () => {
      interrupted = true;
      stopAskedAt = Date.now();
      build?.kill("SIGKILL");
      console.log("\nstopping (saving the emulators' state)... a second Ctrl-C changes nothing, it is being cleaned up");
    },
    0,
    // firebase-tools writes the export's metadata each time it saves on exit; before the emulators ran it saves nothing.
    () => console.log(savedSince(stopAskedAt) ? `stopped; state saved in ${path.relative(ROOT, SAVED_DIR)}/` : "stopped; nothing new saved (the emulators had not started, or did not finish saving)"),
  );

  try {
    say("checking prerequisites (Node 22, Java, Firestore emulator, free ports)");
    await checkPrerequisites({ ui: true });
    if (!process.env.START_SKIP_BUILD) {
      say("building the functions and the console (npm run build)");
      build = spawn("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], shell: process.platform === "win32" });
      const code = await new Promise<number | null>((resolve) => build!.on("exit", resolve));
      build = undefined;
      if (code !== 0) throw new Error(`the build failed (exit ${code}); its errors are above`);
      say("built");
    }
    say(`starting the Firebase emulators (log: ${path.relative(ROOT, LOG_FILE)}; follow it with \`npm run logs\`)`);
    const info = await stack.start({ persist: true, ui: true, onStep: say });
    Object.assign(process.env, info.env);
    say("seeding the demo merchant");
    const { seedDemo, DEMO_USER } = await import("./lib/seed");
    const demo = await seedDemo({ keepKey: true });
    say(demo.reused ? "demo merchant ready (demo key kept from the last start)" : "demo merchant ready (new demo key)");
    const u = info.urls;
    console.log(`
  svc merchant QR service is running (Firestore via ${info.mode}${info.storageEmulator ? ", Storage emulator" : ", local image store"})

  Public site (base_url)     ${u.base}
  Site metadata API          ${u.base}/api
  App host (app_url)         ${u.app}
  MCP tool server            ${u.mcp}
  Sandbox generator          ${u.app}/api/generate-qr-code
  Merchant console           ${u.console}
  Functions (direct)         ${u.functions}/<name>
  Merchants' hosts (HTTPS)   https://<an active domain>:${info.domains.port}/qr/<id> (resolve the name to 127.0.0.1; trust ${path.relative(ROOT, info.domains.caFile)}, the local CA)
  Emulators                  Firestore ${info.env.FIRESTORE_EMULATOR_HOST}, Auth ${info.env.FIREBASE_AUTH_EMULATOR_HOST}, Pub/Sub ${info.env.PUBSUB_EMULATOR_HOST} (scan stream)
  Emulator UI                ${u.emulatorUi ?? info.uiOff}

  Demo merchant              ${demo.merchantId} (console sign-in: ${DEMO_USER.email} / ${DEMO_USER.password})
  Demo API key               ${demo.apiKey}

  Try it:
    curl -s ${u.mcp} -H 'Content-Type: application/json' -H 'Authorization: Bearer ${demo.apiKey}' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc.ping","arguments":{}}}'

  State: ${path.relative(ROOT, STATE_DIR)} (saved on Ctrl-C, loaded at the next start; \`npm run reset\` forgets it)
  Logs: \`npm run logs\`    Stop: Ctrl-C
`);
    if (process.env.START_EXIT_AFTER_READY) process.kill(process.pid, "SIGINT");
  } catch (error) {
    if (interrupted) return; // the signal handler stops the stack and exits
    if (error instanceof PrerequisiteError) console.error(error.message);
    else {
      console.error(error instanceof Error ? error.message : error);
      console.error(`--- last lines of ${path.relative(ROOT, LOG_FILE)} ---\n${tailOf(LOG_FILE, 30)}`);
    }
    await stack.stop();
    process.exit(1);
  }
}

void main();
