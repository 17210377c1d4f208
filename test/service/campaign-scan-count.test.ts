// Scan-count conditions through the local stack (docs/campaign-rules.md, "Scan-count conditions"): each
// distinct threshold of a code is a counter of allowances leased like a cap's; a person's scan spends one
// from every threshold counter not yet exhausted, in its own batch, and is evaluated with the largest
// threshold found exhausted. Exact under concurrency over several instances (in this process: one
// CapAllowances object per instance, as campaign-caps.test.ts does); thresholds changed as documented;
// more than 4 thresholds refused with nothing written; and through the front end, the redirect follows.
import assert from "node:assert/strict";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { recordScanSafely, type ScanOutcome } from "../../functions/src/scans/record";
import { CapAllowances, scanCountGate, thresholdCounters } from "../../functions/src/campaigns/caps";
import { campaignAnswer } from "../../functions/src/campaigns/answer";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const A = "https://example.com/a";
const B = "https://example.com/b";
const PLACE = { country: "US", state: "Oregon", city: "Portland" };

const setRules = (merchant: TestMerchant, codeId: string, settings: unknown) => callTool("svc.qr.set_rules", { codeId, settings }, merchant.apiKey);
/** `scanCount: when` sends to A, everyone else to B (the destination). */
const rulesOf = (...whens: object[]) => ({ rules: whens.map((scanCount) => ({ when: { scanCount }, then: { type: "redirect", url: A } })) });

const linkOf = async (id: string) => (await firestore().collection("links").doc(id).get()).data() as any;

/** The threshold counters' shard documents of a code. */
async function thresholdShards(merchant: TestMerchant, codeId: string) {
  const docs = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("capShards").where("codeId", "==", codeId).get()).docs;
  return docs.filter((d) => d.get("counter")).map((d) => ({ id: d.id, ...(d.data() as { counter: string; epoch: string; remaining: number; leases: object }) }));
}

/** Waits until every lease of the code's current threshold counters is settled (allowances not spent are back). */
async function settled(merchant: TestMerchant, code: { codeId: string; uniqueQRCodeID: string }) {
  const epochs = new Set(((await linkOf(code.uniqueQRCodeID)).campaignRules.scanCounters as { epoch: string }[]).map((c) => c.epoch));
  return eventually(
    async () => (await thresholdShards(merchant, code.codeId)).filter((d) => epochs.has(d.epoch)),
    (docs) => docs.every((d) => Object.keys(d.leases).length === 0),
    { what: "threshold leases settled", timeoutMs: 20_000 },
  );
}

/** One distinct person's scan of the code on an instance, recorded then answered as the redirect does. */
function visitor(merchant: TestMerchant, code: { codeId: string; uniqueQRCodeID: string }) {
  const identity = { merchantId: merchant.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" };
  return async (person: number, instance: CapAllowances, agent = PHONE): Promise<{ outcome: ScanOutcome; location: string | null }> => {
    const link = await linkOf(code.uniqueQRCodeID);
    const counters = thresholdCounters(merchant.merchantId, code.codeId, link.campaignRules.scanCounters);
    const headers = { "user-agent": agent };
    const address = `198.51.${100 + (person >> 8)}.${person & 255}`;
    const at = new Date();
    for (let reload = 0; ; reload++) {
      // Through the redirect's entry: a count not known in time is undefined, and the answer is the one-moment page.
      const outcome = await recordScanSafely(identity, code.uniqueQRCodeID, { method: "GET", headers, address, place: PLACE, at, source: "redirect", servedFrom: "live", gate: { thresholds: scanCountGate(counters, instance) } });
      const answer = await campaignAnswer(link, { method: "GET", headers, url: `/qr/${code.uniqueQRCodeID}`, address, place: PLACE, at, timeZone: "UTC" }, { outcome, gated: true });
      // The "one moment" page reloads: the same person scans again.
      if (answer.type === "busy") {
        assert.ok(reload < 10, "still busy after 10 reloads");
        continue;
      }
      assert.equal(answer.type, "redirect");
      assert.ok(outcome, "a scan answered with a redirect was recorded");
      return { outcome, location: answer.type === "redirect" ? answer.url : null };
    }
  };
}

async function peopleCounted(merchant: TestMerchant, codeId: string): Promise<number> {
  const snap = await firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", codeId).get();
  return snap.docs.reduce((sum, d) => sum + Number(d.get("n") ?? 0), 0);
}

describe("campaign scan counts: thresholds as leased counters, exact", function () {
  this.timeout(240_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("scanCount max 9: of 40 concurrent people over 2 instances exactly 10 go to A; bots take nothing", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "first ten", destinationUrl: B, dynamic: true }, merchant.apiKey));
    const set = toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 9 })));
    assert.deepEqual(set.campaignRules.rules[0].when.scanCount, { max: 9 });
    assert.equal(set.campaignRules.scanCounters, undefined, "the counters stay on the link");
    const link = await linkOf(code.uniqueQRCodeID);
    assert.deepEqual(link.campaignRules.scanCounters.map((c: { threshold: number }) => c.threshold), [10]);
    const visit = visitor(merchant, code);
    const instances = [new CapAllowances(), new CapAllowances()];
    // A preview bot before anyone: counted 0 before it (nothing known exhausted), takes no allowance.
    const bot = await visit(1000, instances[0], "facebookexternalhit/1.1");
    assert.deepEqual(bot.outcome, { counted: false, reason: "preview", scanCount: 0 });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => visit(i, instances[i % 2])));
    console.log(`      40 concurrent people over 2 instances answered in ${Date.now() - started} ms`);
    assert.ok(answers.every((a) => a.outcome.counted), "every person counted");
    assert.equal(answers.filter((a) => a.location === A).length, 10, "exactly 10 go to A");
    assert.equal(answers.filter((a) => a.location === B).length, 30);
    assert.deepEqual([...new Set(answers.map((a) => a.outcome.scanCount))].sort(), [0, 10], "the representative: 0 within the first 10, then 10");
    const shards = await settled(merchant, code);
    assert.deepEqual(shards.map((d) => d.remaining), shards.map(() => 0), "every allowance spent");
    assert.equal(await peopleCounted(merchant, code.codeId), 40);
    // A person now finds the counter exhausted; right after, a bot on that instance is evaluated with the
    // count the instance knows (10) and goes to B, taking nothing.
    assert.equal((await visit(1001, instances[1])).location, B);
    const late = await visit(1002, instances[1], "facebookexternalhit/1.1");
    assert.deepEqual([late.location, late.outcome.scanCount], [B, 10]);
  });

  it("changing thresholds: a kept one keeps its count, a new one starts from the nearest old one; 5 thresholds are refused and nothing is written", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "moved", destinationUrl: B, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 9 })));
    const visit = visitor(merchant, code);
    const instance = new CapAllowances();
    const go = async (from: number, n: number) => {
      const out: (string | null)[] = [];
      for (let i = 0; i < n; i++) out.push((await visit(from + i, instance)).location);
      return out;
    };
    assert.deepEqual(await go(0, 4), [A, A, A, A], "4 people, within the first 10");
    await settled(merchant, code);

    // Lowered to max 5 (threshold 6): counted from the threshold-10 counter, which knows the 4: 2 more go to A.
    toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 5 })));
    assert.deepEqual(await go(4, 3), [A, A, B], "people 5 and 6 (4 and 5 before them) go to A, the 7th does not");
    await settled(merchant, code);

    // Kept beside a new one: the threshold-6 counter keeps its epoch.
    const before = (await linkOf(code.uniqueQRCodeID)).campaignRules.scanCounters;
    toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 5 }, { min: 20 })));
    const both = (await linkOf(code.uniqueQRCodeID)).campaignRules.scanCounters;
    assert.deepEqual(both.map((c: { threshold: number }) => c.threshold), [6, 20]);
    assert.equal(both[0].epoch, before[0].epoch, "a kept threshold keeps its counter");

    // Raised past every old threshold (max 7, threshold 8): the old counters counted people only up to 6, so
    // the new one starts at 6 (the 7th person, past 6 before the change, is not counted): 2 more go to A.
    toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 7 })));
    assert.deepEqual(await go(7, 3), [A, A, B]);
    await settled(merchant, code);

    // 5 distinct thresholds (2, 3, 5, 7, 10): refused, and nothing changes.
    const shardsBefore = await thresholdShards(merchant, code.codeId);
    const linkBefore = await linkOf(code.uniqueQRCodeID);
    const refused = await setRules(merchant, code.codeId, rulesOf({ max: 1 }, { min: 3, max: 4 }, { min: 7, max: 9 }));
    assert.match(JSON.stringify(refused.body), /at most 4 distinct thresholds per code[^"]*these use 5: 2, 3, 5, 7, 10/);
    assert.deepEqual(await linkOf(code.uniqueQRCodeID), linkBefore, "the link is unchanged");
    assert.deepEqual(await thresholdShards(merchant, code.codeId), shardsBefore, "no counter written");
    assert.equal((await visit(10, instance)).location, B, "the rules in force still apply");
  });

  it("through the front end: the first person goes to A, the next to B, a bot takes nothing", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "first one", destinationUrl: B, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, code.codeId, rulesOf({ max: 0 })));
    const scan = async (agent = PHONE) => {
      for (let reload = 0; ; reload++) {
        const res = await newClient().fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": agent } });
        await res.text();
        if (!res.headers.get("refresh")) return { status: res.status, location: res.headers.get("location") };
        assert.ok(reload < 10, "still busy after 10 reloads");
      }
    };
    assert.equal((await scan("facebookexternalhit/1.1")).location, A, "a bot before anyone: 0 before it");
    assert.deepEqual(await scan(), { status: 302, location: A });
    assert.deepEqual(await scan(), { status: 302, location: B });
    assert.deepEqual(await scan(), { status: 302, location: B });
    const shards = await settled(merchant, code);
    assert.deepEqual(shards.map((d) => d.remaining), [0]);
    assert.equal(await peopleCounted(merchant, code.codeId), 3);
  });
});
