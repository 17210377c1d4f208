// The direct Firestore REST calls (core/firestoreRest.ts) against a plain HTTP server on loopback: values
// coded as the client codes them, and the client's retry rules (which codes are re-sent, for which call).
// The calls against the Firestore emulator: test/service/firestore-rest.test.ts.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Timestamp } from "firebase-admin/firestore";
import { AppError } from "../../functions/src/core/errors";
import { batchGetDocuments, commitWrites, decodeValue, encodeValue, FirestoreRestError, formatTimestamp, parseTimestamp } from "../../functions/src/core/firestoreRest";

describe("Firestore REST calls: values", () => {
  it("codes numbers as the client does: safe integers as integers, the rest as doubles", () => {
    assert.deepEqual(encodeValue(7), { integerValue: "7" });
    assert.deepEqual(encodeValue(-0), { doubleValue: -0 });
    assert.deepEqual(encodeValue(0.5), { doubleValue: 0.5 });
    assert.deepEqual(encodeValue(2 ** 60), { doubleValue: 2 ** 60 });
    assert.deepEqual(encodeValue(Number.NaN), { doubleValue: "NaN" });
    assert.deepEqual(encodeValue(-Infinity), { doubleValue: "-Infinity" });
    assert.equal(decodeValue({ integerValue: "9007199254740991" }), 9007199254740991);
    assert.ok(Number.isNaN(decodeValue({ doubleValue: "NaN" })));
  });

  it("keeps a timestamp's nanoseconds both ways, and reads offsets and short fractions", () => {
    const time = new Timestamp(1_732_950_000, 5);
    assert.equal(formatTimestamp(time), "2024-11-30T07:00:00.000000005Z");
    assert.ok(parseTimestamp(formatTimestamp(time)).isEqual(time));
    assert.ok(parseTimestamp("2024-11-30T08:00:00.5+01:00").isEqual(new Timestamp(1_732_950_000, 500_000_000)));
    assert.ok(parseTimestamp("1969-12-31T23:59:59Z").isEqual(new Timestamp(-1, 0)));
    assert.throws(() => parseTimestamp("yesterday"), TypeError);
  });

  it("refuses what the client refuses", () => {
    for (const value of [undefined, () => 1, Symbol("s"), 1n, new Map(), new (class Thing {})()]) assert.throws(() => encodeValue(value), TypeError);
  });
});

describe("Firestore REST calls: retries", function () {
  this.timeout(20_000);
  let server: http.Server;
  let hostBefore: string | undefined;
  let seen: { url: string; body: string }[];
  let answers: ((res: http.ServerResponse) => void)[];

  const json = (status: number, body: unknown) => (res: http.ServerResponse) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  const refusal = (status: number, name: string) => json(status, { error: { code: status, status: name, message: `${name} here` } });

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
        (answers.shift() ?? json(200, {}))(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    hostBefore = process.env.FIRESTORE_EMULATOR_HOST;
    process.env.FIRESTORE_EMULATOR_HOST = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    answers = [];
  });
  after(async () => {
    if (hostBefore === undefined) delete process.env.FIRESTORE_EMULATOR_HOST;
    else process.env.FIRESTORE_EMULATOR_HOST = hostBefore;
    await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  });

  it("re-sends a read Firestore could not serve, and maps the answer back to the order asked", async () => {
    const name = (id: string) => JSON.parse(seen[0].body).documents.find((n: string) => n.endsWith(`/${id}`));
    answers = [refusal(503, "UNAVAILABLE"), (res) => res.writeHead(502).end("<html>bad gateway</html>")];
    const reading = batchGetDocuments(["keys/a", "keys/b"]);
    // The third attempt answers, b before a.
    await new Promise((resolve) => setTimeout(resolve, 20));
    answers.push((res) => json(200, [{ found: { name: name("b"), fields: { n: { integerValue: "2" } } } }, { missing: name("a") }])(res));
    assert.deepEqual(await reading, [undefined, { n: 2 }]);
    assert.equal(seen.length, 3);
    assert.match(seen[0].url, /^\/v1\/projects\/[^/]+\/databases\/\(default\)\/documents:batchGet$/);
  });

  it("does not re-send what cannot change by re-sending, and names it", async () => {
    answers = [refusal(400, "INVALID_ARGUMENT")];
    await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof FirestoreRestError && e.code === 3 && /INVALID_ARGUMENT here/.test(e.message));
    assert.equal(seen.length, 1);
    // A read that lost to a transaction, or over quota, is the caller's to retry (the client does not re-send them either).
    answers = [refusal(409, "ABORTED"), refusal(429, "RESOURCE_EXHAUSTED")];
    await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof FirestoreRestError && e.code === 10);
    await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof FirestoreRestError && e.code === 8);
    assert.equal(seen.length, 3);
    // A bare 500 is INTERNAL, as gax reads it: a commit is not re-sent on it.
    answers = [(res) => res.writeHead(500).end()];
    await assert.rejects(commitWrites([{ path: "events/e0", data: {} }]), (e: unknown) => e instanceof FirestoreRestError && e.status === "INTERNAL");
    assert.equal(seen.length, 4);
  });

  it("re-sends a read whose answer was cut short", async () => {
    answers = [(res) => res.writeHead(200, { "Content-Type": "application/json" }).end('[{"missing": "proj'), json(200, [])];
    assert.deepEqual(await batchGetDocuments(["keys/a"]), [undefined]);
    assert.equal(seen.length, 2);
    answers = [json(200, { not: "a list" })];
    await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof FirestoreRestError && e.status === "UNKNOWN");
  });

  it("treats an error part in a streamed answer as the read's failure", async () => {
    answers = [json(200, [{ error: { code: 400, status: "FAILED_PRECONDITION", message: "no" } }])];
    await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof FirestoreRestError && e.status === "FAILED_PRECONDITION");
  });

  it("re-sends a commit on contention and overload, as a batch's commit is re-sent", async () => {
    answers = [refusal(409, "ABORTED"), refusal(429, "RESOURCE_EXHAUSTED")];
    await commitWrites([{ path: "events/e1", data: { n: 1, at: null }, serverTimes: ["at"] }]);
    assert.equal(seen.length, 3);
    assert.ok(seen.every((s) => s.body === seen[0].body), "the same commit each time");
    const body = JSON.parse(seen[0].body);
    assert.match(body.writes[0].update.name, /\/documents\/events\/e1$/);
    assert.deepEqual(body.writes[0].update.fields, { n: { integerValue: "1" }, at: { nullValue: null } });
    assert.deepEqual(body.writes[0].updateTransforms, [{ fieldPath: "at", setToServerValue: "REQUEST_TIME" }]);
    assert.equal(body.writes[0].currentDocument, undefined, "a set: a re-sent commit that had landed lands again");
  });

  it("never leaves for Google's endpoint from a local server without the emulator: refused at once", async () => {
    const host = process.env.FIRESTORE_EMULATOR_HOST;
    delete process.env.FIRESTORE_EMULATOR_HOST;
    try {
      const started = Date.now();
      await assert.rejects(batchGetDocuments(["keys/a"]), (e: unknown) => e instanceof AppError && e.code === "UNAVAILABLE");
      await assert.rejects(commitWrites([{ path: "events/e3", data: {} }]), (e: unknown) => e instanceof AppError && e.code === "UNAVAILABLE");
      assert.ok(Date.now() - started < 1_000, "not retried");
    } finally {
      process.env.FIRESTORE_EMULATOR_HOST = host;
    }
    assert.equal(seen.length, 0);
  });

  it("turns a lost connection into UNAVAILABLE, which it re-sends", async () => {
    answers = [(res) => res.socket?.destroy()];
    await commitWrites([{ path: "events/e2", data: { n: 1 } }]);
    assert.equal(seen.length, 2);
  });
});
