// Crowds on a capped code under the Firestore SDK's own retries (issue 54), full-size work beside
// scan-retries.test.ts: four redirect instances, each a process of its own over the REST transport, behind
// the loopback proxy that drops the first answer of every scan commit, so the SDK re-sends each. Exactly N
// of a crowd are admitted; returning visitors are counted exactly and their first-scan guards are found
// taken before the commit. And a commit (a batch's, a transaction's) that Firestore keeps refusing is given
// up within the commit's retry budget: a test that waits the budget out. Runs under `npm run test:full`, and
// on any branch that changes the scan write, the cap's allowances or the commit's retry settings
// (scripts/lib/fullSize.ts).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import { NODE22 } from "../../scripts/lib/stack";
import { COMMIT_RETRY_BUDGET_MS } from "../../functions/src/core/firebase";
import { firestore } from "../helpers/merchants";
import { scaled } from "../helpers/scale";
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../helpers/redirectInstances";
import { dropFirstCommits, resentCommits, startFirestoreProxy, type FirestoreProxy } from "../helpers/firestoreProxy";
import { ensureWorkspaceForOwner } from "../../functions/src/store/workspaces";
import { createCode } from "../../functions/src/codes/service";
import { setCodeCampaign } from "../../functions/src/campaigns/service";
import { cappedCode, codeDay, DESTINATION, FALLBACK, PHONE, scan, scanCommit, type Answer } from "../helpers/scanRetries";

const TX_FIXTURE = path.resolve(__dirname, "..", "fixtures", "transaction-commit.ts");

/** One transaction (one attempt) through the service's Firestore client at `host`, in a process of its own: how long it took, and its error's code (null: committed). */
async function transactionBehind(host: string, doc: string): Promise<{ ms: number; code: unknown }> {
  const child = spawn(NODE22, ["--import", "tsx", TX_FIXTURE], { cwd: path.resolve(__dirname, "..", ".."), stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, FIRESTORE_EMULATOR_HOST: host, TX_DOC: doc } });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the transaction's process exited with ${code} before its answer`)));
  });
  return JSON.parse(line) as { ms: number; code: unknown };
}

// 200 people at every size: at 60 one run of two admitted 15 of the cap's 20 (allowances freed after the
// crowd had gone: to look into), so the crowd stays large enough to take every allowance freed late.
const CROWD = 200;
// 160 returning visitors at full size; at least 96, two rounds of 48 at a time.
const RETURNING = scaled(160, 96);

describe("scan counts under the SDK's own commit retries: crowds over four instances (issue 54, full size)", function () {
  this.timeout(180_000);
  let proxy: FirestoreProxy;
  let instances: RedirectInstance[] = [];
  let merchantId: string;

  before(async () => {
    proxy = await startFirestoreProxy();
    ({ merchantId } = (await ensureWorkspaceForOwner(`retries-${randomUUID()}`, "Retries")).workspace);
  });
  afterEach(async () => {
    await stopRedirectInstances(instances);
    instances = [];
    proxy.rule = () => "pass";
  });
  after(async () => {
    await proxy.close();
  });

  it(`${CROWD} concurrent people on a capped code, over 4 instances behind the proxy dropping every commit's first answer: exactly N admitted`, async () => {
    const N = 20;
    // A workspace of its own: capSpent documents name their lease, not their code, and the capped codes of
    // the tests before this one spend allowances in the shared workspace (14 of them: 34 counted for 20).
    const { merchantId } = (await ensureWorkspaceForOwner(`crowd-${randomUUID()}`, "Crowd")).workspace;
    const code = await createCode(merchantId, { title: "capped, lost answers", destinationUrl: DESTINATION, dynamic: true });
    await setCodeCampaign(merchantId, { codeId: code.codeId }, { rules: [], humanScanCap: N, fallbackUrl: FALLBACK } as never);
    instances = await startRedirectInstances(4, { FIRESTORE_EMULATOR_HOST: proxy.host });
    // Warm each instance (a preview: it takes no allowance), then drop the first answer of every scan commit.
    for (const instance of instances) assert.equal((await scan(instance, code.uniqueQRCodeID, "Twitterbot/1.0", "192.0.2.1")).status, 302);
    const before = proxy.commits.length;
    proxy.rule = dropFirstCommits(Infinity, scanCommit);
    const person = async (i: number): Promise<{ answer: Answer; busy: number }> => {
      // The one-moment page (200, Refresh) loads the code again, as the person's browser does.
      for (let busy = 0; ; busy++) {
        const answer = await scan(instances[i % 4], code.uniqueQRCodeID, PHONE(i), `198.51.${100 + (i >> 8)}.${i & 255}`);
        if (answer.status !== 200 || busy >= 10) return { answer, busy };
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const results = await Promise.all(Array.from({ length: CROWD }, (_, i) => person(i)));
    for (const { answer } of results) assert.equal(answer.status, 302, JSON.stringify(answer));
    const admitted = results.filter((r) => r.answer.location === DESTINATION).length;
    const busy = results.reduce((sum, r) => sum + r.busy, 0);
    console.log(`      ${proxy.commits.length - before} commits (${resentCommits({ ...proxy, commits: proxy.commits.slice(before) })} re-sent by the SDK), ${busy} one-moment reloads`);
    assert.equal(admitted, N, "exactly N people reach the destination");
    assert.equal(results.filter((r) => r.answer.location === FALLBACK).length, CROWD - N);
    assert.ok(resentCommits({ ...proxy, commits: proxy.commits.slice(before) }) >= 1, "the SDK re-sent commits");
    const counts = await codeDay(merchantId, code.codeId);
    // A one-moment reload after a write whose outcome was unknown (it landed) is that person's later scan: a
    // person's scan again (n), spending nothing (docs/campaign-rules.md, "A fair count of people").
    assert.equal(counts.u, N, "N people counted, once each");
    assert.ok(counts.n >= N, `${counts.n} people's scans`);
    // Its workspace's only capped code: every capSpent document there is one of its allowances.
    const spent = (await firestore().collection("workspaces").doc(merchantId).collection("capSpent").count().get()).data().count;
    assert.equal(spent, N, "one spent allowance per admitted person, none handed back and spent again");
  });

  it("returning visitors of a capped code across 4 instances: counted exactly, and their first-scan guards found taken before the commit, not by a refused one", async () => {
    const code = await cappedCode(merchantId, "returning");
    instances = await startRedirectInstances(4, { FIRESTORE_EMULATOR_HOST: proxy.host });
    for (const instance of instances) assert.equal((await scan(instance, code.uniqueQRCodeID, "Twitterbot/1.0", "192.0.2.1")).status, 302);
    const people = RETURNING;
    let reloads = 0;
    /** Runs the visits 48 at a time (busy instances: a scan waits for a commit in flight); visit i is person i on instance `at(i)`. */
    const run = async (at: (i: number) => number) => {
      const answers: Answer[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 48 }, async () => {
          while (next < people) {
            const i = next++;
            // A scan whose allowance did not come in time gets the one-moment page (200), which loads the code again.
            for (let busy = 0; ; busy++) {
              answers[i] = await scan(instances[at(i)], code.uniqueQRCodeID, PHONE(i), `198.51.101.${i + 1}`);
              if (answers[i].status !== 200 || busy >= 10) break;
              reloads++;
              await new Promise((r) => setTimeout(r, 200));
            }
          }
        }),
      );
      return answers;
    };
    const first = await run((i) => i % 4);
    const refusedBefore = proxy.commitStatuses.get(409) ?? 0;
    const commitsBefore = proxy.commits.length;
    // Each person again, on another instance than the one that counted their first scan.
    const again = await run((i) => (i + 1) % 4);
    const refused = (proxy.commitStatuses.get(409) ?? 0) - refusedBefore;
    console.log(`      ${people} returning visitors: ${proxy.commits.length - commitsBefore} commits, ${refused} refused`);
    for (const a of [...first, ...again]) assert.deepEqual([a.status, a.counted], [302, "true"]);
    const counts = await codeDay(merchantId, code.codeId);
    // A one-moment answer is given when a scan's write is late, not lost: it may land, and its reload is that
    // person's later scan, counted too. So each visit counts once, plus at most one per reload.
    assert.ok(counts.n >= 2 * people && counts.n <= 2 * people + reloads, `${counts.n} people's scans for ${2 * people} visits and ${reloads} reloads`);
    assert.equal(counts.u, people, "each person unique once");
    // Without the read, every returning visitor's scan fails its group's commit (ALREADY_EXISTS on `u~`). With
    // it, only a scan that finds its instance idle (it commits at once, unread) or whose read is still out
    // after a whole commit and GUARD_WAIT_MS more is refused, and costs a commit of its own. Quiet runs refuse
    // 4 to 8 of 96; a loaded 2-core CI run refused 15 (reads slowed beside two stacks), hence a quarter.
    assert.ok(refused <= people / 4, `${refused} commits refused for ${people} returning visitors`);
  });

  it("a capped code's commit, and a transaction's, that Firestore keeps refusing are given up within the commit's retry budget, not after the SDK's 600 s", async () => {
    const code = await cappedCode(merchantId, "refused commits");
    instances = await startRedirectInstances(1, { FIRESTORE_EMULATOR_HOST: proxy.host });
    const [instance] = instances;
    assert.equal((await scan(instance, code.uniqueQRCodeID, "Twitterbot/1.0", "192.0.2.1")).status, 302);
    const attempts: number[] = [];
    const txAttempts: number[] = [];
    proxy.rule = ({ method, body }) => {
      if (method !== "commit") return "pass";
      if (scanCommit(body)) return attempts.push(Date.now()), "refuse";
      // A transaction's commit names its transaction; the SDK sends it with the client's own settings, not a batch's.
      if (body.includes('"transaction"')) return txAttempts.push(Date.now()), "refuse";
      return "pass";
    };
    // Beside the scan: one transaction (one attempt of it) through the service's client, behind the proxy too.
    const transaction = transactionBehind(proxy.host, `workspaces/${merchantId}/txProbe/refused`);
    const started = Date.now();
    const answer = await scan(instance, code.uniqueQRCodeID, PHONE(3), "198.51.100.201");
    // Its allowance was not recorded: not admitted, the one-moment page loads the code again (it never goes dark).
    assert.deepEqual([answer.status, answer.location, answer.counted], [200, null, "unknown"], "the one-moment page, its count unknown");
    // Past the budget (and a margin for the last attempt's back-off), the SDK has stopped sending it.
    await new Promise((r) => setTimeout(r, COMMIT_RETRY_BUDGET_MS + 5_000 - (Date.now() - started)));
    const seen = attempts.length;
    await new Promise((r) => setTimeout(r, 3_000));
    assert.ok(seen >= 2, `the SDK re-sent the commit (${seen} attempts)`);
    assert.equal(attempts.length, seen, "no attempt after the budget");
    assert.ok(attempts[attempts.length - 1] - attempts[0] <= COMMIT_RETRY_BUDGET_MS, `attempts over ${attempts[attempts.length - 1] - attempts[0]} ms`);
    const counts = await codeDay(merchantId, code.codeId);
    assert.equal(counts.n, undefined, "nothing of the refused scan was counted");
    // Unbounded, one attempt of a transaction re-sends its commit for 60 s (and runTransaction makes up to 5).
    const tx = await transaction;
    assert.ok(txAttempts.length >= 2, `the SDK re-sent the transaction's commit (${txAttempts.length} attempts)`);
    assert.ok(txAttempts[txAttempts.length - 1] - txAttempts[0] <= COMMIT_RETRY_BUDGET_MS, `transaction commit attempts over ${txAttempts[txAttempts.length - 1] - txAttempts[0]} ms`);
    assert.ok(tx.ms <= COMMIT_RETRY_BUDGET_MS + 3_000, `the transaction failed after ${tx.ms} ms`);
    assert.notEqual(tx.code, null, "the transaction did not commit");
  });
});
