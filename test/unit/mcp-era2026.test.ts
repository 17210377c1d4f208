import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { AppError } from "../../functions/src/core/errors";
import {
  completeResult,
  eraOf,
  isModernVersion,
  readRequestEnvelope,
  RequestEnvelope,
  requireSupportedVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../../functions/src/mcp/era2026";
import { checkStandardHeaders, decodeMcpHeaderValue, headerValue } from "../../functions/src/mcp/httpHeaders";
import { McpDispatcher, type RpcMessage, type TransportContext } from "../../functions/src/mcp/protocol";

const PV = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const META = { [PV]: "2026-07-28", [CAPS]: {} };

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError);
    return e;
  }
  assert.fail("did not throw");
}

describe("MCP 2026-07-28: eras and _meta", () => {
  it("a message is 2026-07-28 when its _meta carries a reserved key, or when the header names 2026-07-28 or later", () => {
    assert.equal(eraOf({ method: "tools/list", params: { _meta: META } }, undefined), "2026-07-28");
    assert.equal(eraOf({ method: "tools/list", params: { _meta: { [CAPS]: {} } } }, undefined), "2026-07-28");
    assert.equal(eraOf({ method: "tools/list", params: {} }, "2026-07-28"), "2026-07-28");
    assert.equal(eraOf({ method: "tools/list", params: {} }, "v999.0.0"), "2026-07-28");
    assert.equal(eraOf({ method: "tools/list", params: { _meta: { progressToken: 1 } } }, "2025-03-26"), "2025-03-26");
    assert.equal(eraOf({ method: "initialize" }, undefined), "2025-03-26");
    assert.equal(isModernVersion("2025-11-25"), false);
    assert.equal(isModernVersion(undefined), false);
  });

  it("the envelope needs a protocol version string and a capabilities object; clientInfo is optional", () => {
    assert.deepEqual(readRequestEnvelope({ params: { _meta: META } }), { protocolVersion: "2026-07-28", clientCapabilities: {} });
    for (const params of [undefined, {}, { _meta: "x" }, { _meta: { [CAPS]: {} } }, { _meta: { [PV]: "2026-07-28" } }, { _meta: { [PV]: 1, [CAPS]: {} } }, { _meta: { ...META, [CAPS]: [] } }, { _meta: { ...META, "io.modelcontextprotocol/clientInfo": { name: "x" } } }, { _meta: { ...META, "io.modelcontextprotocol/logLevel": "loud" } }]) {
      const error = thrown(() => readRequestEnvelope({ params }));
      assert.equal(error.code, "INVALID_META", JSON.stringify(params));
      assert.equal(error.rpcCode, -32602);
      assert.equal(error.httpStatus, 400);
    }
    assert.match(thrown(() => readRequestEnvelope({ params: { _meta: { [CAPS]: {} } } })).message, /protocolVersion.*Required/);
  });

  it("the envelope's hand-checked common case accepts exactly what the schema accepts", () => {
    const metas: unknown[] = [
      META,
      { ...META, other: 1 },
      { ...META, [CAPS]: { extensions: { x: {} } } },
      { ...META, [CAPS]: Object.create(null) as object },
      { ...META, [CAPS]: new Date(0) },
      { ...META, [CAPS]: new Map() },
      { ...META, [CAPS]: null },
      { ...META, [PV]: "" },
      { ...META, progressToken: 1 },
      { ...META, progressToken: 1.5 },
      { ...META, "io.modelcontextprotocol/clientInfo": { name: "x", version: "1" } },
      { ...META, "io.modelcontextprotocol/logLevel": "debug" },
    ];
    for (const [i, meta] of metas.entries()) {
      const schema = RequestEnvelope.safeParse(meta);
      let ours: unknown;
      try {
        ours = readRequestEnvelope({ params: { _meta: meta } });
      } catch (e) {
        ours = e;
      }
      // Compared as JSON: the schema copies the capabilities object, the hand check passes it on.
      if (schema.success) assert.equal(JSON.stringify(ours), JSON.stringify({ protocolVersion: schema.data[PV], clientCapabilities: schema.data[CAPS] }), `envelope ${i}`);
      else assert.ok(ours instanceof AppError && ours.code === "INVALID_META", `envelope ${i}`);
    }
  });

  it("only 2026-07-28 is served per request; the error lists the supported versions and echoes the request", () => {
    requireSupportedVersion("2026-07-28");
    for (const version of ["2025-03-26", "2027-01-01", "v999.0.0"]) {
      const error = thrown(() => requireSupportedVersion(version));
      assert.equal(error.rpcCode, -32022);
      assert.equal(error.httpStatus, 400);
      assert.deepEqual(error.details, { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: version });
    }
  });

  it("results get resultType, the server's identity, and caching hints only where cacheable", () => {
    const listed = completeResult("tools/list", { tools: [] });
    assert.deepEqual(listed, {
      tools: [],
      ttlMs: 300_000,
      cacheScope: "public",
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "svc-mcp", version: "v0.1" } },
    });
    const called = completeResult("tools/call", { content: [], _meta: { other: 1 } });
    assert.equal(called.ttlMs, undefined);
    assert.deepEqual(called._meta, { other: 1, "io.modelcontextprotocol/serverInfo": { name: "svc-mcp", version: "v0.1" } });
  });
});

describe("MCP 2026-07-28: standard request headers", () => {
  const call: RpcMessage = { id: 1, method: "tools/call", params: { name: "svc.ping", arguments: {}, _meta: META }, isNotification: false };
  const good: IncomingHttpHeaders = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "svc.ping" };
  const check = (headers: IncomingHttpHeaders, message: RpcMessage = call) => checkStandardHeaders(headers, message)?.code;

  it("accepts headers that mirror the body, with optional whitespace around values", () => {
    assert.equal(check(good), undefined);
    assert.equal(check({ ...good, "mcp-name": " \tsvc.ping " }), undefined);
    assert.equal(check({ ...good, "mcp-name": "=?base64?c3ZjLnBpbmc=?=" }), undefined);
    assert.equal(headerValue({ "mcp-method": ["a", "b"] } as unknown as IncomingHttpHeaders, "Mcp-Method"), "a, b");
    for (const [raw, trimmed] of [["a", "a"], ["", ""], [" \t", ""], ["\ta b ", "a b"], ["a\t", "a"]]) assert.equal(headerValue({ "mcp-method": raw }, "mcp-method"), trimmed);
  });

  it("refuses missing, different or malformed headers with HEADER_MISMATCH", () => {
    const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== name));
    for (const headers of [
      without("mcp-protocol-version"),
      without("mcp-method"),
      without("mcp-name"),
      { ...good, "mcp-protocol-version": "2025-03-26" },
      { ...good, "mcp-method": "TOOLS/CALL" },
      { ...good, "mcp-name": "svc.qr.list" },
      { ...good, "mcp-name": "=?base64?!!!!?=" },
    ]) {
      assert.equal(check(headers), "HEADER_MISMATCH", JSON.stringify(headers));
    }
    const noName: RpcMessage = { ...call, params: { arguments: {}, _meta: META } };
    assert.equal(check(without("mcp-name"), noName), undefined, "no params.name: nothing to mirror");
    assert.equal(check(good, noName), "HEADER_MISMATCH", "a name the body does not have");
  });

  it("notifications need no headers, but a header that is sent must agree", () => {
    const note: RpcMessage = { id: null, method: "notifications/cancelled", params: { _meta: META }, isNotification: true };
    assert.equal(check({}, note), undefined);
    assert.equal(check({ "mcp-method": "tools/list" }, note), "HEADER_MISMATCH");
  });

  it("decodes the Base64 sentinel strictly (padding, alphabet, UTF-8)", () => {
    assert.equal(decodeMcpHeaderValue("plain"), "plain");
    assert.equal(decodeMcpHeaderValue(`=?base64?${Buffer.from("Grüße, 世界").toString("base64")}?=`), "Grüße, 世界");
    assert.equal(decodeMcpHeaderValue("=?base64?c3ZjLnBpbmc?="), undefined);
    assert.equal(decodeMcpHeaderValue("=?base64?/w==?="), undefined, "not UTF-8");
    assert.equal(decodeMcpHeaderValue("=?BASE64?c3Zj?="), "=?BASE64?c3Zj?=", "markers are case-sensitive");
  });
});

describe("MCP dispatcher: era routing and HTTP statuses", () => {
  const noAuth = () => Promise.reject(new AppError("NO_AUTH", "no credential"));
  const meta = { _meta: META };
  const handle = (body: unknown, transport: TransportContext = {}) => new McpDispatcher(noAuth).handleBody(body, transport);

  it("2026-07-28: discover 200, unknown method 404, auth 401, notification 202, batch 400", async () => {
    const discover = await handle({ jsonrpc: "2.0", id: 1, method: "server/discover", params: meta });
    assert.equal(discover.status, 200);
    assert.equal((await handle({ jsonrpc: "2.0", id: 2, method: "ping", params: meta })).status, 404);
    assert.equal((await handle({ jsonrpc: "2.0", id: 3, method: "tools/list", params: meta })).status, 401);
    assert.deepEqual(await handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: meta }), { status: 202 });
    assert.equal((await handle([{ jsonrpc: "2.0", id: 4, method: "tools/list", params: meta }])).status, 400);
  });

  it("the transport's check runs first and its error keeps the request id", async () => {
    const seen: RpcMessage[] = [];
    const outcome = await handle(
      { jsonrpc: "2.0", id: "x", method: "server/discover", params: {} },
      { checkModernMessage: (m) => (seen.push(m), new AppError("HEADER_MISMATCH", "no")), protocolVersionHeader: "2026-07-28" },
    );
    assert.equal(outcome.status, 400);
    assert.equal((outcome.body as any).id, "x");
    assert.equal((outcome.body as any).error.code, -32020);
    assert.equal(seen[0].method, "server/discover");
  });

  it("2025-03-26 is unchanged: -32601 at 200, notifications 204, batches answered", async () => {
    assert.equal((await handle({ jsonrpc: "2.0", id: 1, method: "server/discover" })).status, 200);
    assert.equal((await handle({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 204);
    const batch = await handle([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "tools/list" }]);
    assert.equal(batch.status, 200);
    assert.deepEqual((batch.body as any[]).map((r) => r.error?.code ?? "ok"), ["ok", -32001]);
    const init: any = (await handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })).body;
    assert.equal(init.result.protocolVersion, "2025-03-26");
    assert.equal(init.result.resultType, undefined);
  });
});
