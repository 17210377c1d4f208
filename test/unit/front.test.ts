// The local front sends a request once more on a fresh socket when a kept-alive socket is reset before any
// answer (the emulator closed it while idle, as the request went out), and only then.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parsesAsHost, startFront, type RunningFront } from "../../scripts/lib/front";

/**
 * An upstream that resets a socket, unanswered, when `reset` says so for the request's number on its socket
 * (1 for a fresh socket): the race in which a server closes an idle kept-alive socket.
 */
async function upstreamResettingReusedSockets(initial: (socketRequest: number) => boolean) {
  const seen: Array<{ method: string; body: string; socketRequest: number }> = [];
  const state = { reset: initial };
  const server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", body: Buffer.concat(chunks).toString(), socketRequest: socket.requests! });
      if (state.reset(socket.requests!)) {
        socket.resetAndDestroy();
        return;
      }
      res.end(`ok ${Buffer.concat(chunks).toString()}`);
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { server, seen, state, port: (server.address() as AddressInfo).port };
}

async function freePort(): Promise<number> {
  const probe = http.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => probe.once("listening", r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Sends one request through the front on a connection of its own, as a separate client would. */
async function through(port: number, method: string, body?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/x`, { method, body, headers: { connection: "close" } });
  return { status: res.status, text: await res.text() };
}

describe("local front: a reset kept-alive socket", () => {
  let front: RunningFront | undefined;
  let upstream: Awaited<ReturnType<typeof upstreamResettingReusedSockets>> | undefined;
  afterEach(async () => {
    await front?.close();
    upstream?.server.closeAllConnections();
    upstream?.server.close();
    front = undefined;
    upstream = undefined;
  });

  it("sends the request again, body and all, on a fresh socket, and the client sees the answer", async () => {
    let resets = 0;
    upstream = await upstreamResettingReusedSockets((n) => n > 1 && resets++ === 0);
    const listenPort = await freePort();
    front = await startFront({ host: "127.0.0.1", routes: [{ listenPort, targetPort: upstream.port, viaHosting: false }] });
    assert.deepEqual(await through(listenPort, "GET"), { status: 200, text: "ok " });
    // The front's agent reuses the socket of the first request: the upstream resets it, unanswered.
    assert.deepEqual(await through(listenPort, "POST", "a body"), { status: 200, text: "ok a body" });
    assert.deepEqual(
      upstream.seen.map((s) => [s.method, s.body, s.socketRequest]),
      [
        ["GET", "", 1],
        ["POST", "a body", 2],
        ["POST", "a body", 1],
      ],
    );
  });

  it("tries once more only: a reset of the fresh socket too answers 502", async () => {
    upstream = await upstreamResettingReusedSockets(() => false);
    const listenPort = await freePort();
    front = await startFront({ host: "127.0.0.1", routes: [{ listenPort, targetPort: upstream.port, viaHosting: false }] });
    assert.equal((await through(listenPort, "GET")).status, 200);
    upstream.state.reset = () => true;
    assert.deepEqual(await through(listenPort, "GET"), { status: 502, text: "front: upstream unavailable" });
    assert.deepEqual(
      upstream.seen.map((s) => s.socketRequest),
      [1, 2, 1],
      "the reused socket, then one fresh socket, then no more",
    );
  });

  it("does not resend after a reset on a fresh socket", async () => {
    upstream = await upstreamResettingReusedSockets(() => true);
    const listenPort = await freePort();
    front = await startFront({ host: "127.0.0.1", routes: [{ listenPort, targetPort: upstream.port, viaHosting: false }] });
    assert.equal((await through(listenPort, "POST", "once")).status, 502);
    assert.deepEqual(upstream.seen.map((s) => [s.body, s.socketRequest]), [["once", 1]]);
  });
});

describe("local front: Host headers the Functions emulator cannot take", () => {
  it("takes a host name, an address and a port as hosts, and not a space, a punycode label that does not decode, or nothing", () => {
    for (const host of ["scan.brand.example", "SCAN.brand.example.", "127.0.0.1:5443", "[::1]", "xn--bcher-kva.example"]) assert.ok(parsesAsHost(host), host);
    for (const host of ["scan.brand.example scan.brand.example", "xn--zz.example", "", "a b"]) assert.ok(!parsesAsHost(host), JSON.stringify(host));
  });
});
