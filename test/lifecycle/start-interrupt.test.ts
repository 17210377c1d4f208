// Ctrl-C at any moment of `npm start` (once or twice) stops every process it started and frees every port.
// Runs before npm test's own stack (scripts/test.ts), on a state directory of its own.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT } from "../../scripts/lib/stack";
import { openPorts, Terminal } from "./harness";

describe("npm start interrupted at each point of its start-up", function () {
  this.timeout(300_000);
  let stateDir: string;
  before(() => {
    stateDir = mkdtempSync(path.join(tmpdir(), "svc-state-"));
  });
  after(() => rmSync(stateDir, { recursive: true, force: true }));

  const points: { when: string; after: RegExp; delayMs: number; presses: number }[] = [
    { when: "while it checks prerequisites", after: /checking prerequisites/, delayMs: 0, presses: 1 },
    { when: "as firebase-tools starts (Ctrl-C twice)", after: /firebase-tools started/, delayMs: 300, presses: 2 },
    { when: "as the Firestore emulator starts listening", after: /Firestore emulator listening/, delayMs: 0, presses: 1 },
    { when: "as functions load (Ctrl-C twice)", after: /functions loaded/, delayMs: 0, presses: 2 },
    { when: "once it is running", after: /Stop: Ctrl-C/, delayMs: 0, presses: 1 },
  ];
  for (const point of points) {
    it(`leaves no process and no bound port: ${point.when}`, async () => {
      assert.deepEqual(await openPorts(), [], "the stack's ports are free before");
      // The build ran before the tests; the quick-start test covers a start with its build.
      const terminal = new Terminal("npm", ["start", "--silent"], ROOT, { ...process.env, START_SKIP_BUILD: "1", SVC_STATE_DIR: stateDir });
      try {
        await terminal.waitFor(point.after);
        await new Promise((r) => setTimeout(r, point.delayMs));
        for (let i = 0; i < point.presses; i++) {
          terminal.ctrlC();
          await new Promise((r) => setTimeout(r, 400));
        }
        const left = await terminal.leftovers();
        assert.deepEqual(left, [], `processes left behind:\n${terminal.describe(left)}\n${terminal.output}`);
        assert.deepEqual(await openPorts(), [], `ports still bound after the exit:\n${terminal.output}`);
      } finally {
        terminal.cleanUp();
      }
    });
  }
});
