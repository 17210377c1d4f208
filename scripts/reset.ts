// `npm run reset`: forgets what `npm start` saved (emulator data and the demo key), so the next start
// begins empty with a new demo key. Refuses while a stack is running (it would save its state again on exit).
import { rmSync } from "node:fs";
import path from "node:path";
import { LOCAL_FRONT_PORTS } from "../functions/src/core/constants";
import { portOpen, ROOT, SAVED_DIR } from "./lib/stack";

async function main(): Promise<number> {
  if (await portOpen(LOCAL_FRONT_PORTS.site)) {
    console.error("A local stack is running: stop it (Ctrl-C in its terminal) first, or it saves its state again on exit.");
    return 1;
  }
  rmSync(SAVED_DIR, { recursive: true, force: true });
  console.log(`removed ${path.relative(ROOT, SAVED_DIR)} (emulator data and the demo key): the next \`npm start\` begins empty`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
