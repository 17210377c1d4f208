// Toolset URLs, the read-only endpoint and the search-and-execute path, through Hosting, with the official
// SDK clients (v1 and v2), with a key and with OAuth (docs/mcp.md, "Toolsets").
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import * as v2 from "@modelcontextprotocol/client";
import { appUrl, mcpUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { consent, MemoryOAuthProvider } from "../helpers/oauth";
import { rpc } from "../helpers/rpc";
import { TOOLSETS } from "../../functions/src/mcp/registry";

const keyed = (credential: string) => ({ requestInit: { headers: { Authorization: `Bearer ${credential}` } } });

async function v1(url: string, credential: string): Promise<Client> {
  const client = new Client({ name: "svc-toolsets-v1", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), keyed(credential)));
  return client;
}

async function v2Client(url: string, credential: string): Promise<v2.Client> {
  const client = new v2.Client({ name: "svc-toolsets-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url), keyed(credential)));
  return client;
}

/** A tools/call the server refused, as either SDK reports it (a thrown JSON-RPC error). */
async function refused(call: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(call, pattern);
}

async function auditTools(merchant: TestMerchant): Promise<string[]> {
  const events = await firestore().collection("auditEvents").where("merchantId", "==", merchant.merchantId).get();
  return events.docs.map((d) => `${d.data().tool} ${d.data().status}`).sort();
}

describe("MCP toolsets: toolset URLs, read-only endpoints, search and execute", function () {
  this.timeout(90_000);

  it("SDK v1 with a key at /api/mcp/x/webhooks: lists the webhook tools in full, runs them, and no other", async () => {
    const merchant = await createMerchant();
    const client = await v1(`${mcpUrl()}/x/webhooks`, merchant.apiKey);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLSETS.webhooks.tools].sort());
      const hook: any = await client.callTool({ name: "svc.webhook.create", arguments: { url: "http://127.0.0.1:9/hook", events: ["code.published"] } });
      assert.match(hook.structuredContent.secret, /^whsec_/);
      const list: any = await client.callTool({ name: "svc.webhook.list", arguments: {} });
      assert.equal(list.structuredContent.webhooks.length, 1);
      // Text the receivers wrote is marked as such in the result.
      const log: any = await client.callTool({ name: "svc.webhook.deliveries", arguments: { webhookId: hook.structuredContent.webhookId } });
      assert.deepEqual(log.structuredContent.untrustedText, ["deliveries[].last.detail"]);
      assert.equal(log.structuredContent.truncated, false);
      await refused(client.callTool({ name: "svc.qr.create", arguments: { title: "x", destinationUrl: "https://example.com" } }), /not in the toolsets of this endpoint/);
    } finally {
      await client.close();
    }
  });

  it("SDK v2 (2026-07-28) with a key at /api/mcp/readonly: lists and runs only tools that change nothing", async () => {
    const merchant = await createMerchant();
    const client = await v2Client(`${mcpUrl()}/readonly`, merchant.apiKey);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const { tools } = await client.listTools();
      assert.ok(tools.length >= 6);
      for (const tool of tools) assert.ok(tool.annotations?.readOnlyHint, tool.name);
      assert.ok(!tools.some((t) => t.name === "svc.qr.create"));
      const list: any = await client.callTool({ name: "svc.qr.list", arguments: {} });
      assert.equal(list.structuredContent.count, 0);
      await refused(client.callTool({ name: "svc.qr.create", arguments: { title: "x", destinationUrl: "https://example.com" } }), /read-only/);
      // Nor through execute: the inner tool's hints decide.
      await refused(client.callTool({ name: "svc.tools.execute", arguments: { name: "svc.webhook.delete", arguments: { webhookId: "wh_x" } } }), /read-only/);
      const viaExecute: any = await client.callTool({ name: "svc.tools.execute", arguments: { name: "svc.webhook.list", arguments: {} } });
      assert.deepEqual(viaExecute.structuredContent.result.webhooks, []);
      assert.deepEqual((await firestore().collection("codes").where("merchantId", "==", merchant.merchantId).get()).size, 0, "nothing was created");
    } finally {
      await client.close();
    }
  });

  it("from the default list, one search finds a long-tail tool and execute runs it under its own name, scope and audit", async () => {
    const merchant = await createMerchant();
    for (const connect of [v1, v2Client] as const) {
      const client = await connect(mcpUrl(), merchant.apiKey);
      try {
        const { tools } = await client.listTools();
        assert.ok(!tools.some((t) => t.name.startsWith("svc.webhook.")), "the long tail is not in the default list");
        const found: any = await client.callTool({ name: "svc.tools.search", arguments: { query: "rotate webhook secret" } });
        const rotate = found.structuredContent.tools.find((t: any) => t.name === "svc.webhook.rotate_secret");
        assert.ok(rotate, "found by its obvious words");
        assert.deepEqual(rotate.inputSchema.required, ["webhookId"]);
        assert.ok(found.structuredContent.toolsets.some((s: any) => s.url === `${mcpUrl()}/x/webhooks`));
        const created: any = await client.callTool({ name: "svc.tools.execute", arguments: { name: "svc.webhook.create", arguments: { url: "http://127.0.0.1:9/h", events: ["scan.created"] } } });
        assert.equal(created.structuredContent.tool, "svc.webhook.create");
        assert.match(created.structuredContent.result.secret, /^whsec_/);
        // Unlisted, still callable by name at /api/mcp: integrations from before toolsets keep working.
        const listed: any = await client.callTool({ name: "svc.webhook.list", arguments: {} });
        assert.ok(listed.structuredContent.webhooks.length >= 1);
      } finally {
        await client.close();
      }
    }
    const audit = await auditTools(merchant);
    assert.deepEqual(audit.filter((e) => e.startsWith("svc.webhook.create")), ["svc.webhook.create ok", "svc.webhook.create ok"], "audited under the inner tool's name");
    assert.ok(!audit.some((e) => e.startsWith("svc.tools.execute")), "execute itself is not audited once it forwarded");
    // The inner tool's scope: a key without webhooks:write cannot create one through execute.
    const narrow = await mintKey(merchant, ["merchant:read"]);
    const answer = await rpc("tools/call", { name: "svc.tools.execute", arguments: { name: "svc.webhook.create", arguments: { url: "http://127.0.0.1:9/h", events: ["scan.created"] } } }, narrow);
    assert.equal(answer.body.error?.data?.code, "INSUFFICIENT_SCOPE");
    assert.equal(answer.body.error?.data?.requiredScope, "webhooks:write");
  });

  it("a bad toolset path is a clear 404; execute cannot run itself", async () => {
    const merchant = await createMerchant();
    const res = await fetch(`${mcpUrl()}/x/nope`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 404);
    const body: any = await res.json();
    assert.match(body.error.data.hint, /webhooks/);
    const loop = await rpc("tools/call", { name: "svc.tools.execute", arguments: { name: "svc.tools.execute", arguments: {} } }, merchant.apiKey);
    assert.match(loop.body.error?.message ?? "", /not itself/);
  });

  it("a 401 at a toolset or read-only URL names that URL's protected resource metadata, whose resource is that URL", async () => {
    for (const rest of ["", "/readonly", "/x/webhooks", "/x/designs,jobs/readonly"]) {
      const res = await fetch(`${mcpUrl()}${rest}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
      assert.equal(res.status, 401, rest);
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get("www-authenticate") ?? "")?.[1];
      assert.equal(metadataUrl, `${appUrl()}/.well-known/oauth-protected-resource${new URL(mcpUrl()).pathname}${rest}`, rest);
      const metadata: any = await (await fetch(metadataUrl!)).json();
      assert.equal(metadata.resource, `${mcpUrl()}${rest}`, rest);
      assert.deepEqual(metadata.authorization_servers, [appUrl()]);
    }
    const unknown = await fetch(`${appUrl()}/.well-known/oauth-protected-resource${new URL(mcpUrl()).pathname}/x/nope`);
    assert.equal(unknown.status, 404);
  });

  it("one OAuth token, issued for /api/mcp, works at a toolset URL (SDK v1), the read-only endpoint (SDK v2) and the search path (both)", async () => {
    const merchant = await createMerchant();
    const provider = new MemoryOAuthProvider();
    const net = newClient();
    const url = `${mcpUrl()}/x/webhooks`;
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: net.fetch as typeof fetch });
    const client = new Client({ name: "svc-toolsets-oauth", version: "1.0.0" });
    await client.connect(transport);
    await assert.rejects(client.listTools(), UnauthorizedError);
    // The client asks for the URL it connected to, as that URL's metadata names it (RFC 9728 section 3.3);
    // the token is bound to the tool server's URL and so works at every endpoint below (used further down).
    assert.equal(provider.authorizationUrl!.searchParams.get("resource"), url);
    const { redirect } = await consent(net, provider.authorizationUrl!, merchant);
    await transport.finishAuth(redirect.searchParams.get("code")!);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLSETS.webhooks.tools].sort());
      const list: any = await client.callTool({ name: "svc.webhook.list", arguments: {} });
      assert.deepEqual(list.structuredContent.webhooks, []);
    } finally {
      await client.close();
    }
    const token = provider.saved!.access_token;
    const readOnly = await v2Client(`${mcpUrl()}/readonly`, token);
    try {
      const ping: any = await readOnly.callTool({ name: "svc.ping", arguments: {} });
      assert.deepEqual(ping.structuredContent, { ok: true, merchantId: merchant.merchantId, authMethod: "oauth" });
    } finally {
      await readOnly.close();
    }
    // And the search path at the default endpoint, with the same token and both SDKs.
    for (const connect of [v1, v2Client] as const) {
      const client = await connect(mcpUrl(), token);
      try {
        const found: any = await client.callTool({ name: "svc.tools.search", arguments: { query: "webhook deliveries" } });
        assert.equal(found.structuredContent.tools[0].name, "svc.webhook.deliveries");
        const ran: any = await client.callTool({ name: "svc.tools.execute", arguments: { name: "svc.webhook.list", arguments: {} } });
        assert.deepEqual(ran.structuredContent.result.webhooks, []);
      } finally {
        await client.close();
      }
    }
  });

  it("a connection made at the read-only URL gets a read-only token: it cannot write at the full URL either (review 4, L3)", async () => {
    const merchant = await createMerchant();
    const provider = new MemoryOAuthProvider();
    const net = newClient();
    const url = `${mcpUrl()}/readonly`;
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: net.fetch as typeof fetch });
    const client = new Client({ name: "svc-readonly-oauth", version: "1.0.0" });
    await client.connect(transport);
    await assert.rejects(client.listTools(), UnauthorizedError);
    const { redirect } = await consent(net, provider.authorizationUrl!, merchant);
    await transport.finishAuth(redirect.searchParams.get("code")!);
    await client.close();
    const token = provider.saved!.access_token;
    const full = await v1(mcpUrl(), token);
    try {
      const ping: any = await full.callTool({ name: "svc.ping", arguments: {} });
      assert.equal(ping.structuredContent.ok, true);
      const made: any = await full.callTool({ name: "svc.qr.create", arguments: { destinationUrl: "https://example.com/ro", dynamic: true } }).catch((e: unknown) => e);
      assert.match(JSON.stringify(made instanceof Error ? made.message : made), /scope|INSUFFICIENT_SCOPE|qr:write/i);
      assert.ok(!(made?.structuredContent?.codeId), "no code was made");
    } finally {
      await full.close();
    }
  });
});

describe("MCP analytics: field selection", function () {
  this.timeout(60_000);

  it("returns only the figures asked for, with the window, the code and the figures' freshness; every figure by default", async () => {
    const merchant = await createMerchant();
    const client = await v1(mcpUrl(), merchant.apiKey);
    try {
      await client.listTools(); // the SDK then checks each result against the listed outputSchema
      const code: any = await client.callTool({ name: "svc.qr.create", arguments: { title: "Till", destinationUrl: "https://example.com/till", dynamic: true } });
      const { codeId } = code.structuredContent;
      const some: any = await client.callTool({ name: "svc.qr.get_analytics", arguments: { codeId, days: 7, fields: ["totalScans", "byDay"] } });
      assert.deepEqual(Object.keys(some.structuredContent).sort(), ["byDay", "codeId", "consoleUrl", "days", "dynamic", "from", "lagSeconds", "pending", "timeZone", "to", "totalScans", "uniqueQRCodeID"].sort());
      assert.equal(some.structuredContent.byDay.length, 7);
      assert.match(some.content[0].text, new RegExp(`^Code ${codeId}: 0 scans from `));
      const all: any = await client.callTool({ name: "svc.qr.get_analytics", arguments: { codeId, days: 7 } });
      for (const key of ["scans", "scansListed", "hourByWeekday", "browsers", "botScans"]) assert.ok(key in all.structuredContent, key);
      const summary: any = await client.callTool({ name: "svc.analytics.scan_summary", arguments: { fields: ["topCodes"] } });
      assert.deepEqual(Object.keys(summary.structuredContent).sort(), ["days", "from", "lagSeconds", "pending", "timeZone", "to", "topCodes"]);
      await refused(client.callTool({ name: "svc.analytics.scan_summary", arguments: { fields: ["secrets"] } }), /fields/);
      await refused(client.callTool({ name: "svc.analytics.scan_summary", arguments: { fields: [] } }), /fields/);
    } finally {
      await client.close();
    }
  });
});
