// Scan caps and closed campaigns through the local front end (docs/campaign-rules.md, "The cap counter"):
// a cap of N admits exactly N people to the destination, everyone after goes to the fallback and is counted
// "ended" (capped), bots and repeats never consume it, raising N re-arms it; under 200 concurrent people
// over 4 instances (in this process: the Functions emulator runs one request per worker) exactly N get in;
// a code past its end counts its people's scans "ended" too. Never a 404.
import assert from "node:assert/strict";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { recordScan } from "../../functions/src/scans/record";
import { CapAllowances } from "../../functions/src/campaigns/caps";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const DESTINATION = "https://example.com/offer";
const FALLBACK = "https://example.com/sold-out";

async function scan(id: string, client: TestClient, headers: Record<string, string> = {}) {
  const res = await client.fetch(`${baseUrl()}/qr/${id}`, { method: "GET", redirect: "manual", headers: { "User-Agent": PHONE, ...headers } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), counted: res.headers.get("x-scan-counted") };
}

/** A code's day rollups summed (folded documents and shards): people's scans, and the "ended" scans by reason. */
async function countsOf(merchant: TestMerchant, codeId: string): Promise<{ people: number; ended: Record<string, number>; bots: number }> {
  const snap = await firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", codeId).get();
  const out = { people: 0, ended: {} as Record<string, number>, bots: 0 };
  for (const doc of snap.docs) {
    out.people += Number(doc.get("n") ?? 0);
    for (const [reason, n] of Object.entries((doc.get("e") ?? {}) as Record<string, number>)) out.ended[reason] = (out.ended[reason] ?? 0) + n;
    for (const n of Object.values((doc.get("b") ?? {}) as Record<string, number>)) out.bots += n;
  }
  return out;
}

const setRules = (merchant: TestMerchant, codeId: string, settings: unknown) => callTool("svc.qr.set_rules", { codeId, settings }, merchant.apiKey);

describe("campaign caps: exactly N people, the rest ended", function () {
  this.timeout(240_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("through the front end: a cap of 20 admits exactly 20 of 70 people; the rest get the fallback, counted ended; raising it re-arms", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "capped", destinationUrl: DESTINATION, dynamic: true }, merchant.apiKey));
    const set = toolResult(await setRules(merchant, code.codeId, { rules: [], humanScanCap: 20, fallbackUrl: FALLBACK }));
    assert.equal(set.campaignRules.humanScanCap, 20);
    assert.equal(set.campaignRules.capCounter, undefined, "the counter stays on the link");
    const id = code.uniqueQRCodeID;

    // Bots first: they are redirected and never consume the cap.
    for (const agent of ["facebookexternalhit/1.1", "curl/8.5.0"]) assert.equal((await scan(id, newClient(), { "User-Agent": agent })).location, DESTINATION);

    // The Functions emulator runs one request per worker process: waves of 10 at once, not 200 (see the next test).
    const clients = Array.from({ length: 60 }, () => newClient());
    const answers: Awaited<ReturnType<typeof scan>>[] = [];
    for (let i = 0; i < clients.length; i += 10) answers.push(...(await Promise.all(clients.slice(i, i + 10).map((client) => scan(id, client)))));
    // Each emulator worker is an instance: an allowance one leased and did not use comes back once its lease
    // idles (1 s), and a later person gets it. Never more than 20, exactly 20 once people keep coming.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    clients.push(...Array.from({ length: 10 }, () => newClient()));
    answers.push(...(await Promise.all(clients.slice(60).map((client) => scan(id, client)))));
    const admitted = clients.filter((_, i) => answers[i].location === DESTINATION);
    assert.equal(answers.filter((a) => a.status === 404).length, 0, "never a 404");
    assert.equal(admitted.length, 20, `admitted ${admitted.length}`);
    const refused = answers.filter((a) => a.location === FALLBACK);
    assert.equal(refused.length, 50);
    assert.ok(refused.every((a) => a.counted === "false; reason=capped"), "told apart as capped");

    // An admitted person scanning again and a bot get the fallback now: the cap is reached.
    assert.equal((await scan(id, admitted[0])).location, FALLBACK);
    assert.equal((await scan(id, newClient(), { "User-Agent": "facebookexternalhit/1.1" })).location, FALLBACK);

    const counts = await countsOf(merchant, code.codeId);
    assert.deepEqual(counts, { people: 20, ended: { capped: 51 }, bots: 3 });
    const analytics = toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 7 }, merchant.apiKey));
    assert.equal(analytics.totalScans, 20, "only admitted people are people's scans");

    // Raising the cap to 25 re-arms it: exactly 5 of 12 more people get in.
    toolResult(await setRules(merchant, code.codeId, { rules: [], humanScanCap: 25, fallbackUrl: FALLBACK }));
    const more: Awaited<ReturnType<typeof scan>>[] = [];
    for (let i = 0; i < 2; i++) more.push(...(await Promise.all(Array.from({ length: 6 }, () => scan(id, newClient())))));
    assert.equal(more.filter((a) => a.location === DESTINATION).length, 5);
    assert.equal(more.filter((a) => a.location === FALLBACK).length, 7);
    assert.equal((await countsOf(merchant, code.codeId)).people, 25);
  });

  it("200 concurrent people over 4 instances: a cap of 20 admits exactly 20, each shard within its leases", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "hot cap", destinationUrl: DESTINATION, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, code.codeId, { rules: [], humanScanCap: 20, fallbackUrl: FALLBACK }));
    const link = (await firestore().collection("links").doc(code.uniqueQRCodeID).get()).data()!;
    const counter = { merchantId: merchant.merchantId, codeId: code.codeId, cap: 20, ...link.campaignRules.capCounter };
    assert.ok(counter.shards >= 2 && counter.shards <= 8, JSON.stringify(counter));
    const instances = Array.from({ length: 4 }, () => new CapAllowances());
    const identity = { merchantId: merchant.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" };
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        recordScan(identity, code.uniqueQRCodeID, {
          method: "GET",
          headers: { "user-agent": PHONE },
          address: `198.51.${100 + (i >> 8)}.${i & 255}`,
          place: { country: "US", state: "Oregon", city: "Portland" },
          at: new Date(),
          source: "redirect",
          servedFrom: "live",
          gate: { allowance: () => instances[i % 4].take(counter) },
        }),
      ),
    );
    assert.equal(outcomes.filter((o) => o.counted).length, 20, "exactly 20 admitted");
    assert.equal(outcomes.filter((o) => !o.counted && o.reason === "capped").length, 180);
    assert.deepEqual(await Promise.all(instances.map((instance) => instance.take(counter))), [null, null, null, null], "no instance finds another allowance");
    const counts = await countsOf(merchant, code.codeId);
    assert.deepEqual(counts, { people: 20, ended: { capped: 180 }, bots: 0 });
    const spent = await firestore().collection("workspaces").doc(merchant.merchantId).collection("capSpent").count().get();
    assert.ok(spent.data().count >= 20);
    // Every lease is settled (nothing left over) and no shard went below zero.
    const shards = await eventually(
      async () => (await firestore().collection("workspaces").doc(merchant.merchantId).collection("capShards").where("codeId", "==", code.codeId).get()).docs.map((d) => d.data()),
      (docs) => docs.every((d) => Object.keys(d.leases).length === 0),
      { what: "leases settled", timeoutMs: 10_000 },
    );
    assert.equal(shards.length, counter.shards);
    assert.deepEqual(shards.map((d) => d.remaining), shards.map(() => 0));
  });

  it("lowering the cap below what was admitted closes the code at once; the ended page without a fallback", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "lowered", destinationUrl: DESTINATION, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, code.codeId, { rules: [], humanScanCap: 10 }));
    const first = await Promise.all(Array.from({ length: 4 }, () => scan(code.uniqueQRCodeID, newClient())));
    assert.ok(first.every((a) => a.location === DESTINATION));
    toolResult(await setRules(merchant, code.codeId, { rules: [], humanScanCap: 3 }));
    const after = await scan(code.uniqueQRCodeID, newClient());
    assert.equal(after.status, 200, "the ended page, never a 404");
    assert.equal(after.location, null);
  });

  it("a code past its end counts its people's scans as ended, bots as bots", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "over", destinationUrl: DESTINATION, dynamic: true }, merchant.apiKey));
    const now = Date.now();
    toolResult(await setRules(merchant, code.codeId, { rules: [], startsAt: new Date(now - 7_200_000).toISOString(), endsAt: new Date(now - 3_600_000).toISOString(), fallbackUrl: FALLBACK }));
    const person = await scan(code.uniqueQRCodeID, newClient());
    assert.equal(person.location, FALLBACK);
    assert.equal(person.counted, "false; reason=ended");
    assert.equal((await scan(code.uniqueQRCodeID, newClient(), { "User-Agent": "facebookexternalhit/1.1" })).location, FALLBACK);
    const counts = await countsOf(merchant, code.codeId);
    assert.deepEqual(counts, { people: 0, ended: { ended: 1 }, bots: 1 });
  });
});
