// A catalogue job whose function's process is killed midway resumes to exactly one code per row: Cloud Tasks
// runs the interrupted step again. Only firebase-tools' Functions emulator runs the function in a process of
// its own that a test can kill, so this is a stack test, run under `npm run test:full`; on every change
// test/service/workloads/jobs.test.ts injects a failure mid-chunk in process instead.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { api, codesIn, csvOf, finished } from "../helpers/jobs";
import { logLinesWith } from "../helpers/logs";
import { createMerchant, firestore } from "../helpers/merchants";
import { eventually } from "../helpers/poll";
import { scaled } from "../helpers/scale";

/** The functions emulator's worker processes serving one function (its environment names the target). */
function workersOf(target: string): number[] {
  const pids = execFileSync("pgrep", ["-f", "functionsEmulatorRuntime"], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`FUNCTION_TARGET=${target}`);
    } catch {
      return false;
    }
  });
}

describe("stack: catalogue jobs", function () {
  this.timeout(900_000);
  it("resumes a job whose function is killed midway, to exactly one code per row", async () => {
    const other = await createMerchant();
    // At least 800 rows (8 chunks): the kill at 100 codes must land while the step is still making chunks.
    const rows = scaled(1_500, 800);
    const job = await api(other.apiKey, "POST", "/api/jobs", { format: "csv", csv: csvOf(rows, "kill") });
    assert.equal(job.status, 202);
    // Wait until a chunk or two are in, then kill the worker running the job's function, mid-chunk.
    await eventually(async () => (await api(other.apiKey, "GET", `/api/jobs/${job.body.jobId}`)).body.created, (n) => n >= 100, { timeoutMs: 120_000, what: "the first chunks" });
    const killed = workersOf("catalogueJob");
    assert.ok(killed.length >= 1, "the job's worker is running");
    for (const pid of killed) process.kill(pid, "SIGKILL");
    const done = await finished(other.apiKey, job.body.jobId);
    assert.equal(done.state, "done", JSON.stringify(done));
    assert.equal(done.created + done.reused, rows);
    assert.equal(await codesIn(other.merchantId), rows, "exactly one code per row after the restart");
    const refs = await firestore().collection("workspaces").doc(other.merchantId).collection("externalRefs").count().get();
    assert.equal(refs.data().count, rows);
    // The kill interrupted a step, which Cloud Tasks ran again (jobs/task.ts logs every retried step): a kill
    // that landed between two tasks would have interrupted nothing.
    const retried = await logLinesWith(["job.step_retried", job.body.jobId]);
    assert.ok(retried.length >= 1, "a step of the job was retried after the kill");
  });

});
