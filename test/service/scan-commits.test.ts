// The scan group commit after a failed batch (store/scans.ts): a refused batch is re-committed in halves,
// never a commit per scan at once, and no rollup shard takes two writes in one second; a batch that may
// have been written is never sent again. Real Firestore (the emulator, over the REST transport the service
// uses); where a failure the emulator cannot produce is needed (a deadline after the write landed), only
// the failure is handed in, shaped as the client library reports it (a gRPC status code).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { pastScanFacts } from "../helpers/scans";
import { scanBatches, writeScan, type ScanClass, type ScanFacts } from "../../functions/src/store/scans";
import { foldCounts, readRollupDocs } from "../../functions/src/store/rollups";
import { countDocumentWrites, documentWriteStats, resetDocumentWriteStats } from "../../functions/src/store/opCounter";
import { localMoment } from "../../functions/src/scans/localTime";

const DEADLINE_EXCEEDED = 4;
const ALREADY_EXISTS = 6;

const day = () => localMoment(new Date(), "UTC").day;

function facts(m: TestMerchant, codeId: string, i: number, campaign: string | null = null): ScanFacts {
  return {
    ...pastScanFacts(m.merchantId, { codeId, uniqueQRCodeID: `U${codeId}` }, campaign, day(), 12),
    at: new Date(),
    place: { country: "US", state: "Oregon", city: `Portland ${i % 7}` },
  };
}

/** A code's day as its shards and folded document add up. */
async function codeDay(m: TestMerchant, codeId: string) {
  const { docs, more } = await readRollupDocs(m.merchantId, "codeDays", { codeId, first: day(), last: day() }, 1000);
  assert.equal(more, false);
  return foldCounts(docs);
}

const settled = (p: Promise<void>) => p.then(() => null, (e: Error & { code?: number }) => e);

describe("scan group commit after a failed batch", function () {
  this.timeout(120_000);
  const send = scanBatches.commit;
  /** Commits sent, and the most in flight at once. */
  let commits = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  /** Makes the commit numbered `n` (1-based) fail this way after (or instead of) sending it. */
  let failCommit: { n: number; land: boolean; error: Error } | undefined;

  beforeEach(() => {
    commits = inFlight = mostInFlight = 0;
    failCommit = undefined;
    scanBatches.commit = async (batch) => {
      const n = ++commits;
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        if (failCommit?.n === n) {
          if (failCommit.land) await send(batch);
          throw failCommit.error;
        }
        return await send(batch);
      } finally {
        inFlight--;
      }
    };
  });
  afterEach(() => {
    scanBatches.commit = send;
    countDocumentWrites(false);
  });

  it("a group of 300 scans of one code with 16 event ids taken records every other once, two commits at a time, no shard written twice in a second", async () => {
    const m = await createMerchant();
    const codeId = `group${randomUUID().slice(0, 8)}`;
    const run = randomUUID().slice(0, 8);
    const eventId = (i: number) => `u~${run}~${i}~${codeId}`;
    // The first scan commits alone; the next 200 go together while it is in flight, the last 99 after.
    const taken = new Set(Array.from({ length: 16 }, (_, k) => 2 + k * 12)); // people, all within the group of 200
    await Promise.all([...taken].map((i) => firestore().collection("workspaces").doc(m.merchantId).collection("scans").doc(eventId(i)).create({ takenBy: "another instance" })));
    const cls = (i: number): ScanClass => (i % 10 === 9 ? { kind: "bot", reason: "crawler" } : { kind: "human", unique: true, eventId: eventId(i) });
    countDocumentWrites(true);
    resetDocumentWriteStats();
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => settled(writeScan(facts(m, codeId, i), cls(i)))));
    const busiest = documentWriteStats().busiest;
    countDocumentWrites(false);

    for (const [i, result] of results.entries()) {
      if (taken.has(i)) assert.equal(result?.code, ALREADY_EXISTS, `scan ${i}: its event id was taken`);
      else assert.equal(result, null, `scan ${i}: recorded`);
    }
    const bots = results.filter((_, i) => cls(i).kind === "bot").length;
    const people = 300 - bots - taken.size;
    const counts = await codeDay(m, codeId);
    assert.equal(counts.n, people, "each person's scan counted once");
    assert.equal(counts.u, people);
    assert.deepEqual(counts.b, { crawler: bots }, "each bot's scan counted once");
    const events = await firestore().collection("workspaces").doc(m.merchantId).collection("scans").where("codeId", "==", codeId).count().get();
    assert.equal(events.data().count, people, "every person's event, none of the taken ones");
    for (const i of taken) assert.deepEqual((await firestore().collection("workspaces").doc(m.merchantId).collection("scans").doc(eventId(i)).get()).data(), { takenBy: "another instance" });

    assert.ok(busiest && busiest.writesInOneSecond === 1, `a shard took ${busiest?.writesInOneSecond} writes in one second (${busiest?.path})`);
    assert.ok(mostInFlight <= 2, `${mostInFlight} commits in flight at once`);
    // Three group commits (1, 200, 99 scans), then two halves per refused batch of two or more: at most 31
    // in the top five levels of the 200's halving and 16 in each of the three below (a scan each then).
    assert.ok(commits <= 3 + 2 * (31 + 3 * 16), `${commits} commits`);
  });

  it("a batch whose answer was lost is read back, found landed and answered recorded: not sent again, what landed counts once", async () => {
    const m = await createMerchant();
    const codeId = `unknown${randomUUID().slice(0, 8)}`;
    const run = randomUUID().slice(0, 8);
    // The group's commit (the second) lands, then reports a deadline, as a lost answer does.
    failCommit = { n: 2, land: true, error: Object.assign(new Error("4 DEADLINE_EXCEEDED: Deadline exceeded: commit did not respond in time."), { code: DEADLINE_EXCEEDED }) };
    const opener = settled(writeScan(facts(m, codeId, 0), { kind: "bot", reason: "crawler" }));
    const group: ScanClass[] = [
      ...Array.from({ length: 4 }, (): ScanClass => ({ kind: "bot", reason: "crawler" })),
      ...Array.from({ length: 3 }, (): ScanClass => ({ kind: "repeat" })),
      ...Array.from({ length: 3 }, (_, i): ScanClass => ({ kind: "human", unique: true, eventId: `u~${run}~${i}~${codeId}` })),
      { kind: "ended", reason: "capped" },
    ];
    const results = await Promise.all(group.map((cls, i) => settled(writeScan(facts(m, codeId, i + 1), cls))));
    assert.equal(await opener, null);
    for (const result of results) assert.equal(result, null, "the read back found the batch landed: the scan is recorded");
    assert.equal(commits, 2, "nothing sent again");
    const counts = await codeDay(m, codeId);
    assert.deepEqual(counts.b, { crawler: 5 }, "bots counted once");
    assert.equal(counts.r, 3, "repeats counted once");
    assert.equal(counts.n, 3, "people counted once, as people");
    assert.deepEqual(counts.e, { capped: 1 });
  });

  it("a batch one workspace's write refuses records the other workspace's scans in it, in about 2 log2(n) commits", async () => {
    const frozen = await createMerchant();
    const neighbour = await createMerchant();
    const run = randomUUID().slice(0, 8);
    // A campaign value over Firestore's 1,048,487-byte limit for one field: every write of it is refused.
    const refused = "y".repeat(1_050_000);
    const opener = settled(writeScan(facts(neighbour, "along", 0), { kind: "bot", reason: "crawler" }));
    const group = Array.from({ length: 16 }, (_, i) =>
      i === 5 ? settled(writeScan(facts(frozen, "frozen", i, refused), { kind: "bot", reason: "crawler" })) : settled(writeScan(facts(neighbour, "along", i), { kind: "human", unique: true, eventId: `u~${run}~${i}~along` })),
    );
    const results = await Promise.all(group);
    assert.equal(await opener, null);
    assert.ok(results[5] instanceof Error && /1048487/.test(results[5].message), String(results[5]));
    assert.deepEqual(results.filter((_, i) => i !== 5), Array(15).fill(null), "the other workspace's scans in the same batch are written");
    const counts = await codeDay(neighbour, "along");
    assert.equal(counts.n, 15);
    assert.deepEqual(counts.b, { crawler: 1 });
    // The opener, the group, then two halves per level down to the refused scan: 1 + 1 + 2 x log2(16).
    assert.ok(commits <= 2 + 2 * 4, `${commits} commits`);
    assert.ok(mostInFlight <= 2, `${mostInFlight} commits in flight at once`);
  });
});
