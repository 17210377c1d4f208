// tools/call svc.ping: our JSON-RPC dispatcher vs the official SDK's stateless server (a new McpServer
// and StreamableHTTPServerTransport per request), same key check and audit write against the Firestore
// emulator, both served in this process on loopback.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpApp } from "../../functions/src/mcp/app";
import { authenticate } from "../../functions/src/auth/caller";
import { writeAuditEvent } from "../../functions/src/store/audit";
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
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc.ping", arguments: {} } });
  const call = (url: string) => async () => {
    const res = await post(url, body, {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${apiKey}`,
    });
    const json = JSON.parse(res.text) as { result?: { structuredContent?: { ok?: boolean } } };
    return res.status === 200 && json.result?.structuredContent?.ok === true;
  };
  // Warm both (JIT, connections, Firestore channel) before measuring; alternate order to share drift.
  await runLoad(100, 8, call(ours.url));
  await runLoad(100, 8, call(sdk.url));
  const cpu0 = process.cpuUsage();
  const sdkResult = await runLoad(requests, concurrency, call(sdk.url));
  const cpu1 = process.cpuUsage();
  const ourResult = await runLoad(requests, concurrency, call(ours.url));
  const cpu2 = process.cpuUsage();
  const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1000 / requests;
  printLoad("official SDK, stateless (baseline)", sdkResult);
  printLoad("svc dispatcher", ourResult);
  console.log(`  Node CPU per request (server + load client): SDK ${fmt(cpuMs(cpu0, cpu1))} ms, ours ${fmt(cpuMs(cpu1, cpu2))} ms`);
  console.log(`  throughput ratio (ours / SDK): ${fmt(ourResult.throughput / sdkResult.throughput)}x   p50 ratio (SDK / ours): ${fmt(sdkResult.p50 / ourResult.p50)}x   (goal >= 2x)`);
  ours.server.close();
  sdk.server.close();
  return { ours: ourResult, sdk: sdkResult };
}
