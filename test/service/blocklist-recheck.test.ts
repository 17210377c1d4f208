// The Safe Browsing layer when it cannot answer, and the scheduled re-check of live destinations
// (docs/decisions.md, "When Safe Browsing cannot answer" and "Re-checking live destinations"). The sandbox
// is reached through the front; the lookup is a stub in this process (Safe Browsing's fetch replaced, no
// traffic leaves loopback), so the checks that use it run here against the emulators, and their effect
// (a code or GS1 item taken down) is seen through the front.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl, baseUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { newGtin } from "../helpers/gs1";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { SAFE_BROWSING_ENDPOINT, type SafeBrowsingLookup } from "../../functions/src/abuse/blocklist";
import { assertDestinationAllowed, NEW_WORKSPACE_FAIL_CLOSED_DAYS } from "../../functions/src/abuse/service";
import { generateSandboxCode } from "../../functions/src/sandbox/service";
import { runDestinationRecheck } from "../../functions/src/moderation/recheck";
import { dayKey } from "../../functions/src/scans/classify";
import { RATE_LIMITS } from "../../functions/src/core/rateLimit";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const scan = (id: string) => newClient().fetch(`${appUrl()}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": PHONE } });

/**
 * Runs `work` with the deployment's Safe Browsing configured (a fresh key: a fresh client and cache) and its
 * requests answered by `answer` here; any other fetch goes on as usual.
 */
async function withSafeBrowsing<T>(answer: (url: string) => Response | Promise<Response>, work: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  process.env.SAFE_BROWSING_API_KEY = `test-${randomUUID()}`;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.startsWith(SAFE_BROWSING_ENDPOINT)) return realFetch(input, init);
    const asked = JSON.parse(String(init?.body)).threatInfo.threatEntries[0].url as string;
    return answer(asked);
  }) as typeof fetch;
  try {
    return await work();
  } finally {
    globalThis.fetch = realFetch;
    delete process.env.SAFE_BROWSING_API_KEY;
  }
}

const unavailable = () => new Response("quota exceeded", { status: 429 });

/** A lookup for the re-check pass: listed URLs answer their threat; `failing` throws. */
function stubLookup(listed: Record<string, string>, failing = false): SafeBrowsingLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    find: async (url) => {
      asked.push(url);
      if (failing) throw new Error("quota exceeded");
      return listed[url] ?? null;
    },
  };
}

describe("Safe Browsing failing closed, and the re-check of live destinations", function () {
  this.timeout(120_000);
  let m: TestMerchant;

  before(async () => {
    m = await createMerchant();
  });

  it("reads the sandbox quota before any lookup, and limits sandbox requests per address", async () => {
    const client = newClient();
    const post = (url: string) => client.fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url }) });
    for (let i = 0; i < 3; i++) assert.equal((await post(`https://example.com/s${i}`)).status, 200);
    // Spent: a listed destination is refused for the quota (429), not looked up (422).
    const spent = await post("https://login.phishing.test/account");
    assert.equal(spent.status, 429);
    assert.equal(((await spent.json()) as any).code, "RATE_LIMITED");
    // Any request counts, valid or not: past sandboxRequests the address gets 429 with the limit's Retry-After.
    const noisy = newClient();
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMITS.sandboxRequests.max; i++) {
      statuses.push((await noisy.fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url: "not a url" }) })).status);
    }
    assert.deepEqual(statuses, [...Array(RATE_LIMITS.sandboxRequests.max).fill(400), 429]);
    assert.equal((await newClient().fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url: "not a url" }) })).status, 400, "another address is not limited");
  });

  it("refuses a sandbox code and a new workspace's code when the lookup fails; an established workspace's passes and is queued", async () => {
    const url = `https://shop-${randomUUID().slice(0, 8)}.example/offer`;
    const client = { address: "203.0.113.77", viaProxy: false, hops: [], throughGeoHeaderProxy: false };
    const sandboxCodes = async () => (await firestore().collection("sandboxCodes").where("destinationUrl", "==", url).get()).size;
    await withSafeBrowsing(unavailable, async () => {
      await assert.rejects(generateSandboxCode(url, client), (e: any) => e.code === "UNAVAILABLE");
      assert.equal(await sandboxCodes(), 0, "no sandbox code was made");
      await assert.rejects(assertDestinationAllowed(url, { merchantId: m.merchantId }), (e: any) => e.code === "UNAVAILABLE" && /could not be checked/.test(e.message));
      const old = new Date(Date.now() - (NEW_WORKSPACE_FAIL_CLOSED_DAYS + 1) * 86_400_000);
      await firestore().collection("workspaces").doc(m.merchantId).update({ createdAt: old });
      await assertDestinationAllowed(url, { merchantId: m.merchantId });
    });
    const queued = await firestore().collection("destinationRechecks").where("merchantId", "==", m.merchantId).where("url", "==", url).get();
    assert.equal(queued.size, 1);
    // With the lookup answering, the sandbox makes its code.
    const made = await withSafeBrowsing(() => Response.json({}), () => generateSandboxCode(url, { ...client, address: "203.0.113.78" }));
    assert.equal(made.body.code.destinationUrl, url);
  });

  it("takes a code down when its queued destination turns out listed, and stops where it is when the lookup fails", async () => {
    const url = `https://late-${randomUUID().slice(0, 8)}.example/login`;
    const code = toolResult(await callTool("svc.qr.create", { title: "late", destinationUrl: url, dynamic: true }, m.apiKey));
    await firestore().collection("destinationRechecks").doc(`t${randomUUID().replace(/-/g, "")}`).set({ merchantId: m.merchantId, url, queuedAt: new Date(0), attempts: 0, expiresAt: new Date(Date.now() + 86_400_000) });
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302);
    // The lookup still fails: nothing is decided and the queue keeps the entry.
    const stopped = await runDestinationRecheck({ safeBrowsing: stubLookup({}, true), budget: 5 });
    assert.equal(stopped.stoppedBy, "lookup-failed");
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302);
    const listed = stubLookup({ [url]: "SOCIAL_ENGINEERING" });
    const run = await runDestinationRecheck({ safeBrowsing: listed, budget: 50 });
    assert.ok(run.takenDown.includes(code.uniqueQRCodeID), JSON.stringify(run));
    assert.equal((await scan(code.uniqueQRCodeID)).status, 410);
    assert.equal((await firestore().collection("destinationRechecks").where("url", "==", url).get()).size, 0, "decided: off the queue");
  });

  it("re-checks yesterday's most-scanned codes and GS1 items first within its budget, and takes a listed GS1 target down", async () => {
    const gtins = [newGtin(), newGtin()];
    const items: any[] = [];
    for (const [i, gtin] of gtins.entries()) {
      const res = await fetch(`${appUrl()}/api/gs1/items`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.apiKey}` },
        body: JSON.stringify({ value: gtin, links: [{ linkType: "gs1:pip", href: `https://brand${i}-${gtin}.example/p`, title: "Product", isDefault: true }] }),
      });
      assert.equal(res.status, 201);
      items.push((await res.json()) as any);
    }
    // Yesterday's folded day rollups: the second item far more scanned than anything else.
    const now = new Date(Date.now() + 2 * 86_400_000); // a day of its own, past every other test's rollups
    const day = dayKey(new Date(now.getTime() - 86_400_000));
    const rollup = (itemId: string, n: number) => firestore().collection("workspaces").doc(m.merchantId).collection("codeDays").doc(`gs1_${itemId}~${day}`).set({ codeId: `gs1_${itemId}`, day, shard: false, n, u: n });
    await rollup(items[0].itemId, 5);
    await rollup(items[1].itemId, 5_000);
    const lookup = stubLookup({ [`https://brand1-${gtins[1]}.example/p`]: "MALWARE", [`https://brand0-${gtins[0]}.example/p`]: "MALWARE" });
    await firestore().collection("maintenance").doc("destinationRecheck").delete();
    for (const doc of (await firestore().collection("destinationRechecks").get()).docs) await doc.ref.delete(); // this file's earlier entries: the queue goes first
    const first = await runDestinationRecheck({ safeBrowsing: lookup, budget: 1, now });
    assert.deepEqual(lookup.asked, [`https://brand1-${gtins[1]}.example/p`], "the most-scanned first");
    assert.deepEqual(first.takenDown, [`gs1_${items[1].itemId}`]);
    const resolve = (gtin: string) => newClient().fetch(`${baseUrl()}/01/${gtin}`, { redirect: "manual" });
    assert.equal((await resolve(gtins[1])).status, 410);
    assert.equal((await resolve(gtins[0])).status, 307, "not reached within the budget");
    // The next run goes on where this one stopped.
    const second = await runDestinationRecheck({ safeBrowsing: lookup, budget: 1, now });
    assert.deepEqual(second.takenDown, [`gs1_${items[0].itemId}`]);
    assert.equal((await resolve(gtins[0])).status, 410);
  });
});
