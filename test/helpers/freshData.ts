// Loaded with `--require` by the service and browser tiers (scripts/test.ts): each test file starts on an
// empty Firestore emulator, so no file's speed depends on what earlier files wrote (the emulator answers
// collection-group and array-contains queries by scanning). Files make their own merchants and codes, so
// none depends on another's data. The clearing happens before a file's first suite runs, hooks included.
import Mocha from "mocha";

const { FIRESTORE_EMULATOR_HOST: host, GCLOUD_PROJECT: project } = process.env;

/** Deletes every document in the emulator's default database (its own endpoint; never a real project). */
export async function clearFirestore(): Promise<void> {
  if (!host || !project?.startsWith("demo-")) throw new Error("freshData: only against a demo- project on the Firestore emulator");
  const res = await fetch(`http://${host}/emulator/v1/projects/${project}/databases/(default)/documents`, { method: "DELETE" });
  if (!res.ok) throw new Error(`freshData: clearing the Firestore emulator answered ${res.status}`);
}

type RunSuite = (this: Mocha.Runner, suite: Mocha.Suite, fn: (errSuite?: Mocha.Suite) => void) => void;
const runner = Mocha.Runner.prototype as unknown as { runSuite: RunSuite };
const runSuite = runner.runSuite;
let lastFile: string | undefined;
runner.runSuite = function (suite, fn) {
  const file = suite.parent?.root ? suite.file : undefined;
  if (!file || file === lastFile) return runSuite.call(this, suite, fn);
  lastFile = file;
  clearFirestore().then(
    () => runSuite.call(this, suite, fn),
    (error: unknown) => {
      console.error(error);
      runSuite.call(this, suite, fn);
    },
  );
};
