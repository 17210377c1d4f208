import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl } from "../helpers/env";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { decodePng, fetchPng } from "../helpers/qr";
import { eventually } from "../helpers/poll";
import { createCodes } from "../../functions/src/codes/service";
import { bulkApp } from "../../functions/src/bulk/app";
import { claimIdempotencyKey } from "../../functions/src/store/idempotency";
import { imageStore } from "../../functions/src/store/images";
import { sha256Hex } from "../../functions/src/core/hash";
import { Timestamp, WriteBatch } from "firebase-admin/firestore";
import type { Express } from "express";
import type { AddressInfo } from "node:net";

/** Serves the bulk endpoint in this process, so a test can reach into the call (stall it, lose a commit's answer). */
async function inProcessBulk(): Promise<{ base: string; close: () => void }> {
  const server = (bulkApp as unknown as Express).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function bulk(credential: string | undefined, body: unknown, headers: Record<string, string> = {}, base = appUrl()) {
  const res = await fetch(`${base}/api/bulk-qr-codes`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(credential ? { Authorization: `Bearer ${credential}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function codeCount(merchantId: string) {
  return (await firestore().collection("workspaces").doc(merchantId).collection("codes").count().get()).data().count;
}

describe("bulk endpoint", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  beforeEach(async () => {
    merchant = await createMerchant();
  });

  it("creates up to 50 permanent static codes in input order, each decoding to its URL", async () => {
    const urls = Array.from({ length: 50 }, (_, i) => `https://shop.example.com/product/${i}?ref=bulk`);
    const res = await bulk(merchant.apiKey, { urls });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true);
    assert.equal(res.body.count, 50);
    assert.deepEqual(res.body.codes.map((c: any) => c.destinationUrl), urls);
    assert.equal(res.body.codes[7].title, "shop.example.com/product/7");
    assert.deepEqual(Object.keys(res.body.codes[0]).sort(), ["codeId", "destinationUrl", "qrImageUrl", "title"]);
    for (const i of [0, 17, 49]) {
      assert.equal(decodePng(await fetchPng(res.body.codes[i].qrImageUrl)).payload, urls[i]);
    }
    assert.equal(await codeCount(merchant.merchantId), 50);
    const stored = await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(res.body.codes[0].codeId).get();
    assert.equal(stored.data()!.dynamic, false);
    assert.equal(stored.data()!.source, "bulk");
  });

  it("rejects bad bodies with 400 and writes nothing", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ urls: Array.from({ length: 51 }, (_, i) => `https://example.com/${i}`) }, /At most 50/],
      [{ urls: [] }, /at least one/],
      [{ urls: "https://example.com" }, /urls/],
      [{}, /urls/],
      [{ urls: ["https://example.com/ok", "ftp://example.com/bad", "https://example.com/ok2"] }, /urls\.1/],
      [{ urls: ["https://example.com"], extra: true }, /extra/],
    ];
    for (const [body, message] of cases) {
      const res = await bulk(merchant.apiKey, body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.code, "VALIDATION_FAILED");
      assert.match(res.body.message, message);
      for (const field of ["error", "code", "message", "hint"]) assert.equal(typeof res.body[field], "string");
    }
    const notJson = await fetch(`${appUrl()}/api/bulk-qr-codes`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", Authorization: `Bearer ${merchant.apiKey}` },
      body: "urls",
    });
    assert.equal(notJson.status, 415);
    assert.equal(await codeCount(merchant.merchantId), 0);
  });

  it("answers missing, bad and revoked credentials, and a missing scope, like the tool server", async () => {
    const none = await bulk(undefined, { urls: ["https://example.com"] });
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "NO_AUTH");
    const bad = await bulk(`sk-svc-${"f".repeat(64)}`, { urls: ["https://example.com"] });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.code, "INVALID_API_KEY");
    const token = await bulk("garbage", { urls: ["https://example.com"] });
    assert.equal(token.body.code, "INVALID_TOKEN");
    const readOnly = await mintKey(merchant, ["merchant:read"]);
    const scope = await bulk(readOnly, { urls: ["https://example.com"] });
    assert.equal(scope.status, 403);
    assert.equal(scope.body.code, "INSUFFICIENT_SCOPE");
    assert.match(scope.body.message, /qr:write/);
    await firestore().collection("apiKeys").where("merchantId", "==", merchant.merchantId).get().then((s) =>
      Promise.all(s.docs.map((d) => d.ref.update({ revokedAt: new Date() }))),
    );
    const revoked = await bulk(merchant.apiKey, { urls: ["https://example.com"] });
    assert.equal(revoked.status, 403);
    assert.equal(revoked.body.code, "REVOKED");
    assert.equal(await codeCount(merchant.merchantId), 0);
  });

  it("accepts a console user's ID token", async () => {
    const res = await bulk(merchant.idToken, { urls: ["https://example.com/by-token"] });
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 1);
  });

  it("Idempotency-Key: a retry returns the same codes, a different body with the same key is a conflict", async () => {
    const key = randomUUID();
    const urls = ["https://example.com/1", "https://example.com/2"];
    const first = await bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key });
    const [second, third] = await Promise.all([
      bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key }),
      bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key }),
    ]);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.deepEqual(third.body, first.body);
    assert.equal(second.headers.get("idempotent-replayed"), "true");
    assert.equal(await codeCount(merchant.merchantId), 2);
    const conflict = await bulk(merchant.apiKey, { urls: ["https://example.com/3"] }, { "Idempotency-Key": key });
    assert.equal(conflict.status, 409);
    const fresh = await bulk(merchant.apiKey, { urls }, { "Idempotency-Key": randomUUID() });
    assert.notEqual(fresh.body.codes[0].codeId, first.body.codes[0].codeId);
    assert.equal(await codeCount(merchant.merchantId), 4);
  });

  it("concurrent first calls with one Idempotency-Key create the codes once", async () => {
    const key = randomUUID();
    const urls = ["https://example.com/race/1", "https://example.com/race/2", "https://example.com/race/3"];
    const results = await Promise.all(Array.from({ length: 4 }, () => bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key })));
    for (const r of results) {
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.codes.map((c: any) => c.codeId), results[0].body.codes.map((c: any) => c.codeId));
    }
    assert.equal(await codeCount(merchant.merchantId), 3);
  });

  it("under real concurrency one of many first calls claims the key, and all answer with its codes", async () => {
    // Served in this process, so the calls really run at once (the Functions emulator may queue them).
    const server = (bulkApp as unknown as import("express").Express).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const base = `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}`;
      const key = randomUUID();
      const urls = ["https://example.com/rc/1", "https://example.com/rc/2"];
      const results = await Promise.all(Array.from({ length: 8 }, () => bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key }, base)));
      const sets = new Set(results.map((r) => JSON.stringify(r.body.codes?.map((c: any) => c.codeId))));
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(200), JSON.stringify(results.map((r) => r.body)));
      assert.equal(sets.size, 1, "one set of codes for every call");
      assert.equal(results.filter((r) => r.headers.get("idempotent-replayed") === "true").length, 7);
      assert.equal(await codeCount(merchant.merchantId), 2);
    } finally {
      server.close();
    }
    const claims = await Promise.all(Array.from({ length: 10 }, () => claimIdempotencyKey(merchant.merchantId, "race-key", "h")));
    assert.equal(claims.filter((c) => c.state === "claimed").length, 1, "exactly one claim");
  });

  it("all or nothing: a batch that fails part-way leaves no code, link or image behind", async () => {
    const inputs = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, destinationUrl: `https://example.com/${i}` }));
    const blocker = firestore().collection("workspaces").doc(merchant.merchantId).collection("blocker").doc("x");
    await blocker.set({ here: true });
    let created: Array<{ uniqueQRCodeID: string; qrImageUrl: string }> = [];
    await assert.rejects(
      createCodes(merchant.merchantId, inputs, "bulk", (batch, codes) => {
        created = codes;
        batch.create(blocker, { here: "again" }); // fails: already exists, so the whole batch fails
      }),
    );
    assert.equal(created.length, 5);
    assert.equal(await codeCount(merchant.merchantId), 0);
    for (const code of created) {
      assert.equal((await firestore().collection("links").doc(code.uniqueQRCodeID).get()).exists, false);
    }
    for (const code of created) assert.equal((await fetch(code.qrImageUrl)).status, 404, "image deleted");
  });

  it("a call stalled past its lease, whose key another call took over, writes nothing and answers with that call's codes", async () => {
    const served = await inProcessBulk();
    const store = imageStore();
    const put = store.put.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    store.put = async (...args) => {
      await gate; // the first call stalls while storing its images
      return put(...args);
    };
    try {
      const key = randomUUID();
      const urls = ["https://example.com/stall/1", "https://example.com/stall/2"];
      const stalled = bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key }, served.base);
      const record = firestore().collection("workspaces").doc(merchant.merchantId).collection("idempotency").doc(sha256Hex(key));
      await eventually(async () => (await record.get()).exists, Boolean, { intervalMs: 20, what: "the stalled call's claim" });
      // Its lease runs out (as after 130 s), and a retry through the deployed path takes the key over.
      await record.update({ leaseUntil: Timestamp.fromMillis(Date.now() - 1000) });
      const retry = await bulk(merchant.apiKey, { urls }, { "Idempotency-Key": key });
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      release();
      const late = await stalled;
      assert.equal(late.status, 200, JSON.stringify(late.body));
      assert.deepEqual(late.body.codes.map((c: any) => c.codeId), retry.body.codes.map((c: any) => c.codeId), "the stalled call answers with the codes that exist");
      assert.equal(late.headers.get("idempotent-replayed"), "true");
      assert.equal(await codeCount(merchant.merchantId), 2, "codes created once");
    } finally {
      store.put = put;
      release();
      served.close();
    }
  });

  it("a commit whose answer is lost keeps the images of the codes it wrote, and answers with them", async () => {
    const served = await inProcessBulk();
    const proto = WriteBatch.prototype as unknown as { _commit: (this: { _ops: unknown[] }, ...args: unknown[]) => Promise<unknown> };
    const commit = proto._commit;
    let armed = false;
    // The commit is applied, then its answer is lost (as on a deadline): the caller sees DEADLINE_EXCEEDED.
    proto._commit = async function (...args) {
      const result = await commit.apply(this, args);
      if (armed && this._ops.length >= 4) {
        armed = false;
        throw Object.assign(new Error("4 DEADLINE_EXCEEDED: answer lost (simulated)"), { code: 4 });
      }
      return result;
    };
    try {
      const urls = ["https://example.com/lost/1", "https://example.com/lost/2"];
      for (const headers of [{ "Idempotency-Key": randomUUID() }, {}] as Array<Record<string, string>>) {
        armed = true;
        const res = await bulk(merchant.apiKey, { urls }, headers, served.base);
        assert.equal(armed, false, "the commit's answer was lost");
        assert.equal(res.status, 200, JSON.stringify(res.body));
        for (const code of res.body.codes) {
          assert.equal((await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(code.codeId).get()).exists, true);
          assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, code.destinationUrl, "image kept");
        }
        if ("Idempotency-Key" in headers) {
          const again = await bulk(merchant.apiKey, { urls }, headers, served.base);
          assert.deepEqual(again.body, res.body);
        }
      }
      assert.equal(await codeCount(merchant.merchantId), 4);
    } finally {
      proto._commit = commit;
      served.close();
    }
  });
});
