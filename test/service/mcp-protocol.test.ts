import assert from "node:assert/strict";
import { mcpUrl, appUrl } from "../helpers/env";
import { callTool, postRaw, rpc, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, signUp, type TestMerchant } from "../helpers/merchants";
import { DEFAULT_VIEW, listingFor, toolListing } from "../../functions/src/mcp/registry";

function assertRpcError(res: { status: number; body: any }, status: number, code: number, dataCode?: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.jsonrpc, "2.0");
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  assert.equal(typeof res.body.error.message, "string");
  if (dataCode) assert.equal(res.body.error.data.code, dataCode);
}

describe("MCP tool server: protocol", () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("initialize needs no auth and returns the protocol version and server info", async () => {
    const res = await rpc("initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.protocolVersion, "2025-03-26");
    assert.equal(res.body.result.serverInfo.name, "svc-mcp");
    assert.equal(res.body.result.serverInfo.version, "v0.1");
    assert.ok(res.body.result.capabilities.tools);
  });

  it("notifications/initialized is answered 204 with no body", async () => {
    const res = await postRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "Content-Type": "application/json" });
    assert.equal(res.status, 204);
    assert.equal(res.text, "");
  });

  it("ping needs no auth and returns an empty result", async () => {
    const res = await rpc("ping");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.result, {});
  });

  describe("error table", () => {
    it("400/-32600 for a body that is not JSON", async () => {
      const res = await postRaw("{not json", { "Content-Type": "text/plain" });
      assertRpcError(res, 400, -32600, "MALFORMED_JSON");
      assert.equal(res.body.id, null);
    });

    it("400 for malformed JSON declared as application/json (rejected by the Functions HTTP layer)", async () => {
      const res = await postRaw("{not json", { "Content-Type": "application/json" });
      assert.equal(res.status, 400);
    });

    it("400/-32600 for a request without method, or with a wrong jsonrpc version", async () => {
      assertRpcError(await postRaw(JSON.stringify({ jsonrpc: "2.0", id: 7 }), { "Content-Type": "application/json" }), 400, -32600);
      const wrongVersion = await postRaw(JSON.stringify({ jsonrpc: "1.0", id: 8, method: "ping" }), { "Content-Type": "application/json" });
      assertRpcError(wrongVersion, 400, -32600);
      assert.equal(wrongVersion.body.id, 8);
    });

    it("401/-32001 NO_AUTH without a credential", async () => {
      assertRpcError(await rpc("tools/list"), 401, -32001, "NO_AUTH");
      assertRpcError(await callTool("svc.ping", {}), 401, -32001, "NO_AUTH");
    });

    it("401/-32001 INVALID_API_KEY for a malformed or unknown sk-svc- key", async () => {
      assertRpcError(await rpc("tools/list", undefined, "sk-svc-short"), 401, -32001, "INVALID_API_KEY");
      assertRpcError(await rpc("tools/list", undefined, `sk-svc-${"A".repeat(64)}`), 401, -32001, "INVALID_API_KEY");
      assertRpcError(await rpc("tools/list", undefined, `sk-svc-${"0".repeat(64)}`), 401, -32001, "INVALID_API_KEY");
    });

    it("401/-32001 INVALID_TOKEN for any other bearer that fails verification", async () => {
      assertRpcError(await rpc("tools/list", undefined, "not-a-token"), 401, -32001, "INVALID_TOKEN");
      assertRpcError(await rpc("tools/list", undefined, "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"), 401, -32001, "INVALID_TOKEN");
      const basic = await postRaw(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), {
        "Content-Type": "application/json",
        Authorization: "Basic dXNlcjpwYXNz",
      });
      assertRpcError(basic, 401, -32001, "INVALID_TOKEN");
    });

    it("403/-32001 REVOKED on the very next request after revocation", async () => {
      const m = await createMerchant();
      const minted = await fetch(`${appUrl()}/api/console/keys`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.idToken}` },
        body: JSON.stringify({ name: "to revoke", scopes: ["merchant:read"] }),
      }).then((r) => r.json());
      assert.equal(toolResult(await callTool("svc.ping", {}, minted.key)).ok, true);
      const revoked = await fetch(`${appUrl()}/api/console/keys/${minted.keyId}/revoke`, {
        method: "POST",
        headers: { Authorization: `Bearer ${m.idToken}` },
      });
      assert.equal(revoked.status, 200);
      assertRpcError(await callTool("svc.ping", {}, minted.key), 403, -32001, "REVOKED");
      assertRpcError(await rpc("tools/list", undefined, minted.key), 403, -32001, "REVOKED");
    });

    it("200/-32601 for an unsupported method", async () => {
      assertRpcError(await rpc("prompts/list", undefined, merchant.apiKey), 200, -32601, "METHOD_NOT_FOUND");
    });

    it("200/-32602 for a missing or unknown tool name", async () => {
      assertRpcError(await rpc("tools/call", { arguments: {} }, merchant.apiKey), 200, -32602, "UNKNOWN_TOOL");
      assertRpcError(await callTool("svc.nope", {}, merchant.apiKey), 200, -32602, "UNKNOWN_TOOL");
    });

    it("200/-32602 for arguments that fail the tool's schema, with the issues in error.data", async () => {
      const res = await callTool("svc.ping", { merchantId: "someone-else" }, merchant.apiKey);
      assertRpcError(res, 200, -32602, "VALIDATION_FAILED");
      assert.equal(res.body.error.data.issues[0].code, "unrecognized_keys");
      assert.match(res.body.error.data.issues[0].message, /merchantId/);
      assertRpcError(await callTool("svc.ping", "not-an-object", merchant.apiKey), 200, -32602, "VALIDATION_FAILED");
    });

    it("200/-32000 for a handler failure, with the reason in error.message", async () => {
      const m = await createMerchant();
      await firestore().collection("workspaces").doc(m.merchantId).delete();
      const res = await callTool("svc.merchant.get_profile", {}, m.apiKey);
      assertRpcError(res, 200, -32000, "NOT_FOUND");
      assert.match(res.body.error.message, /Workspace not found/);
    });

    it("413 with a JSON-RPC error for a body over the 512 KiB limit", async () => {
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(520 * 1024) } });
      const res = await postRaw(big, { "Content-Type": "application/json" });
      assertRpcError(res, 413, -32600, "PAYLOAD_TOO_LARGE");
    });
  });

  describe("batches", () => {
    it("answer an array of responses, one per request, none for notifications", async () => {
      const batch = [
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "svc.ping", arguments: {} } },
        { jsonrpc: "2.0", id: "c", method: "nope" },
        { id: "d" },
      ];
      const res = await postRaw(JSON.stringify(batch), { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` });
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.body));
      const byId = new Map(res.body.map((r: any) => [r.id, r]));
      assert.equal(res.body.length, 4);
      assert.deepEqual((byId.get("a") as any).result, {});
      assert.equal((byId.get("b") as any).result.structuredContent.merchantId, merchant.merchantId);
      assert.equal((byId.get("c") as any).error.code, -32601);
      assert.equal((byId.get("d") as any).error.code, -32600);
    });

    it("an empty batch is an invalid request; a batch of notifications gets 204", async () => {
      assertRpcError(await postRaw("[]", { "Content-Type": "application/json" }), 400, -32600);
      const res = await postRaw(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }]), { "Content-Type": "application/json" });
      assert.equal(res.status, 204);
    });
  });

  describe("GET manifest", () => {
    it("describes the server and its tools without auth", async () => {
      const res = await fetch(mcpUrl());
      assert.equal(res.status, 200);
      const manifest: any = await res.json();
      assert.equal(manifest.name, "svc-mcp");
      assert.equal(manifest.endpoint, mcpUrl());
      assert.match(manifest.docs, /^http/);
      assert.ok(manifest.protocol);
      assert.ok(manifest.auth);
      for (const key of ["description", "generate", "bulk", "info"]) assert.equal(typeof manifest.freeTrial[key], "string", key);
      const names = manifest.tools.map((t: any) => t.name);
      assert.ok(names.includes("svc.ping") && names.includes("svc.merchant.get_profile"));
      for (const tool of manifest.tools) {
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.equal(typeof tool.description, "string");
      }
    });

    it("answers an SSE probe with 405 and Allow: POST", async () => {
      const res = await fetch(mcpUrl(), { headers: { Accept: "text/event-stream" } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "POST");
    });

    it("tools/list returns the default list; the manifest describes every tool in full", async () => {
      const manifest: any = await (await fetch(mcpUrl())).json();
      const res = await rpc("tools/list", undefined, merchant.apiKey);
      assert.deepEqual(res.body.result.tools, listingFor(DEFAULT_VIEW, "2025-03-26"));
      assert.deepEqual(manifest.tools, toolListing());
      const listed = new Set(res.body.result.tools.map((t: any) => t.name));
      assert.ok(manifest.tools.filter((t: any) => listed.has(t.name)).length === listed.size, "the manifest has every listed tool");
    });
  });

  describe("callers", () => {
    it("svc.ping reports the merchant and api-key auth for a key", async () => {
      const result = toolResult(await callTool("svc.ping", {}, merchant.apiKey));
      assert.deepEqual(result, { ok: true, merchantId: merchant.merchantId, authMethod: "api-key" });
    });

    it("accepts a Firebase ID token (authMethod id-token)", async () => {
      const result = toolResult(await callTool("svc.ping", {}, merchant.idToken));
      assert.deepEqual(result, { ok: true, merchantId: merchant.merchantId, authMethod: "id-token" });
    });

    it("accepts a session cookie minted by the console (authMethod session-cookie)", async () => {
      const res = await fetch(`${appUrl()}/api/console/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: new URL(appUrl()).origin },
        body: JSON.stringify({ idToken: merchant.idToken }),
      });
      assert.equal(res.status, 200);
      const setCookie = res.headers.get("set-cookie") ?? "";
      const match = /__session=([^;]+)/.exec(setCookie);
      assert.ok(match, setCookie);
      assert.match(setCookie, /HttpOnly/i);
      // A cookie rides along with cross-site requests, so a cookie-authenticated POST names its origin.
      const result = toolResult(await callTool("svc.ping", {}, undefined, { Cookie: `__session=${match![1]}`, Origin: new URL(appUrl()).origin }));
      assert.deepEqual(result, { ok: true, merchantId: merchant.merchantId, authMethod: "session-cookie" });
    });

    it("a signed-in user without a workspace gets a clear error", async () => {
      const user = await signUp();
      const res = await callTool("svc.ping", {}, user.idToken);
      assert.equal(res.body.error.data.code, "NO_WORKSPACE");
    });

    it("a key never sees another merchant's profile", async () => {
      const a = await createMerchant(undefined, "Merchant A");
      const b = await createMerchant(undefined, "Merchant B");
      const profileA = toolResult(await callTool("svc.merchant.get_profile", {}, a.apiKey));
      const profileB = toolResult(await callTool("svc.merchant.get_profile", {}, b.apiKey));
      assert.equal(profileA.merchantId, a.merchantId);
      assert.equal(profileA.name, "Merchant A");
      assert.equal(profileB.merchantId, b.merchantId);
      assert.equal(profileB.name, "Merchant B");
      const attempt = await callTool("svc.merchant.get_profile", { merchantId: a.merchantId }, b.apiKey);
      assert.equal(attempt.body.error.code, -32602);
    });

    it("a tool refuses a key without its scope and names the missing scope", async () => {
      const key = await mintKey(merchant, ["qr:write"]);
      const res = await callTool("svc.merchant.get_profile", {}, key);
      assertRpcError(res, 200, -32000, "INSUFFICIENT_SCOPE");
      assert.match(res.body.error.message, /merchant:read/);
      assert.equal(res.body.error.data.requiredScope, "merchant:read");
      assert.equal(toolResult(await callTool("svc.ping", {}, key)).ok, true, "svc.ping needs no scope");
    });
  });

  describe("audit", () => {
    it("writes one event per tools/call with caller, tool, status and duration, never arguments", async () => {
      const m = await createMerchant();
      await callTool("svc.ping", {}, m.apiKey);
      await callTool("svc.ping", { secret: "do-not-store" }, m.apiKey);
      const snap = await firestore().collection("auditEvents").where("merchantId", "==", m.merchantId).get();
      const events = snap.docs.map((d) => d.data());
      assert.equal(events.length, 2);
      const statuses = events.map((e) => e.status).sort();
      assert.deepEqual(statuses, ["VALIDATION_FAILED", "ok"]);
      for (const e of events) {
        assert.equal(e.uid, m.uid);
        assert.equal(e.tool, "svc.ping");
        assert.equal(e.authMethod, "api-key");
        assert.equal(e.keyPrefix, m.apiKey.slice(0, 15));
        assert.equal(typeof e.durationMs, "number");
        assert.ok(e.at);
        assert.ok(!JSON.stringify(e).includes("do-not-store"));
        assert.deepEqual(Object.keys(e).sort(), ["at", "authMethod", "durationMs", "expiresAt", "keyPrefix", "merchantId", "status", "tool", "uid"]);
        // Kept 400 days, then removed by the TTL policy on expiresAt (docs/data-model.md, "Retention").
        assert.equal(Math.round((e.expiresAt.toMillis() - e.at.toMillis()) / 86_400_000), 400);
      }
    });
  });
});
