// Input schemas are closed where the zod schemas are (issue 55): clients build strict function-calling
// schemas from every published inputSchema, so each object in one, at any depth, says
// `additionalProperties: false`; only a map (a zod record) says what its values are instead. And the server
// refuses what the schemas refuse: an unknown argument to any tool is a -32602 validation error, checked
// in process (validation runs before a handler touches Firestore).
import assert from "node:assert/strict";
import { z } from "zod";
import { DEFAULT_VIEW, listingFor, TOOLS, TOOLSET_NAMES, type ListingEra, type ToolView } from "../../functions/src/mcp/registry";
import { CATALOG_TOOLS } from "../../functions/src/mcp/catalog";
import { toolsSearchTool } from "../../functions/src/mcp/tools/toolsSearch";
import { mcpManifest } from "../../functions/src/mcp/manifest";
import { serverCard } from "../../functions/src/mcp/discovery";
import { McpDispatcher, type JsonRpcResponse } from "../../functions/src/mcp/protocol";
import { SCOPES } from "../../functions/src/auth/scopes";
import type { Caller } from "../../functions/src/auth/caller";

type Json = Record<string, unknown>;

const ERAS: ListingEra[] = ["2025-03-26", "2026-07-28"];
/** Keywords whose value is one schema, or a list of them. */
const SUBSCHEMA = ["items", "additionalProperties", "not", "if", "then", "else", "contains"];
const SUBSCHEMAS = ["anyOf", "oneOf", "allOf", "prefixItems"];

interface Found {
  /** Object schemas that are neither closed nor maps, as JSON pointers. */
  open: string[];
  /** Maps: objects without properties whose `additionalProperties` is a schema. */
  maps: string[];
}

function isObjectSchema(node: Json): boolean {
  const type = node.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || "properties" in node;
}

/** Every object schema in `schema` (nested objects, array items, anyOf branches...) sorted into open ones and maps. */
function objectSchemas(schema: unknown, path = "", found: Found = { open: [], maps: [] }): Found {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return found;
  const node = schema as Json;
  if (isObjectSchema(node) && node.additionalProperties !== false) {
    const map = !node.properties && typeof node.additionalProperties === "object" && node.additionalProperties !== null;
    (map ? found.maps : found.open).push(path || "/");
  }
  for (const [name, field] of Object.entries((node.properties ?? {}) as Json)) objectSchemas(field, `${path}/properties/${name}`, found);
  for (const key of SUBSCHEMA) objectSchemas(node[key], `${path}/${key}`, found);
  for (const key of SUBSCHEMAS) if (Array.isArray(node[key])) node[key].forEach((branch, i) => objectSchemas(branch, `${path}/${key}/${i}`, found));
  for (const key of ["$defs", "definitions"]) for (const [name, def] of Object.entries((node[key] ?? {}) as Json)) objectSchemas(def, `${path}/${key}/${name}`, found);
  return found;
}

/** Every `{name, inputSchema}` anywhere in a published document (a listing, the manifest, the server card). */
function toolsIn(doc: unknown, out: Array<{ name: string; inputSchema: unknown }> = []): Array<{ name: string; inputSchema: unknown }> {
  if (Array.isArray(doc)) doc.forEach((d) => toolsIn(d, out));
  else if (typeof doc === "object" && doc !== null) {
    const node = doc as Json;
    if ("inputSchema" in node) out.push({ name: String(node.name), inputSchema: node.inputSchema });
    else for (const value of Object.values(node)) toolsIn(value, out);
  }
  return out;
}

/** A zod schema without its optional, nullable and default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

/** Asserts each tool's input schema is closed at every level, a map only where zod has a record; returns how many schemas it read. */
function assertClosed(where: string, doc: unknown): number {
  const tools = toolsIn(doc);
  for (const { name, inputSchema } of tools) {
    const { open, maps } = objectSchemas(inputSchema);
    assert.deepEqual(open, [], `${where}: ${name} publishes open objects (no additionalProperties: false)`);
    const definition = TOOLS.find((t) => t.name === name)!;
    for (const map of maps) {
      const arg = /^\/properties\/([^/]+)$/.exec(map)?.[1];
      assert.ok(arg && unwrapped(definition.input.shape[arg] as z.ZodType) instanceof z.ZodRecord, `${where}: ${name} ${map} is an open map, but its zod schema is not a record`);
    }
  }
  return tools.length;
}

function views(): Array<[string, ToolView]> {
  const sets: Array<[string, ToolView["toolsets"]]> = [["/api/mcp", "default"], ...TOOLSET_NAMES.map((set): [string, ToolView["toolsets"]] => [`/x/${set}`, [set]]), ["/x/all", [...TOOLSET_NAMES]]];
  return sets.flatMap(([path, toolsets]) => [
    [path, { toolsets, readOnly: false }],
    [`${path}/readonly`, { toolsets, readOnly: true }],
  ]);
}

describe("MCP input schemas: closed in every listing", () => {
  it("the walk finds open objects at any depth (nested, array items, anyOf branches) and tells maps apart", () => {
    const schema = {
      type: "object",
      properties: {
        closed: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
        nested: { type: "object", properties: { inner: { type: ["object", "null"], properties: {} } }, additionalProperties: false },
        list: { type: "array", items: { type: "object", properties: { b: { type: "integer" } } } },
        either: { anyOf: [{ type: "object", additionalProperties: false }, { type: "object" }, { type: "null" }] },
        map: { type: "object", additionalProperties: { type: "integer" } },
      },
      additionalProperties: false,
    };
    assert.deepEqual(objectSchemas(schema), {
      open: ["/properties/nested/properties/inner", "/properties/list/items", "/properties/either/anyOf/1"],
      maps: ["/properties/map"],
    });
    assert.deepEqual(objectSchemas({ type: "object", properties: {} }).open, ["/"], "an open top level");
    assert.throws(() => assertClosed("example", { tools: [{ name: "svc.ping", inputSchema: schema }] }), /open objects/);
    assert.throws(() => assertClosed("example", { tools: [{ name: "svc.ping", inputSchema: { type: "object", properties: { map: schema.properties.map }, additionalProperties: false } }] }), /not a record/);
  });

  it("tools/list at every endpoint (default, toolsets, all, read-only), in both protocol eras", () => {
    for (const era of ERAS) {
      for (const [path, view] of views()) {
        const listed = assertClosed(`${path} ${era}`, { tools: listingFor(view, era) });
        assert.ok(listed > 0, `${path} ${era} lists tools`);
      }
    }
    assert.equal(assertClosed("default", { tools: listingFor(DEFAULT_VIEW) }), 16);
  });

  it("svc.tools.search's results, for every tool of the catalogue", async () => {
    const found = new Set<string>();
    for (const tool of CATALOG_TOOLS) {
      const result = await toolsSearchTool.handler({ query: tool.name, limit: 10 }, {} as never);
      assertClosed(`svc.tools.search "${tool.name}"`, result);
      for (const t of result.tools) found.add(t.name);
    }
    assert.deepEqual([...found].sort(), CATALOG_TOOLS.map((t) => t.name).sort(), "every tool came back from a search");
  });

  it("the GET /api/mcp manifest lists every tool, closed; the server card lists no input schema that is not", () => {
    assert.equal(assertClosed("manifest", mcpManifest()), TOOLS.length);
    // The card summarises tools by name and hints (their schemas are in tools/list and the manifest).
    assertClosed("server card", serverCard());
  });
});

describe("MCP tools/call: an unknown argument is refused by every tool", () => {
  // Every scope, so that only the arguments can fail; the call never reaches a handler. The audit write
  // after it fails at once without an emulator (core/firebase.ts) and is only logged: those lines are
  // kept out of the test's output, and counted (every call is audited, spec section 6).
  const caller: Caller = { merchantId: "m-strict", uid: "u-strict", authMethod: "api-key", scopes: [...SCOPES], isAdmin: false };
  const write = process.stderr.write.bind(process.stderr);
  let auditAttempts = 0;
  beforeEach(() => {
    auditAttempts = 0;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      if (String(chunk).includes('"event":"audit.write_failed"')) return (auditAttempts++, true);
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = write;
  });
  const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

  async function call(era: ListingEra, name: string, args: unknown): Promise<JsonRpcResponse> {
    const params = { name, arguments: args, ...(era === "2026-07-28" ? { _meta: META } : {}) };
    const outcome = await new McpDispatcher(async () => caller).handleBody({ jsonrpc: "2.0", id: 7, method: "tools/call", params });
    assert.equal(outcome.status, 200, `${era} ${name}: HTTP status`);
    return outcome.body as JsonRpcResponse;
  }

  /** The specification's error for bad arguments: -32602, with the issue naming the unknown key in error.data.issues. */
  function assertRefused(response: JsonRpcResponse, what: string, path = ""): void {
    assert.equal(response.result, undefined, `${what}: no result`);
    assert.equal(response.id, 7);
    assert.equal(response.error?.code, -32602, `${what}: ${JSON.stringify(response.error)}`);
    assert.equal(response.error?.data?.code, "VALIDATION_FAILED");
    assert.match(response.error!.message, /unknownArgument/);
    const issues = response.error?.data?.issues as Array<{ path: string; code: string; message: string }>;
    assert.ok(
      issues.some((i) => i.code === "unrecognized_keys" && i.path === path && /unknownArgument/.test(i.message)),
      `${what}: ${JSON.stringify(issues)}`,
    );
  }

  for (const era of ERAS) {
    it(`${era}: every tool, called by name`, async () => {
      for (const tool of TOOLS) assertRefused(await call(era, tool.name, { unknownArgument: 1 }), `${era} ${tool.name}`);
      assert.equal(auditAttempts, TOOLS.length, "each refused call is audited");
    });
  }

  it("every tool of the catalogue, run through svc.tools.execute", async () => {
    for (const tool of CATALOG_TOOLS) {
      const response = await call("2025-03-26", "svc.tools.execute", { name: tool.name, arguments: { unknownArgument: 1 } });
      assertRefused(response, `execute ${tool.name}`);
      assert.match(response.error!.message, new RegExp(`arguments for ${tool.name.replace(/\./g, "\\.")}`));
    }
  });

  it("an unknown field of a nested object (a brand design) is refused too", async () => {
    const args = { title: "Strict", destinationUrl: "https://example.com/", design: { moduleStyle: "dots", unknownArgument: 1 } };
    assertRefused(await call("2026-07-28", "svc.qr.create", args), "design", "design");
  });
});
