// MCP 2026-07-28 on the tool server's endpoint, rule by rule, with raw HTTP (docs/mcp.md, "2026-07-28 era").
import assert from "node:assert/strict";
import http from "node:http";
import { appUrl, mcpUrl } from "../helpers/env";
import { callTool, ENVELOPE_2026, postRaw, rpc, rpc2026, type HttpResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";

const SERVER_INFO = { name: "svc-mcp", version: "v0.1" };
const PV = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const INFO = "io.modelcontextprotocol/clientInfo";

function assertError(res: HttpResult, status: number, code: number, dataCode?: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.jsonrpc, "2.0");
  assert.equal(res.body.error.code, code, res.text);
  assert.equal(typeof res.body.error.message, "string");
  if (dataCode) assert.equal(res.body.error.data.code, dataCode, res.text);
}

function assertComplete(res: HttpResult) {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.result.resultType, "complete");
  assert.deepEqual(res.body.result._meta["io.modelcontextprotocol/serverInfo"], SERVER_INFO);
  return res.body.result;
}

/** POST with a Host header of our choosing (fetch does not allow setting it). */
function postWithHost(host: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = new URL(mcpUrl());
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers, Host: host } },
      (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

describe("MCP tool server: protocol 2026-07-28", () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  describe("server/discover and results", () => {
    it("server/discover answers without a credential: versions, capabilities, caching hints, identity", async () => {
      const res = await rpc2026("server/discover", {}, { id: "d1" });
      const result = assertComplete(res);
      assert.equal(res.body.id, "d1");
      assert.deepEqual(result.supportedVersions, ["2026-07-28", "2025-03-26"]);
      assert.deepEqual(result.capabilities, { tools: { listChanged: false }, resources: { listChanged: false }, extensions: { "io.modelcontextprotocol/tasks": {} } });
      assert.equal(typeof result.instructions, "string");
      assert.equal(result.ttlMs, 300_000);
      assert.equal(result.cacheScope, "public");
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    });

    it("tools/list carries ttlMs and cacheScope and lists the same tools as 2025-03-26, each title once where its era puts it", async () => {
      const result = assertComplete(await rpc2026("tools/list", {}, { credential: merchant.apiKey }));
      assert.equal(result.ttlMs, 300_000);
      assert.equal(result.cacheScope, "public");
      const legacy = await rpc("tools/list", undefined, merchant.apiKey);
      const asLegacy = (result.tools as any[]).map(({ title, annotations, ...rest }) => {
        assert.equal(annotations.title, undefined, `${rest.name}: 2026-07-28 gives the top-level title only`);
        return { ...rest, annotations: { title, ...annotations } };
      });
      for (const tool of legacy.body.result.tools) assert.equal(tool.title, undefined, `${tool.name}: 2025-03-26 has annotations.title only`);
      assert.deepEqual(asLegacy, legacy.body.result.tools);
      assert.equal(legacy.body.result.resultType, undefined, "2025-03-26 results are unchanged");
      assert.equal(legacy.body.result.ttlMs, undefined);
    });

    it("tools/call gives the 2025-03-26 output with resultType and the server's identity", async () => {
      const result = assertComplete(await rpc2026("tools/call", { name: "svc.ping", arguments: {} }, { credential: merchant.apiKey }));
      const legacy = await callTool("svc.ping", {}, merchant.apiKey);
      assert.deepEqual(result.structuredContent, legacy.body.result.structuredContent);
      assert.deepEqual(result.content, legacy.body.result.content);
      assert.equal(result.ttlMs, undefined, "tools/call results are not cacheable");
    });

    it("serves a request whose _meta omits clientInfo (a SHOULD)", async () => {
      const res = await rpc2026("server/discover", {}, { meta: { [PV]: "2026-07-28", [CAPS]: {} } });
      assertComplete(res);
    });
  });

  describe("_meta validation: 400 with -32602", () => {
    const cases: [string, Record<string, unknown> | null][] = [
      ["no _meta", null],
      ["no protocol version", { [CAPS]: {}, [INFO]: ENVELOPE_2026[INFO] }],
      ["no client capabilities", { [PV]: "2026-07-28", [INFO]: ENVELOPE_2026[INFO] }],
      ["capabilities that are not an object", { [PV]: "2026-07-28", [CAPS]: ["sampling"] }],
      ["a protocol version that is not a string", { [PV]: 20260728, [CAPS]: {} }],
      ["a malformed clientInfo", { [PV]: "2026-07-28", [CAPS]: {}, [INFO]: { name: "no version" } }],
    ];
    for (const [label, meta] of cases) {
      it(label, async () => {
        const res = await rpc2026("server/discover", {}, { meta, id: 41, headers: { "MCP-Protocol-Version": "2026-07-28" } });
        assertError(res, 400, -32602, "INVALID_META");
        assert.equal(res.body.id, 41);
      });
    }

    it("names the missing key", async () => {
      const res = await rpc2026("tools/list", {}, { meta: { [PV]: "2026-07-28" }, credential: merchant.apiKey });
      assert.match(res.body.error.message, /clientCapabilities/);
    });
  });

  describe("versions", () => {
    it("an unsupported version gets 400/-32022 listing the supported versions and echoing the requested one", async () => {
      const res = await rpc2026("server/discover", {}, { meta: { ...ENVELOPE_2026, [PV]: "2099-01-01" }, id: 7 });
      assertError(res, 400, -32022, "UNSUPPORTED_PROTOCOL_VERSION");
      assert.equal(res.body.id, 7);
      assert.deepEqual(res.body.error.data.supported, ["2026-07-28", "2025-03-26"]);
      assert.equal(res.body.error.data.requested, "2099-01-01");
    });

    it("2025-03-26 in per-request _meta is refused too: that version starts with initialize", async () => {
      const res = await rpc2026("tools/list", {}, { meta: { ...ENVELOPE_2026, [PV]: "2025-03-26" }, credential: merchant.apiKey });
      assertError(res, 400, -32022, "UNSUPPORTED_PROTOCOL_VERSION");
      assert.match(res.body.error.message, /initialize/);
    });

    it("a 2026-07-28 header without _meta is refused, not served as 2025-03-26", async () => {
      const res = await rpc2026("tools/list", {}, { meta: null, credential: merchant.apiKey });
      assertError(res, 400, -32602, "INVALID_META");
    });
  });

  describe("standard headers: 400 with -32020 (HeaderMismatch)", () => {
    const reject: [string, string, Record<string, unknown>, Record<string, string | null>][] = [
      ["MCP-Protocol-Version missing", "tools/list", {}, { "MCP-Protocol-Version": null }],
      ["MCP-Protocol-Version different from _meta", "tools/list", {}, { "MCP-Protocol-Version": "2099-01-01" }],
      ["Mcp-Method missing", "tools/list", {}, { "Mcp-Method": null }],
      ["Mcp-Method different from the body", "tools/list", {}, { "Mcp-Method": "prompts/list" }],
      ["Mcp-Method in another case (values are case-sensitive)", "tools/list", {}, { "Mcp-Method": "TOOLS/LIST" }],
      ["Mcp-Name missing on tools/call", "tools/call", { name: "svc.ping", arguments: {} }, { "Mcp-Name": null }],
      ["Mcp-Name different from params.name", "tools/call", { name: "svc.ping", arguments: {} }, { "Mcp-Name": "svc.qr.list" }],
      ["Mcp-Name with invalid Base64", "tools/call", { name: "svc.ping", arguments: {} }, { "Mcp-Name": "=?base64?c3ZjLnBpbmc?=" }],
      ["Mcp-Name for a call without params.name", "tools/call", { arguments: {} }, { "Mcp-Name": "svc.ping" }],
    ];
    for (const [label, method, params, headers] of reject) {
      it(label, async () => {
        const res = await rpc2026(method, params, { credential: merchant.apiKey, headers, id: "h" });
        assertError(res, 400, -32020, "HEADER_MISMATCH");
        assert.equal(res.body.id, "h");
      });
    }

    const accept: [string, string, Record<string, unknown>, Record<string, string | null>][] = [
      ["lowercase header names", "tools/list", {}, { "mcp-method": "tools/list", "mcp-protocol-version": "2026-07-28" }],
      ["uppercase header names", "tools/list", {}, { "MCP-METHOD": "tools/list", "MCP-PROTOCOL-VERSION": "2026-07-28" }],
      ["spaces around a value", "tools/call", { name: "svc.ping", arguments: {} }, { "Mcp-Name": "  svc.ping\t" }],
      ["a Base64-encoded Mcp-Name", "tools/call", { name: "svc.ping", arguments: {} }, { "Mcp-Name": `=?base64?${Buffer.from("svc.ping").toString("base64")}?=` }],
    ];
    for (const [label, method, params, headers] of accept) {
      it(`accepts ${label}`, async () => {
        assertComplete(await rpc2026(method, params, { credential: merchant.apiKey, headers }));
      });
    }

    it("with agreeing headers, an unknown tool is a tool error (200/-32602), as in 2025-03-26", async () => {
      assertError(await rpc2026("tools/call", { name: "svc.nope", arguments: {} }, { credential: merchant.apiKey }), 200, -32602, "UNKNOWN_TOOL");
    });
  });

  describe("methods", () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "prompts/list", "nope/nothing"]) {
      it(`${method}: 404 with -32601`, async () => {
        const res = await rpc2026(method, {}, { credential: merchant.apiKey, id: 404 });
        assertError(res, 404, -32601, "METHOD_NOT_FOUND");
        assert.equal(res.body.id, 404);
      });
    }

    it("server/discover is a 2026-07-28 method: without _meta and header it is unknown to 2025-03-26 (200/-32601)", async () => {
      assertError(await rpc("server/discover"), 200, -32601, "METHOD_NOT_FOUND");
    });
  });

  describe("the error table is the same in both eras", () => {
    const compare = async (label: string, legacy: Promise<HttpResult>, modern: Promise<HttpResult>) => {
      const [a, b] = await Promise.all([legacy, modern]);
      assert.equal(b.status, a.status, `${label}: HTTP status`);
      assert.equal(b.body.error?.code, a.body.error?.code, `${label}: JSON-RPC code`);
      assert.equal(b.body.error?.data?.code, a.body.error?.data?.code, `${label}: data.code`);
      assert.ok(a.body.error, `${label} is an error`);
    };

    it("authentication: NO_AUTH, INVALID_API_KEY, INVALID_TOKEN (401) and REVOKED (403), all -32001", async () => {
      await compare("no credential", rpc("tools/list"), rpc2026("tools/list"));
      const unknown = `sk-svc-${"0".repeat(64)}`;
      await compare("unknown key", rpc("tools/list", undefined, unknown), rpc2026("tools/list", {}, { credential: unknown }));
      await compare("bad token", callTool("svc.ping", {}, "not-a-token"), rpc2026("tools/call", { name: "svc.ping", arguments: {} }, { credential: "not-a-token" }));
      const m = await createMerchant();
      const consoleApi = (path: string, body?: unknown) =>
        fetch(`${appUrl()}/api/console/${path}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.idToken}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const minted: any = await (await consoleApi("keys", { name: "to revoke", scopes: ["merchant:read"] })).json();
      assert.equal((await consoleApi(`keys/${minted.keyId}/revoke`)).status, 200);
      const key: string = minted.key;
      const revoked = await rpc2026("tools/list", {}, { credential: key });
      assertError(revoked, 403, -32001, "REVOKED");
      await compare("revoked key", rpc("tools/list", undefined, key), Promise.resolve(revoked));
    });

    it("tools: unknown tool, bad arguments, missing scope, handler failure (HTTP 200)", async () => {
      const call2026 = (name: string, args: unknown, credential = merchant.apiKey) =>
        rpc2026("tools/call", { name, arguments: args }, { credential });
      await compare("unknown tool", callTool("svc.nope", {}, merchant.apiKey), call2026("svc.nope", {}));
      await compare("bad arguments", callTool("svc.ping", { merchantId: "x" }, merchant.apiKey), call2026("svc.ping", { merchantId: "x" }));
      const narrow = await mintKey(merchant, ["qr:write"]);
      await compare("missing scope", callTool("svc.merchant.get_profile", {}, narrow), call2026("svc.merchant.get_profile", {}, narrow));
      const gone = await createMerchant();
      await firestore().collection("workspaces").doc(gone.merchantId).delete();
      await compare("handler failure", callTool("svc.merchant.get_profile", {}, gone.apiKey), call2026("svc.merchant.get_profile", {}, gone.apiKey));
    });

    it("a tools/call writes the same audit event in both eras", async () => {
      const m = await createMerchant();
      await callTool("svc.ping", {}, m.apiKey);
      await rpc2026("tools/call", { name: "svc.ping", arguments: {} }, { credential: m.apiKey });
      const events = (await firestore().collection("auditEvents").where("merchantId", "==", m.merchantId).get()).docs.map((d) => d.data());
      assert.equal(events.length, 2);
      const comparable = events.map(({ at: _at, durationMs: _d, expiresAt: _e, ...rest }) => rest);
      assert.deepEqual(comparable[0], comparable[1]);
    });
  });

  describe("batches and notifications", () => {
    it("a batch holding a 2026-07-28 message is refused with 400/-32600 and no id", async () => {
      const batch = [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE_2026 } }];
      const res = await postRaw(JSON.stringify(batch), { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` });
      assertError(res, 400, -32600, "INVALID_REQUEST");
      assert.ok(!("id" in res.body));
    });

    it("a batch sent with a 2026-07-28 header is refused", async () => {
      const batch = [{ jsonrpc: "2.0", id: 1, method: "ping" }];
      const res = await postRaw(JSON.stringify(batch), { "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28" });
      assertError(res, 400, -32600);
    });

    it("a 2026-07-28 notification is accepted with 202 and no body; 2025-03-26 notifications keep 204", async () => {
      const modern = await rpc2026("notifications/cancelled", { requestId: 1 }, { notification: true, headers: { "Mcp-Method": null } });
      assert.equal(modern.status, 202);
      assert.equal(modern.text, "");
      const legacy = await postRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "Content-Type": "application/json" });
      assert.equal(legacy.status, 204);
    });

    it("a 2026-07-28 notification with a bad _meta gets 400 and an error without id", async () => {
      const res = await rpc2026("notifications/cancelled", {}, { notification: true, meta: { [PV]: "2026-07-28" } });
      assertError(res, 400, -32602);
      assert.ok(!("id" in res.body));
    });

    it("a null id is not a 2026-07-28 request id", async () => {
      assertError(await rpc2026("server/discover", {}, { id: null }), 400, -32600);
    });
  });

  describe("DNS rebinding protection", () => {
    const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE_2026 } };
    const modernHeaders = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" };

    it("a foreign Host gets 403 with a JSON-RPC error without id, in both eras", async () => {
      const modern = await postWithHost("evil.example.com", discover, modernHeaders);
      assert.equal(modern.status, 403);
      assert.equal(modern.body.error.data.code, "ORIGIN_NOT_ALLOWED");
      assert.ok(!("id" in modern.body));
      const legacy = await postWithHost("evil.example.com:5000", { jsonrpc: "2.0", id: 1, method: "ping" });
      assert.equal(legacy.status, 403);
    });

    it("the service's own host is served", async () => {
      const own = new URL(appUrl()).host;
      assert.equal((await postWithHost(own, discover, modernHeaders)).status, 200);
      assert.equal((await postWithHost(own.replace("127.0.0.1", "localhost"), discover, modernHeaders)).status, 200);
    });

    it("a present Origin must be one of the service's origins", async () => {
      const foreign = await rpc2026("server/discover", {}, { headers: { Origin: "http://evil.example.com" } });
      assertError(foreign, 403, -32600, "ORIGIN_NOT_ALLOWED");
      const opaque = await rpc("ping", undefined, undefined, { Origin: "null" });
      assert.equal(opaque.status, 403);
      assertComplete(await rpc2026("server/discover", {}, { headers: { Origin: new URL(appUrl()).origin } }));
      assert.equal((await rpc("ping", undefined, undefined, { Origin: new URL(appUrl()).origin })).status, 200);
    });
  });
});
