// The tool servers under test, in a process of their own, so that `npm run bench mcp` reads the servers'
// CPU apart from the load client's: ours (the JSON-RPC dispatcher, as deployed: mcpApp) and the official
// SDK's stateless server (a new McpServer and StreamableHTTPServerTransport per request), both with the
// same key check and audit write against the Firestore emulator. Started by mcp.ts with IPC; prints
// nothing. Messages: {cpu: true} is answered with this process's process.cpuUsage() and its count of
// outgoing HTTP requests so far; with settle: true, after a young-generation garbage collection (the
// process runs with --expose-gc).
import type { AddressInfo } from "node:net";
import { subscribe } from "node:diagnostics_channel";
import { createServer, type RequestListener } from "node:http";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpApp } from "../../functions/src/mcp/app";
import { authenticate } from "../../functions/src/auth/caller";
import { writeAuditEvent } from "../../functions/src/store/audit";
import { findApiKeyByHash } from "../../functions/src/store/apiKeys";
import { hashApiKey } from "../../functions/src/auth/apiKeys";

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

/**
 * The floor: a bare node:http server making the same Firestore calls as a tools/call (the key's record
 * through the same shared batchGet, the audit event through the same batched commit, both straight to
 * Firestore's REST API: core/firestoreRest.ts) and nothing else: no protocol, limiter or headers. What it
 * costs per call is what those two requests alone cost.
 */
const floorApp: RequestListener = (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    void (async () => {
      const started = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: { name: string } };
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      const record = await findApiKeyByHash(hashApiKey(key));
      if (!record || record.revokedAt) {
        res.writeHead(401).end();
        return;
      }
      const result = { ok: true, merchantId: record.merchantId, authMethod: "api-key" };
      await writeAuditEvent({ merchantId: record.merchantId, uid: record.uid, authMethod: "api-key", keyPrefix: record.prefix, tool: body.params.name, status: "ok", durationMs: performance.now() - started });
      const text = JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result } });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) }).end(text);
    })();
  });
};

function listen(handler: RequestListener): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`));
  });
}

// Outgoing HTTP requests (the Firestore REST client's, and Auth's now and then), reported with the CPU.
let outgoing = 0;
subscribe("http.client.request.start", () => {
  outgoing++;
});

async function main(): Promise<void> {
  const [ours, sdk, floor] = await Promise.all([listen(mcpApp), listen(sdkApp()), listen(floorApp)]);
  process.on("message", (message: { cpu?: boolean; settle?: boolean }) => {
    if (!message.cpu) return;
    // A young-generation collection: cheap, and it clears what the round just finished left behind.
    if (message.settle) (globalThis as { gc?: (options: { type: "minor" }) => void }).gc?.({ type: "minor" });
    process.send!({ cpu: process.cpuUsage(), outgoing });
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ ready: { ours, sdk, floor } });
}

void main();
