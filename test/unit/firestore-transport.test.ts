// The Firestore client's HTTP leg (core/firestoreTransport.ts) answers gax's fetch as gaxios did: each
// request signed and sent whole, every status resolved with its body, an abort and a lost connection told
// apart. Against a plain HTTP server on loopback; the Firestore path itself runs under every service test.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { firestoreAuthClient } from "../../functions/src/core/firestoreTransport";

interface Fetching {
  fetch(url: string, init?: { method?: string; headers?: Headers; body?: string | Buffer; signal?: AbortSignal }): Promise<{
    status: number;
    ok: boolean;
    body: NodeJS.ReadableStream;
    arrayBuffer(): Promise<ArrayBuffer>;
  }>;
}

const signer = { getRequestHeaders: () => Promise.resolve(new Headers({ authorization: "Bearer owner" })) };
const client = firestoreAuthClient(signer) as Fetching;

describe("Firestore transport", () => {
  let server: http.Server;
  let base: string;
  let seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[];
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    answer = (_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
  });
  after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

  it("sends the request whole, signed, with the client's own headers, and resolves with the answer", async () => {
    const res = await client.fetch(`${base}/v1/projects/p/databases/(default)/documents:commit?$alt=json%3Benum-encoding=int`, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", "x-goog-request-params": "database=x" }),
      body: '{"writes":[]}',
    });
    assert.equal(res.status, 200);
    assert.equal(res.ok, true);
    assert.equal(Buffer.from(await res.arrayBuffer()).toString("utf8"), '{"ok":true}');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].method, "POST");
    assert.equal(seen[0].url, "/v1/projects/p/databases/(default)/documents:commit?$alt=json%3Benum-encoding=int");
    assert.equal(seen[0].body, '{"writes":[]}');
    assert.equal(seen[0].headers.authorization, "Bearer owner");
    assert.equal(seen[0].headers["x-goog-request-params"], "database=x");
    assert.equal(seen[0].headers["content-length"], "13");
  });

  it("resolves an error status with its body, for the client to decode into a gRPC code", async () => {
    answer = (_req, res) => res.writeHead(409, { "Content-Type": "application/json" }).end('{"error":{"code":409,"status":"ALREADY_EXISTS"}}');
    const res = await client.fetch(`${base}/x`, { method: "POST", body: "{}" });
    assert.equal(res.status, 409);
    assert.equal(res.ok, false);
    assert.match(Buffer.from(await res.arrayBuffer()).toString("utf8"), /ALREADY_EXISTS/);
  });

  it("streams the body of a long answer to its reader", async () => {
    const big = `[${Array.from({ length: 2000 }, (_, i) => JSON.stringify({ n: i })).join(",")}]`;
    answer = (_req, res) => res.writeHead(200).end(big);
    const res = await client.fetch(`${base}/stream`, { method: "POST", body: "{}" });
    let text = "";
    for await (const chunk of res.body) text += String(chunk);
    assert.equal(text, big);
  });

  it("rejects an aborted request as an AbortError and drops its connection", async () => {
    let closed!: () => void;
    const dropped = new Promise<void>((resolve) => (closed = resolve));
    answer = (req) => req.socket.once("close", closed); // never answers
    const controller = new AbortController();
    const pending = client.fetch(`${base}/hang`, { method: "POST", body: "{}", signal: controller.signal });
    while (seen.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    await assert.rejects(pending, { name: "AbortError" });
    await dropped;
  });

  it("bounds a signer that does not answer (a token refresh stuck on the network) by the same signal", async () => {
    const stuck = firestoreAuthClient({ getRequestHeaders: () => new Promise<Headers>(() => undefined) }) as Fetching;
    const controller = new AbortController();
    const pending = stuck.fetch(`${base}/x`, { method: "POST", body: "{}", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, { name: "AbortError" });
    assert.equal(seen.length, 0, "nothing sent unsigned");
  });

  it("rejects at once when the signal was aborted before the request", async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(client.fetch(`${base}/x`, { signal: controller.signal }), { name: "AbortError" });
    assert.equal(seen.length, 0);
  });

  it("rejects a lost connection with a plain error (the client's UNAVAILABLE, which it re-sends)", async () => {
    answer = (req) => req.socket.destroy();
    const error = await client.fetch(`${base}/reset`, { method: "POST", body: "{}" }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(error instanceof Error);
    assert.notEqual(error.name, "AbortError");
  });
});
