// One workspace cannot fill the catalogue queue (docs/decisions.md, "A workspace's share of the catalogue
// queue"): its steps share two slots, packages of existing codes have a quota, and webhook changes in a big
// workspace make one link-sync chain, not one each. Called in this process against the emulators, with the
// enqueue passed in (the Cloud Tasks emulator ignores scheduleTime, and a chain is only started here).
import assert from "node:assert/strict";
import { createMerchant, firestore } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { JOB_SLOT_LEASE_MS, JOB_SLOTS_PER_WORKSPACE, releaseJobSlot, takeJobSlot, type JobTask } from "../../functions/src/store/jobQueue";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { startJob } from "../../functions/src/jobs/service";
import { continueLinkSync, syncLinkWebhooks } from "../../functions/src/webhooks/service";

describe("a workspace's share of the catalogue queue", function () {
  this.timeout(90_000);

  it(`lets a workspace's steps hold ${JOB_SLOTS_PER_WORKSPACE} slots at once; a job's next step takes its own over; a killed step's lapses`, async () => {
    const m = await createMerchant();
    const now = new Date();
    const a = await takeJobSlot(m.merchantId, "job_a", now);
    const b = await takeJobSlot(m.merchantId, "links", now);
    assert.ok(a && b);
    assert.equal(await takeJobSlot(m.merchantId, "job_c", now), null, "both slots held: the step waits");
    const other = await createMerchant();
    assert.ok(await takeJobSlot(other.merchantId, "job_c", now), "another workspace's step is not held back");
    // job_a's next step takes job_a's slot over; the earlier step's release then leaves it.
    const aNext = await takeJobSlot(m.merchantId, "job_a", now);
    assert.ok(aNext);
    await releaseJobSlot(m.merchantId, "job_a", a!);
    assert.equal(await takeJobSlot(m.merchantId, "job_c", now), null, "job_a's next step still holds its slot");
    await releaseJobSlot(m.merchantId, "job_a", aNext!);
    assert.ok(await takeJobSlot(m.merchantId, "job_c", now), "released: another job's step runs");
    // A step killed without its release: its lease lapses.
    assert.equal(await takeJobSlot(m.merchantId, "job_d", now), null);
    assert.ok(await takeJobSlot(m.merchantId, "job_d", new Date(now.getTime() + JOB_SLOT_LEASE_MS + 1)));
  });

  it("counts packages of existing codes against the workspace's codePackages quota", async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "codePackages", 1);
    const queued: JobTask[] = [];
    const enqueue = async (t: JobTask) => void queued.push(t);
    const start = () => startJob(m.merchantId, m.uid, { input: { format: "codes", codeIds: ["code_one", "code_two"] }, publish: false, print: { sideMm: 30 } }, enqueue);
    const job = await start();
    assert.equal(job.kind, "codes");
    await assert.rejects(start(), (e: any) => e.code === "RATE_LIMITED" && /print packages of existing codes/.test(e.message));
    assert.equal(queued.length, 1);
  });

  it("starts one link-sync chain per workspace: a change while it runs restarts it from the first link", async () => {
    const m = await createMerchant();
    for (let i = 0; i < 3; i++) toolResult(await callTool("svc.qr.create", { title: `c${i}`, destinationUrl: `https://example.com/${i}`, dynamic: true }, m.apiKey));
    const queued: JobTask[] = [];
    const enqueue = async (t: JobTask) => void queued.push(t);
    // A budget of one link stands in for a workspace past LINK_SYNC_IN_REQUEST.
    assert.ok(await syncLinkWebhooks(m.merchantId, 1, enqueue));
    assert.ok(await syncLinkWebhooks(m.merchantId, 1, enqueue));
    assert.equal(queued.length, 1, "the second change joins the running chain");
    const chain = (await firestore().collection("maintenance").doc(`linkSync_${m.merchantId}`).get()).data()!;
    assert.equal(chain.generation, 2);
    const first = queued[0] as Extract<JobTask, { step: "links" }>;
    assert.equal(first.generation, 1);
    // The chain's step sees generation 2: it starts over (all three links, in one task's budget) and ends.
    await continueLinkSync(m.merchantId, first.after, first.generation, enqueue);
    assert.equal(queued.length, 1);
    assert.equal((await firestore().collection("maintenance").doc(`linkSync_${m.merchantId}`).get()).get("runningAt"), null);
    // No chain runs now: the next change starts one.
    assert.ok(await syncLinkWebhooks(m.merchantId, 1, enqueue));
    assert.equal(queued.length, 2);
  });
});
