import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, signUp } from "../helpers/merchants";
import { decodePng, fetchPng } from "../helpers/qr";
import { hostingHop, newClient, type TestClient } from "../helpers/clients";
import { functionsDirectUrl, functionsUrl } from "../helpers/env";
import { googleAll, googleNotCloud } from "../../functions/src/core/addressRanges";

/** Clients differ only by the address they connect from; `forgedFor` is what a client may write itself. */
async function generate(body: unknown, client: TestClient, init: { contentType?: string; forgedFor?: string; url?: string } = {}) {
  const headers: Record<string, string> = { "Content-Type": init.contentType ?? "application/json" };
  if (init.forgedFor) headers["X-Forwarded-For"] = init.forgedFor;
  const res = await client.fetch(init.url ?? `${appUrl()}/api/generate-qr-code`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { res, status: res.status, body: json, text };
}

function assertRateHeaders(res: Response, remaining?: number) {
  assert.equal(res.headers.get("x-ratelimit-limit"), "3");
  assert.match(res.headers.get("x-ratelimit-remaining") ?? "", /^\d$/);
  if (remaining !== undefined) assert.equal(res.headers.get("x-ratelimit-remaining"), String(remaining));
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  const midnight = Math.floor(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) / 1000);
  assert.ok(Math.abs(reset - midnight) <= 1, "resets at the next UTC midnight");
}

describe("keyless sandbox", function () {
  this.timeout(120_000);

  it("returns a real, decodable code with claim token, 7-day expiry and upgrade links", async () => {
    const before = Date.now();
    const { res, status, body } = await generate({ url: "https://example.com/sandbox?x=1" }, newClient());
    assert.equal(status, 200, JSON.stringify(body));
    assertRateHeaders(res, 2);
    assert.equal(body.ok, true);
    assert.equal(body.code.destinationUrl, "https://example.com/sandbox?x=1");
    assert.match(body.code.qrImage, /^data:image\/png;base64,/);
    const png = Buffer.from(body.code.qrImage.split(",")[1], "base64");
    assert.equal(decodePng(png).payload, "https://example.com/sandbox?x=1");
    assert.match(body.code.claimToken, /^claim_[A-Za-z0-9_-]{32}$/);
    assert.match(body.code.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const stored = (await firestore().collection("sandboxCodes").doc(body.code.id).get()).data()!;
    assert.equal(stored.expiresAt.toMillis() - stored.createdAt.toMillis(), 7 * 86_400_000, "exactly 7 days");
    assert.ok(Math.abs(Date.parse(body.code.expiresAt) - (before + 7 * 86_400_000)) < 60_000);
    assert.ok(!JSON.stringify(stored).includes(body.code.claimToken), "claim token stored only as a hash");
    assert.equal(typeof body.upgrade.signup, "string");
    assert.ok(body.upgrade.claim.includes(encodeURIComponent(body.code.claimToken)));
    assert.equal(body.upgrade.bulk, `${appUrl()}/api/bulk-qr-codes`);
    assert.ok(body.upgrade.getApiKey);
    const account = await firestore().collectionGroup("codes").where("destinationUrl", "==", "https://example.com/sandbox?x=1").get();
    assert.equal(account.size, 0, "sandbox codes are not account codes");
  });

  it("makes exactly 3 codes for 20 concurrent requests from one client, half of them with forged X-Forwarded-For", async () => {
    const client = newClient();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        generate({ url: `https://example.com/c/${i}` }, client, i % 2 ? { forgedFor: `203.0.113.${i}, 35.191.0.${i}` } : {}),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 3, results.map((r) => r.status).join(","));
    assert.equal(limited.length, 17);
    for (const r of limited) {
      assert.equal(r.body.code, "RATE_LIMITED");
      for (const field of ["error", "message", "hint"]) assert.equal(typeof r.body[field], "string");
      assert.ok(Number(r.res.headers.get("retry-after")) > 0);
      assertRateHeaders(r.res, 0);
    }
    const ids = new Set(ok.map((r) => r.body.code.id));
    assert.equal(ids.size, 3);
  });

  it("other clients have quotas of their own; forged X-Forwarded-For changes nothing on either path", async () => {
    const [a, b] = [newClient(), newClient()];
    for (const client of [a, b]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await generate({ url: `https://example.com/o/${i}` }, client)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429], client.address);
    }
    // The same client at the function URL (no Hosting hop) is the same client, whatever it writes.
    const direct = `${functionsUrl()}/sandbox/api/generate-qr-code`;
    const forged = await generate({ url: "https://example.com/direct" }, a, { url: direct, forgedFor: "198.51.100.77" });
    assert.equal(forged.status, 429, "a forged entry at the function URL buys no code");
    const c = newClient();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const spoof = `198.51.100.${i + 1}, 35.191.0.1`;
      const via = i % 2 ? { url: direct, forgedFor: spoof } : { forgedFor: spoof };
      statuses.push((await generate({ url: `https://example.com/p/${i}` }, c, via)).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429], "one bucket through Hosting and at the function URL");
  });

  it("two clients behind a Hosting hop outside the old ranges get 3 codes each, and each is told its own address", async () => {
    const hop = hostingHop();
    assert.ok(googleNotCloud().has(hop), `${hop} is Google's and outside customer space`);
    for (const old of ["35.191.", "130.211.0.", "130.211.1.", "130.211.2.", "130.211.3."]) assert.ok(!hop.startsWith(old), `${hop} is outside the old ranges`);
    for (const client of [newClient(), newClient()]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await generate({ url: `https://example.com/hop/${i}` }, client)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429], client.address);
      const seen = await client.fetch(`${baseUrl()}/api/client-address`);
      assert.equal(seen.headers.get("cache-control"), "private, no-store");
      assert.deepEqual(await seen.json(), { address: client.presentedAs, viaProxy: false, hostingHop: hop });
    }
  });

  it("clients resolved to a Google address share a generous bucket per /24 instead of one visitor's", async () => {
    // Straight to the Functions emulator, standing in for Google's front end: a chain of nothing but
    // Google hops, as when Hosting's hop is trusted but no visitor entry reached the function.
    const direct = `${functionsDirectUrl()}/sandbox/api/generate-qr-code`;
    const asGoogle = (xff: string) => ({ url: direct, forgedFor: xff });
    const standing = async (xff: string) => {
      const res = await fetch(direct, { headers: { "X-Forwarded-For": xff } });
      assert.equal(res.status, 200);
      return { limit: Number(res.headers.get("x-ratelimit-limit")), remaining: Number(res.headers.get("x-ratelimit-remaining")) };
    };
    const customerVm = "34.1.208.10";
    assert.ok(googleAll().has(customerVm) && !googleNotCloud().has(customerVm));
    const before = await standing(`${hostingHop()}, 142.250.1.1`);
    assert.equal(before.limit, 300);
    const made = await generate({ url: "https://example.com/shared" }, newClient(), asGoogle(`${hostingHop()}, 142.250.1.1`));
    assert.equal(made.status, 200, made.text);
    assert.equal(made.res.headers.get("x-ratelimit-limit"), "300");
    // Another Google address of the same /24: the same shared bucket, one code fewer.
    const sameNetwork = `${hostingHop().split(".").slice(0, 3).join(".")}.77`;
    assert.deepEqual(await standing(`${sameNetwork}, 142.250.1.1`), { limit: 300, remaining: before.remaining - 1 });
    // Another network's Google address, and a Google Cloud customer's VM: shared buckets of their own, so
    // one busy VM or fetcher spends its own network's share, not everyone's.
    for (const other of ["172.217.3.4", customerVm]) assert.deepEqual(await standing(other), { limit: 300, remaining: 300 }, other);
    // A visitor's own bucket is untouched.
    assert.deepEqual(await standing(`203.0.113.${randomInt(1, 255)}, 142.250.1.1`), { limit: 3, remaining: 3 });
  });

  it("answers every kind of bad input with a JSON error and no stack, without using quota", async () => {
    const client = newClient();
    const cases: Array<[unknown, string, number, RegExp]> = [
      [{ url: "https://example.com" }, "text/plain", 415, /application\/json/],
      [{}, "application/json", 400, /url/],
      [{ url: 42 }, "application/json", 400, /url/],
      [{ url: "https://example.com", extra: 1 }, "application/json", 400, /extra/],
      [{ url: "ftp://example.com/file" }, "application/json", 400, /url/],
      [{ url: "javascript:alert(1)" }, "application/json", 400, /url/],
      [{ url: `https://example.com/${"a".repeat(2040)}` }, "application/json", 400, /url.*2048/],
      [[{ url: "https://example.com" }], "application/json", 400, /object/i],
    ];
    for (const [body, contentType, status, message] of cases) {
      const r = await generate(body, client, { contentType });
      assert.equal(r.status, status, JSON.stringify(body).slice(0, 60));
      assert.match(r.body.message, message);
      assert.equal(typeof r.body.code, "string");
      assert.equal(typeof r.body.hint, "string");
      assertRateHeaders(r.res, 3);
    }
    const malformed = await generate("{\"url\": ", client);
    assert.equal(malformed.status, 400);
    assert.ok(!/at .*\(.*:\d+:\d+\)|SyntaxError/.test(malformed.text), "no stack trace in the answer");
    const ok = await generate({ url: "https://example.com/after-errors" }, client);
    assert.equal(ok.status, 200);
    assert.equal(ok.res.headers.get("x-ratelimit-remaining"), "2", "errors used no quota");
  });

  it("a Safe Browsing lookup that fails lets no sandbox code through (a stand-in behind the front); a listed URL is refused, a clean one made", async () => {
    // The API's stand-in on loopback, named per request (X-Test-Safe-Browsing: honoured on the local stack only).
    const asked: string[] = [];
    const standIn = createServer((req, res) => {
      let raw = "";
      req.on("data", (chunk) => (raw += chunk));
      req.on("end", () => {
        const url: string = JSON.parse(raw).threatInfo.threatEntries[0].url;
        asked.push(`${req.method} ${req.url?.split("?")[0]} ${url}`);
        if (url.includes("fails.example")) return void res.writeHead(503).end("unavailable");
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(url.includes("listed.example") ? { matches: [{ threatType: "SOCIAL_ENGINEERING", cacheDuration: "300s" }] } : {}));
      });
    });
    await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
    const server = `127.0.0.1:${(standIn.address() as AddressInfo).port}`;
    try {
      const client = newClient();
      const send = (url: string) => client.fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json", "X-Test-Safe-Browsing": server }, body: JSON.stringify({ url }) });
      const before = (await firestore().collection("sandboxCodes").where("destinationUrl", "==", "https://fails.example/offer").count().get()).data().count;
      const failed = await send("https://fails.example/offer");
      const failedBody = await failed.json();
      assert.equal(failed.status, 503, JSON.stringify(failedBody));
      assert.equal(failedBody.code, "UNAVAILABLE");
      assert.match(failedBody.message, /could not be checked/);
      assert.equal(failed.headers.get("x-ratelimit-remaining"), "3", "the refused code used no quota");
      const listed = await send("https://listed.example/login");
      assert.equal(listed.status, 422, await listed.clone().text());
      assert.equal((await listed.json()).code, "DESTINATION_BLOCKED");
      const clean = await send("https://clean.example/menu");
      assert.equal(clean.status, 200);
      assert.equal(decodePng(Buffer.from((await clean.json()).code.qrImage.split(",")[1], "base64")).payload, "https://clean.example/menu");
      assert.equal(clean.headers.get("x-ratelimit-remaining"), "2", "only the clean code took quota");
      assert.deepEqual(asked, ["https://fails.example/offer", "https://listed.example/login", "https://clean.example/menu"].map((u) => `POST /v4/threatMatches:find ${u}`), "each lookup reached the stand-in");
      const after = (await firestore().collection("sandboxCodes").where("destinationUrl", "==", "https://fails.example/offer").count().get()).data().count;
      assert.equal(after, before, "nothing stored for the unchecked destination");
    } finally {
      await new Promise((resolve) => standIn.close(resolve));
    }
  });

  it("GET describes the request, response, limits, bulk endpoint and how to get a key", async () => {
    const res = await newClient().fetch(`${appUrl()}/api/generate-qr-code`);
    assert.equal(res.status, 200);
    assertRateHeaders(res, 3);
    const manifest: any = await res.json();
    assert.equal(manifest.method, "POST");
    assert.ok(manifest.request.url);
    for (const field of ["id", "destinationUrl", "qrImage", "claimToken", "expiresAt"]) assert.ok(manifest.response.code[field], field);
    assert.equal(manifest.limits.perIpPerDay, 3);
    assert.equal(manifest.limits.lifetimeDays, 7);
    assert.equal(manifest.bulk.endpoint, `${appUrl()}/api/bulk-qr-codes`);
    assert.ok(manifest.getApiKey.console);
    const catalog: any = await (await fetch(`${baseUrl()}/api`)).json();
    assert.equal(catalog.links.sandboxGenerator, `${appUrl()}/api/generate-qr-code`);
  });

  describe("claiming", () => {
    async function claim(token: string, idToken: string) {
      const res = await fetch(`${appUrl()}/api/console/claims`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${idToken}` },
        body: JSON.stringify({ claimToken: token }),
      });
      return { status: res.status, body: (await res.json()) as any };
    }

    it("claims once into the user's workspace as a permanent code with a hosted PNG", async () => {
      const sandbox = (await generate({ url: "https://example.com/keep-me" }, newClient())).body;
      const user = await signUp();
      const first = await claim(sandbox.code.claimToken, user.idToken);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.code.destinationUrl, "https://example.com/keep-me");
      assert.equal(first.body.code.source, "sandbox-claim");
      assert.equal(decodePng(await fetchPng(first.body.code.qrImageUrl)).payload, "https://example.com/keep-me");
      const listed = toolResult(await callTool("svc.qr.list", {}, user.idToken));
      assert.deepEqual(listed.codes.map((c: any) => c.codeId), [first.body.code.codeId]);
      const record = (await firestore().collection("sandboxCodes").doc(sandbox.code.id).get()).data()!;
      assert.ok(record.claimedAt);
      assert.equal(record.expiresAt, null, "a claimed code no longer expires");
      assert.equal(record.claimedBy.merchantId, first.body.merchantId);

      const again = await claim(sandbox.code.claimToken, user.idToken);
      assert.equal(again.status, 409);
      const other = await signUp();
      assert.equal((await claim(sandbox.code.claimToken, other.idToken)).status, 409);
    });

    it("concurrent claims of one token make one account code", async () => {
      const sandbox = (await generate({ url: "https://example.com/race" }, newClient())).body;
      const users = await Promise.all([signUp(), signUp(), signUp()]);
      const results = await Promise.all(users.map((u) => claim(sandbox.code.claimToken, u.idToken)));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
      const codes = await firestore().collectionGroup("codes").where("destinationUrl", "==", "https://example.com/race").get();
      assert.equal(codes.size, 1);
    });

    it("an expired code is gone (410) and an unknown token is 404", async () => {
      const sandbox = (await generate({ url: "https://example.com/old" }, newClient())).body;
      // Seven days pass: TTL deletion is lazy, so the record may still exist; reads must treat it as gone.
      await firestore().collection("sandboxCodes").doc(sandbox.code.id).update({ expiresAt: new Date(Date.now() - 1000) });
      const user = await signUp();
      const expired = await claim(sandbox.code.claimToken, user.idToken);
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, "GONE");
      assert.equal((await claim("claim_not-a-real-token", user.idToken)).status, 404);
      const noAuth = await fetch(`${appUrl()}/api/console/claims`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ claimToken: sandbox.code.claimToken }),
      });
      assert.equal(noAuth.status, 401);
    });
  });
});
