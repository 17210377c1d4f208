// Loaded with `--require` by the service and browser tiers (scripts/test.ts): each test file starts on an
// empty Firestore emulator but for the daily secrets (KEPT below), so no file's speed depends on what earlier
// files wrote (the emulator answers collection-group and array-contains queries by scanning). Files make their
// own merchants and codes, so none depends on another's data. The clearing happens before a file's first
// suite runs, hooks included.
import Mocha from "mocha";

const { FIRESTORE_EMULATOR_HOST: host, GCLOUD_PROJECT: project } = process.env;

/**
 * Collections kept across files: the daily secrets visitor hashes are keyed with. Every instance keeps the
 * day's secret in memory once read, and production never deletes a live day's secret; deleted here under
 * running instances (the Functions emulator's worker processes outlive a file), a new worker would make a
 * second secret for the same day while older ones hash with the first, and one visitor would count as two.
 */
const KEPT = ["scanSecrets"];

const documentsUrl = () => `http://${host}/v1/projects/${project}/databases/(default)/documents`;
const OWNER = { Authorization: "Bearer owner" }; // the emulator's admin credential: rules do not apply

async function readKept(): Promise<Array<{ collection: string; id: string; fields: unknown }>> {
  const kept: Array<{ collection: string; id: string; fields: unknown }> = [];
  for (const collection of KEPT) {
    const res = await fetch(`${documentsUrl()}/${collection}?pageSize=300`, { headers: OWNER });
    if (!res.ok) throw new Error(`freshData: reading ${collection} answered ${res.status}`);
    const { documents = [] } = (await res.json()) as { documents?: Array<{ name: string; fields: unknown }> };
    for (const doc of documents) kept.push({ collection, id: doc.name.split("/").pop()!, fields: doc.fields });
  }
  return kept;
}

/** Deletes every document in the emulator's default database (its own endpoint; never a real project) but the KEPT ones. */
export async function clearFirestore(): Promise<void> {
  if (!host || !project?.startsWith("demo-")) throw new Error("freshData: only against a demo- project on the Firestore emulator");
  const kept = await readKept();
  const res = await fetch(`http://${host}/emulator/v1/projects/${project}/databases/(default)/documents`, { method: "DELETE" });
  if (!res.ok) throw new Error(`freshData: clearing the Firestore emulator answered ${res.status}`);
  for (const doc of kept) {
    const put = await fetch(`${documentsUrl()}/${doc.collection}?documentId=${encodeURIComponent(doc.id)}`, {
      method: "POST",
      headers: { ...OWNER, "Content-Type": "application/json" },
      body: JSON.stringify({ fields: doc.fields }),
    });
    if (!put.ok) throw new Error(`freshData: restoring ${doc.collection}/${doc.id} answered ${put.status}`);
  }
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
