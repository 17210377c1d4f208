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
import { runLoad, printLoad, fmt, post } from "./measure";

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
  const measure = async (once: () => Promise<boolean>) => {
    const cpu0 = process.cpuUsage();
    const result = await runLoad(requests, concurrency, once);
    const cpu1 = process.cpuUsage();
    return { result, cpuMs: (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000 / requests };
  };
  const sdkRun = await measure(sdkCall);
  const legacyRun = await measure(legacyCall);
  const modernRun = await measure(modernCall);
  printLoad("official SDK, stateless (baseline)", sdkRun.result);
  printLoad("svc dispatcher, 2025-03-26", legacyRun.result);
  printLoad("svc dispatcher, 2026-07-28", modernRun.result);
  console.log(
    `  Node CPU per request (server + load client): SDK ${fmt(sdkRun.cpuMs)} ms, ours 2025-03-26 ${fmt(legacyRun.cpuMs)} ms, ours 2026-07-28 ${fmt(modernRun.cpuMs)} ms`,
  );
  for (const [label, run] of [["2025-03-26", legacyRun], ["2026-07-28", modernRun]] as const) {
    console.log(
      `  ${label}: throughput ratio (ours / SDK): ${fmt(run.result.throughput / sdkRun.result.throughput)}x   p50 ratio (SDK / ours): ${fmt(sdkRun.result.p50 / run.result.p50)}x   (goal >= 2x)`,
    );
  }
  ours.server.close();
  sdk.server.close();
  return { ours: legacyRun.result, ours2026: modernRun.result, sdk: sdkRun.result };
}
