// tools/call svc.ping: our JSON-RPC dispatcher, in both protocol eras (2025-03-26 and 2026-07-28), vs the
// official SDK's stateless server (a new McpServer and StreamableHTTPServerTransport per request, 2025 era),
// same key check and audit write against the Firestore emulator, all served in this process on loopback.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpApp } from "../../functions/src/mcp/app";
import { authenticate } from "../../functions/src/auth/caller";
import { writeAuditEvent } from "../../functions/src/store/audit";
import { getConfig } from "../../functions/src/core/config";
import { runLoad, printLoad, fmt, post, type LoadResult } from "./measure";

function sdkApp() {
  const app = express();
  app.use(express.json({ limit: "256kb" }));
  app.post("/api/mcp", async (req, res) => {
    let caller;
    try {
      caller = await authenticate({ authorization: req.headers.authorization, cookie: req.headers.cookie });
    } catch (e) {
      res.status(401).json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: String(e) } });
      return;
    }
    const server = new McpServer({ name: "svc-mcp", version: "v0.1" });
    server.registerTool("svc.ping", { description: "ping", inputSchema: {} }, async () => {
      const started = performance.now();
      const result = { ok: true, merchantId: caller.merchantId, authMethod: caller.authMethod };
      await writeAuditEvent({
        merchantId: caller.merchantId,
        uid: caller.uid,
        authMethod: caller.authMethod,
        keyPrefix: caller.keyPrefix ?? null,
        tool: "svc.ping",
        status: "ok",
        durationMs: performance.now() - started,
      });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return app;
}

function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp` });
    });
  });
}

export async function benchMcp(apiKey: string, requests = Number(process.env.BENCH_MCP_REQUESTS ?? 2000), concurrency = 32) {
  console.log(`\n[mcp] tools/call svc.ping, ${requests} requests, concurrency ${concurrency}, key check + audit on the Firestore emulator`);
  const ours = await listen(mcpApp as unknown as express.Express);
  const sdk = await listen(sdkApp());
  const params = { name: "svc.ping", arguments: {} };
  const legacyBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const modernBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: meta } });
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${apiKey}`,
    // As behind Firebase Hosting, which names the public host it was called at (the DNS-rebinding guard checks it).
    "X-Forwarded-Host": new URL(getConfig().appUrl).host,
  };
  const modernHeaders = { ...headers, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "svc.ping" };
  const call = (url: string, body: string, h: Record<string, string>) => async () => {
    const res = await post(url, body, h);
    const json = JSON.parse(res.text) as { result?: { structuredContent?: { ok?: boolean } } };
    return res.status === 200 && json.result?.structuredContent?.ok === true;
  };
  const sdkCall = call(sdk.url, legacyBody, headers);
  const legacyCall = call(ours.url, legacyBody, headers);
  const modernCall = call(ours.url, modernBody, modernHeaders);
  // Warm all (JIT, connections, Firestore channel) before measuring.
  for (const once of [legacyCall, modernCall, sdkCall]) await runLoad(100, 8, once);
  // Interleaved rounds: each contender runs a quarter of its requests in turn, so drift in the machine's
  // load (other processes, the emulator's JIT and GC) falls on all three alike.
  const ROUNDS = 4;
  const runs = { sdk: [] as LoadResult[], legacy: [] as LoadResult[], modern: [] as LoadResult[] };
  const cpu = { sdk: 0, legacy: 0, modern: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, once] of [["sdk", sdkCall], ["legacy", legacyCall], ["modern", modernCall]] as const) {
      const cpu0 = process.cpuUsage();
      runs[name].push(await runLoad(Math.ceil(requests / ROUNDS), concurrency, once));
      const cpu1 = process.cpuUsage();
      cpu[name] += cpu1.user - cpu0.user + cpu1.system - cpu0.system;
    }
  }
  const combined = (results: LoadResult[], cpuMicros: number) => {
    const total = results.reduce((n, r) => n + r.requests, 0);
    const seconds = results.reduce((n, r) => n + r.seconds, 0);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const result: LoadResult = {
      requests: total,
      seconds,
      throughput: total / seconds,
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      errors: results.reduce((n, r) => n + r.errors, 0),
    };
    return { result, cpuMs: cpuMicros / 1000 / total };
  };
  const sdkRun = combined(runs.sdk, cpu.sdk);
  const legacyRun = combined(runs.legacy, cpu.legacy);
  const modernRun = combined(runs.modern, cpu.modern);
  printLoad("official SDK, stateless (baseline)", sdkRun.result);
  printLoad("svc dispatcher, 2025-03-26", legacyRun.result);
  printLoad("svc dispatcher, 2026-07-28", modernRun.result);
  console.log(
    `  Node CPU per request (server + load client): SDK ${fmt(sdkRun.cpuMs)} ms, ours 2025-03-26 ${fmt(legacyRun.cpuMs)} ms, ours 2026-07-28 ${fmt(modernRun.cpuMs)} ms`,
  );
  for (const [label, run] of [["2025-03-26", legacyRun], ["2026-07-28", modernRun]] as const) {
    console.log(
      `  ${label}: throughput ratio (ours / SDK): ${fmt(run.result.throughput / sdkRun.result.throughput)}x   p50 ratio (SDK / ours): ${fmt(sdkRun.result.p50 / run.result.p50)}x   (goal >= 1.8x)`,
    );
  }
  ours.server.close();
  sdk.server.close();
  return { ours: legacyRun.result, ours2026: modernRun.result, sdk: sdkRun.result };
}
