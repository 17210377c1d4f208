// The tool server's contract: the exact tools/list (names, titles, annotations, input and output schemas)
// is held in test/snapshots/mcp-tools-list.json, a reviewed file. Any change to it must be written there on
// purpose: `UPDATE_SNAPSHOT=1 npm run test:unit -- --grep "tools/list snapshot"` rewrites it (this test
// never does so by itself), then review the diff.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { findTool, TOOLS, toolListing } from "../../functions/src/mcp/registry";
import { HINT_DEFAULTS, type ToolAnnotations } from "../../functions/src/mcp/tool";
import { UI_RESOURCES } from "../../functions/src/mcp/ui/resources";

const SNAPSHOT = join(__dirname, "..", "snapshots", "mcp-tools-list.json");
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** A published hint set read back with MCP's defaults (a read-only tool destroys nothing and repeats safely). */
function hintsReadBack(published: Partial<ToolAnnotations>): ToolAnnotations {
  const readOnly = published.readOnlyHint ?? HINT_DEFAULTS.readOnlyHint;
  return {
    readOnlyHint: readOnly,
    destructiveHint: readOnly ? false : (published.destructiveHint ?? HINT_DEFAULTS.destructiveHint),
    idempotentHint: readOnly ? true : (published.idempotentHint ?? HINT_DEFAULTS.idempotentHint),
    openWorldHint: published.openWorldHint ?? HINT_DEFAULTS.openWorldHint,
  };
}

describe("MCP tools/list snapshot", () => {
  it("tools/list snapshot: the listing is exactly the reviewed file", () => {
    const current = `${JSON.stringify({ tools: toolListing() }, null, 2)}\n`;
    if (process.env.UPDATE_SNAPSHOT === "1") writeFileSync(SNAPSHOT, current);
    const reviewed = readFileSync(SNAPSHOT, "utf8");
    assert.equal(current, reviewed, "tools/list changed: if on purpose, regenerate with UPDATE_SNAPSHOT=1 (see the head of this file) and review the diff");
  });

  it("lists every tool of the table once, sorted by name", () => {
    const names = toolListing().map((t) => t.name);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual([...names].sort(), TOOLS.map((t) => t.name).sort());
  });

  it("every tool has a title, hints that read back with MCP's defaults as its own four, and object input and output schemas that compile", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const tool of toolListing()) {
      const definition = findTool(tool.name)!;
      assert.ok(tool.title!.length > 3 && tool.title === tool.annotations.title, tool.name);
      for (const hint of HINTS) assert.equal(typeof definition.annotations[hint], "boolean", `${tool.name} ${hint}: each tool decides all four`);
      const { title: _title, ...published } = tool.annotations;
      assert.deepEqual(hintsReadBack(published), definition.annotations, `${tool.name}: published hints read back`);
      for (const [hint, value] of Object.entries(published)) assert.notEqual(value, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }[hint], `${tool.name}: ${hint} is MCP's default, said anyway`);
      if (definition.annotations.readOnlyHint) assert.equal(definition.annotations.destructiveHint, false, `${tool.name}: read-only tools destroy nothing`);
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        assert.equal(schema.type, "object", tool.name);
        ajv.compile(schema);
      }
      // The zod schema refuses unknown arguments, as the listed schema says (test/unit/mcp-strict-inputs.test.ts walks every listing).
      const parsed = definition.input.safeParse({ unknownArgument: 1 });
      assert.ok(parsed.error?.issues.some((issue) => issue.code === "unrecognized_keys"), `${tool.name}: unknown arguments are refused`);
    }
  });

  it("the three app tools link their ui:// resource, and no other tool does", () => {
    const linked = Object.fromEntries(toolListing().flatMap((t) => (t._meta ? [[t.name, t._meta.ui.resourceUri]] : [])));
    assert.deepEqual(linked, {
      "svc.qr.create": UI_RESOURCES.code.uri,
      "svc.qr.get_analytics": UI_RESOURCES.scans.uri,
      "svc.menu.create": UI_RESOURCES.menu.uri,
    });
  });

  it("read-only tools are the listing and lookup tools; re-pointing a code, setting its rules, removing or rotating a webhook, removing a domain and reversing a sale overwrite; webhooks and a domain's DNS check reach outside", () => {
    const by = (hint: (typeof HINTS)[number]) => toolListing().filter((t) => hintsReadBack(t.annotations)[hint]).map((t) => t.name);
    assert.deepEqual(by("readOnlyHint"), ["svc.analytics.scan_summary", "svc.brand.list_presets", "svc.conversion.figures", "svc.domain.list", "svc.gs1.get_analytics", "svc.gs1.list_items", "svc.job.get", "svc.menu.list", "svc.merchant.get_profile", "svc.ping", "svc.qr.get_analytics", "svc.qr.list", "svc.tools.search", "svc.voice_agent.lookup", "svc.webhook.deliveries", "svc.webhook.list"]);
    // svc.tools.execute claims nothing about what it runs: the MCP defaults (may destroy, reaches outside).
    assert.deepEqual(by("destructiveHint"), ["svc.conversion.reverse_sale", "svc.domain.remove", "svc.gs1.set_item", "svc.qr.set_rules", "svc.qr.update", "svc.tools.execute", "svc.utm.set_template", "svc.webhook.delete", "svc.webhook.rotate_secret"]);
    assert.deepEqual(by("openWorldHint"), ["svc.domain.verify", "svc.tools.execute", "svc.voice_agent.lookup", "svc.voice_agent.register", "svc.webhook.create", "svc.webhook.test"]);
  });
});
