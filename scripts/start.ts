// `npm start`: the whole local service on the Firebase emulators, a seeded demo merchant, and the URLs
// and demo key printed. Ctrl-C stops everything (no java process is left behind).
import path from "node:path";
import { ROOT, Stack, tailOf } from "./lib/stack";

async function main(): Promise<void> {
  const stack = new Stack();
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("\nstopping emulators...");
    await stack.stop();
    console.log("stopped.");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  console.log("starting the Firebase emulators (first start takes ~15 s)...");
  let info;
  try {
    info = await stack.start();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    console.error(tailOf(path.join(ROOT, ".emulator-data", "emulators.log"), 30));
    await shutdown(1);
    return;
  }
  Object.assign(process.env, info.env);
  const { seedDemo, DEMO_USER } = await import("./lib/seed");
  const demo = await seedDemo();
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
  Emulators                  Firestore ${info.env.FIRESTORE_EMULATOR_HOST}, Auth ${info.env.FIREBASE_AUTH_EMULATOR_HOST}

  Demo merchant              ${demo.merchantId} (console sign-in: ${DEMO_USER.email} / ${DEMO_USER.password})
  Demo API key               ${demo.apiKey}

  Try it:
    curl -s ${u.mcp} -H 'Content-Type: application/json' -H 'Authorization: Bearer ${demo.apiKey}' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc.ping","arguments":{}}}'

  Logs: ${path.relative(ROOT, info.logFile)}    Stop: Ctrl-C
`);
  if (process.env.START_EXIT_AFTER_READY) await shutdown(0);
  await new Promise(() => undefined);
}

void main();
