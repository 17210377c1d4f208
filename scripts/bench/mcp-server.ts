// The tool servers under test, in a process of their own, so that `npm run bench mcp` reads the servers'
// CPU apart from the load client's: ours (the JSON-RPC dispatcher, as deployed: mcpApp) and the official
// SDK's stateless server (a new McpServer and StreamableHTTPServerTransport per request), both with the
// same key check and audit write against the Firestore emulator. Started by mcp.ts with IPC; prints
// nothing. Messages: {cpu: true} is answered with this process's process.cpuUsage(); with settle: true,
// after a young-generation garbage collection (the process runs with --expose-gc).
import type { AddressInfo } from "node:net";
import { createServer, type RequestListener } from "node:http";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpApp } from "../../functions/src/mcp/app";
import { authenticate } from "../../functions/src/auth/caller";
import { writeAuditEvent } from "../../functions/src/store/audit";

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

function listen(handler: RequestListener): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`));
  });
}

async function main(): Promise<void> {
  const [ours, sdk] = await Promise.all([listen(mcpApp), listen(sdkApp())]);
  process.on("message", (message: { cpu?: boolean; settle?: boolean }) => {
    if (!message.cpu) return;
    // A young-generation collection: cheap, and it clears what the round just finished left behind.
    if (message.settle) (globalThis as { gc?: (options: { type: "minor" }) => void }).gc?.({ type: "minor" });
    process.send!({ cpu: process.cpuUsage() });
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ ready: { ours, sdk } });
}

void main();
