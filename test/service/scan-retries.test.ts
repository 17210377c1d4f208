// Scan counts under the Firestore SDK's own retries (issue 54): an HTTP proxy on loopback sits between the
// processes that count scans (each a process of its own, over the REST transport the service uses) and the
// emulator. It forwards a scan's `:commit`, drops the emulator's answer and returns 503 UNAVAILABLE, so the
// SDK itself sends the very same commit again: people, uniques, bots, repeats and cap allowances must each
// count once, and a code's first link read that fails answers 503, never 404. Scans of a code with a cap
// are counted by the redirect before its answer (scans/record.ts): redirect instances behind the proxy.
// Scans of any other code are counted by the scan consumer (scans/consume.ts): consumer instances behind it.
// A zone read Firestore never answers holds no scan. Crowds of people on a capped code over four instances
// behind the proxy (full-size work), and the commit's retry budget (a wait of its length) are in
// scan-retries-crowds.test.ts, under `npm run test:full` and on a branch that changes the code it guards.
// Needs only the Firestore and Pub/Sub emulators.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ZONE_READ_DEADLINE_MS } from "../../functions/src/scans/timeZones";
import { firestore } from "../helpers/merchants";
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../helpers/redirectInstances";
import { dropFirstCommits, resentCommits, startFirestoreProxy, type FirestoreProxy } from "../helpers/firestoreProxy";
import { ensureWorkspaceForOwner } from "../../functions/src/store/workspaces";
import { createCode } from "../../functions/src/codes/service";
import { localMoment } from "../../functions/src/scans/localTime";
import { COMMIT_RETRY_BUDGET_MS } from "../../functions/src/core/firebase";
import { LEASE_GRACE_MS } from "../../functions/src/store/campaignCaps";
import { SCAN_QUEUE_WAIT_MS, scanBatches, scanNotWritten, writeScan, type ScanFacts } from "../../functions/src/store/scans";
import { pastScanFacts } from "../helpers/scans";
import { eventually } from "../helpers/poll";
import { ensureLocalScanStream } from "../../scripts/lib/scanStream";
import { arrivalOf } from "../../functions/src/scans/arrival";
import { startConsumerInstance, type ConsumerInstance } from "../helpers/consumerInstance";
import { cappedCode, codeDay, DESTINATION, PHONE, scan, scanCommit } from "../helpers/scanRetries";

describe("scan counts under the SDK's own commit retries (issue 54)", function () {
  this.timeout(180_000);
  let proxy: FirestoreProxy;
  let instances: RedirectInstance[] = [];
  let consumers: ConsumerInstance[] = [];
  let merchantId: string;

  // The consumer test's two instances (behind the proxy), started while the tests before it run.
  let consumersStarting: Promise<ConsumerInstance[]>;

  before(async () => {
    proxy = await startFirestoreProxy();
    consumersStarting = Promise.all([0, 1].map(() => startConsumerInstance({ FIRESTORE_EMULATOR_HOST: proxy.host })));
    void consumersStarting.catch(() => undefined); // awaited by the test that uses them
    await ensureLocalScanStream(process.env.PUBSUB_EMULATOR_HOST!, process.env.GCLOUD_PROJECT!);
    ({ merchantId } = (await ensureWorkspaceForOwner(`retries-${randomUUID()}`, "Retries")).workspace);
  });
  afterEach(async () => {
    await stopRedirectInstances(instances);
    instances = [];
    await Promise.all(consumers.map((c) => c.stop()));
    consumers = [];
    proxy.rule = () => "pass";
  });
  after(async () => {
    await Promise.all((await consumersStarting.catch(() => [])).map((c) => c.stop()));
    await proxy.close();
  });

  it("bounds the commit's retries well inside a cap lease's grace", () => {
    // The latest a scan's allowance can still land: its wait in the queue, then a re-commit started within
    // the first commit's budget, itself bounded by the budget; 5 s to spare for the read backs.
    const latest = SCAN_QUEUE_WAIT_MS + 2 * COMMIT_RETRY_BUDGET_MS;
    assert.ok(latest + 5_000 < LEASE_GRACE_MS, `${latest} ms against a grace of ${LEASE_GRACE_MS} ms`);
  });

  it("a failed commit the read back does not find: surely unwritten after Firestore's own answer, unknown after an attempt abandoned here", async () => {
    const send = scanBatches.commit;
    let sent = 0;
    const facts = (): ScanFacts => ({ ...pastScanFacts(merchantId, { codeId: `rb${randomUUID().slice(0, 8)}`, uniqueQRCodeID: "UNUSED" }, null, localMoment(new Date(), "UTC").day, 12), at: new Date() });
    try {
      // Refused by Firestore (its own answer, nothing applied): known unwritten, its allowance may go back.
      scanBatches.commit = async () => {
        sent++;
        throw Object.assign(new Error("14 UNAVAILABLE: injected"), { code: 14 });
      };
      const refused = await writeScan(facts(), { kind: "bot", reason: "crawler" }).then(() => null, (e: Error) => e);
      assert.ok(refused && scanNotWritten(refused), String(refused));
      // A deadline on this side: the attempt may still land, so a read back that finds nothing proves nothing.
      scanBatches.commit = async () => {
        sent++;
        throw Object.assign(new Error("4 DEADLINE_EXCEEDED: injected"), { code: 4 });
      };
      const f = facts();
      const abandoned = await writeScan(f, { kind: "human", unique: true, eventId: `u~${randomUUID()}~${f.day}~${f.codeId}` }).then(() => null, (e: Error & { code?: number }) => e);
      assert.ok(abandoned && !scanNotWritten(abandoned), "its count is unknown, and an allowance it carried would stay spent");
      assert.notEqual((abandoned as { code?: number }).code, 6, "never read as 'this event id is taken'");
      assert.equal(sent, 2, "neither batch was sent again");
    } finally {
      scanBatches.commit = send;
    }
  });

  it("a capped code's commit whose answer is lost is re-sent by the SDK, refused, read back, and every kind of scan counts once", async () => {
    const code = await cappedCode(merchantId, "lost answers");
    [instances[0]] = instances = await startRedirectInstances(1, { FIRESTORE_EMULATOR_HOST: proxy.host });
    const [instance] = instances;
    // Warm: the instance learns the code, its workspace's time zone and the day's secret (a preview's scan).
    assert.equal((await scan(instance, code.uniqueQRCodeID, "Twitterbot/1.0", "192.0.2.1")).status, 302);
    const before = proxy.commits.length;
    // Every scan commit's first answer is dropped from now on (the emulator applied it): the SDK re-sends each.
    proxy.rule = dropFirstCommits(Infinity, scanCommit);
    const people = Array.from({ length: 10 }, (_, i) => () => scan(instance, code.uniqueQRCodeID, PHONE(i), `198.51.100.${i + 1}`));
    // One person scanning five times at once: a first scan (unique), three more this minute, then a repeat.
    const returning = Array.from({ length: 5 }, () => () => scan(instance, code.uniqueQRCodeID, PHONE(99), "203.0.113.9"));
    const bots = Array.from({ length: 4 }, (_, i) => () => scan(instance, code.uniqueQRCodeID, `curl/8.${i}`, `192.0.2.${10 + i}`));
    const answers = await Promise.all([...people, ...returning, ...bots].map((f) => f()));
    for (const a of answers) assert.equal(a.status, 302, JSON.stringify(a));
    assert.deepEqual(answers.slice(0, 10).map((a) => a.counted), Array(10).fill("true"), "each person: counted, not unknown");
    assert.deepEqual(answers.slice(10, 15).map((a) => a.counted).sort(), ["false; reason=repeat", "true", "true", "true", "true"]);
    assert.deepEqual(answers.slice(15).map((a) => a.counted), Array(4).fill("false; reason=library"));

    // A batch of machines only (nothing of it is a person's `create`) commits alone, its answer lost too.
    const lone = await scan(instance, code.uniqueQRCodeID, "curl/8.9", "192.0.2.99");
    assert.equal(lone.counted, "false; reason=library");

    const sent = proxy.commits.slice(before);
    assert.ok(resentCommits({ ...proxy, commits: sent }) >= 2, `the SDK re-sent identical commits (${sent.length} commits seen)`);
    assert.ok((proxy.commitStatuses.get(409) ?? 0) >= 2, "each re-send of a batch that had landed was refused whole (ALREADY_EXISTS)");
    const counts = await codeDay(merchantId, code.codeId);
    assert.equal(counts.n, 14, "people's scans: 10 people and the returning person's four counted scans, once each");
    assert.equal(counts.u, 11, "unique: 11 people");
    assert.equal(counts.r, 1, "one repeat, once");
    assert.deepEqual(counts.b, { preview: 1, library: 5 }, "each machine's scan once");
    const events = await firestore().collection("workspaces").doc(merchantId).collection("scans").where("codeId", "==", code.codeId).count().get();
    assert.equal(events.data().count, 14, "one event per counted person's scan");
  });

  it("the consumer's commit whose answer is lost is re-sent by the SDK and read back: every kind of scan counts once", async () => {
    const code = await createCode(merchantId, { title: "lost answers, consumer", destinationUrl: DESTINATION, dynamic: true });
    const known = { merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" };
    const arrival = (userAgent: string, address: string) =>
      arrivalOf({ method: "GET", headers: { "user-agent": userAgent }, address, place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: code.uniqueQRCodeID, known });
    // Two consumer instances, so one person's scans may be counted by both at once.
    consumers = await consumersStarting;
    const before = proxy.commits.length;
    proxy.rule = dropFirstCommits(Infinity, scanCommit);
    const people = await Promise.all(Array.from({ length: 10 }, (_, i) => arrival(PHONE(i), `198.51.100.${i + 1}`)));
    // One person scanning five times at once: a first scan (unique), three more this minute, then a repeat.
    const returning = await Promise.all(Array.from({ length: 5 }, () => arrival(PHONE(99), "203.0.113.9")));
    const bots = await Promise.all(Array.from({ length: 4 }, (_, i) => arrival(`curl/8.${i}`, `192.0.2.${10 + i}`)));
    const all = [...people, ...returning, ...bots];
    await Promise.all(consumers.map((c, k) => c.publish(all.filter((_, i) => i % 2 === k))));
    const counts = await eventually(() => codeDay(merchantId, code.codeId), (c) => (c.n ?? 0) + (c.r ?? 0) + (c.b?.library ?? 0) >= 19, { what: "19 scans counted", timeoutMs: 60_000 });
    const sent = proxy.commits.slice(before);
    assert.ok(resentCommits({ ...proxy, commits: sent }) >= 2, `the SDK re-sent identical commits (${sent.length} commits seen)`);
    assert.equal(counts.n, 14, "people's scans: 10 people and the returning person's four counted scans, once each");
    assert.equal(counts.u, 11, "unique: 11 people");
    assert.equal(counts.r, 1, "one repeat, once");
    assert.deepEqual(counts.b, { library: 4 }, "each machine's scan once");
    const events = await firestore().collection("workspaces").doc(merchantId).collection("scans").where("codeId", "==", code.codeId).count().get();
    assert.equal(events.data().count, 14, "one event per counted person's scan");
    // A landed commit is answered counted (its proof is read back); one whose refusal (the two instances'
    // transactions meeting) was the lost answer did not land, is answered a failure and delivered again.
    for (const c of consumers) assert.equal(await c.deadLetters(), 0, "nothing reached the dead letters");
  });

  it("a capped code's first scan on an instance whose zone read Firestore never answers is answered within the zone read's deadline", async () => {
    const code = await cappedCode(merchantId, "hung zone read");
    instances = await startRedirectInstances(1, { FIRESTORE_EMULATOR_HOST: proxy.host });
    const [instance] = instances;
    // The workspace's own document (its time zone) is never answered; its codes' links and cap shards are.
    proxy.rule = ({ method, body }) => (method === "batchGet" && body.includes(`/workspaces/${merchantId}"`) ? "hang" : "pass");
    const started = Date.now();
    const answer = await scan(instance, code.uniqueQRCodeID, PHONE(4), "198.51.100.202");
    const took = Date.now() - started;
    assert.deepEqual([answer.status, answer.location, answer.counted], [302, DESTINATION, "true"], JSON.stringify(answer));
    assert.ok(took < ZONE_READ_DEADLINE_MS + 5_000, `answered after ${took} ms`);
  });

  it("a code's first link read that fails answers 503 with Retry-After, never 404; the printed code works once Firestore answers", async () => {
    const code = await createCode(merchantId, { title: "first read", destinationUrl: DESTINATION, dynamic: true });
    instances = await startRedirectInstances(1, { FIRESTORE_EMULATOR_HOST: proxy.host });
    const [instance] = instances;
    proxy.rule = ({ method }) => (method === "batchGet" ? "refuse" : "pass");
    const started = Date.now();
    const failed = await scan(instance, code.uniqueQRCodeID, PHONE(1), "198.51.100.77");
    assert.equal(failed.status, 503, JSON.stringify(failed));
    assert.ok(Number(failed.retryAfter) >= 1, `Retry-After: ${failed.retryAfter}`);
    assert.ok(Date.now() - started < 10_000, "answered within the first read's deadline, not after the SDK's retries");
    proxy.rule = () => "pass";
    const again = await scan(instance, code.uniqueQRCodeID, PHONE(1), "198.51.100.77");
    assert.equal(again.status, 302);
    assert.equal(again.location, DESTINATION);
    // A code that does not exist is still a 404 when the read answers.
    assert.equal((await scan(instance, "ZZZZZZZZZZZZ", PHONE(1), "198.51.100.77")).status, 404);
  });
});
