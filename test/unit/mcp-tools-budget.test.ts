// The default tools/list's size in an agent's context, held: test/snapshots/mcp-tools-budget.json records
// its tool count, bytes and cl100k tokens. Growth above 10 % without a new tool fails; a tool added or
// removed must be recorded on purpose (`UPDATE_SNAPSHOT=1 npm run test:unit -- --grep "tools/list budget"`).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolListCost } from "../../scripts/lib/toolBudget";
import { DEFAULT_VIEW, listingFor } from "../../functions/src/mcp/registry";
import { TOOLSETS } from "../../functions/src/mcp/catalog";
import { SERVER_INSTRUCTIONS } from "../../functions/src/mcp/identity";

const SNAPSHOT = join(__dirname, "..", "snapshots", "mcp-tools-budget.json");
const GROWTH_ALLOWED = 1.1;
/** The budget for the default list (issue 40): at most 5,000 cl100k tokens and 20 KiB. */
const MAX_TOKENS = 5_000;
const MAX_BYTES = 20 * 1024;

describe("MCP tools/list budget", () => {
  it("tools/list budget: no growth above 10 % without a new tool", () => {
    const { tools, bytes, tokens } = toolListCost();
    if (process.env.UPDATE_SNAPSHOT === "1") writeFileSync(SNAPSHOT, `${JSON.stringify({ tools, bytes, tokens }, null, 2)}\n`);
    const held = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as { tools: number; bytes: number; tokens: number };
    console.log(`      tools/list: ${tools} tools, ${bytes} bytes, ${tokens} tokens (held: ${held.tools}, ${held.bytes}, ${held.tokens})`);
    assert.equal(tools, held.tools, "a tool was added or removed: record the new size on purpose (see the head of this file)");
    assert.ok(tokens <= held.tokens * GROWTH_ALLOWED, `${tokens} tokens: more than 10 % over the ${held.tokens} held, without a new tool`);
    assert.ok(bytes <= held.bytes * GROWTH_ALLOWED, `${bytes} bytes: more than 10 % over the ${held.bytes} held, without a new tool`);
  });

  it("the default list stays within 5,000 tokens and 20 KiB, with every tool the specification names", () => {
    const { tokens, bytes } = toolListCost();
    assert.ok(tokens <= MAX_TOKENS, `${tokens} tokens`);
    assert.ok(bytes <= MAX_BYTES, `${bytes} bytes`);
    const names = listingFor(DEFAULT_VIEW).map((t) => t.name);
    for (const name of TOOLSETS.core.tools) assert.ok(names.includes(name), name);
  });

  it("an argument explained once in the instructions is named there, and listed by name and type without its description", () => {
    // svc.tools.search's limit is its own (a count of tools, default 5), described where it is.
    const listing = listingFor(DEFAULT_VIEW).filter((t) => t.name !== "svc.tools.search");
    for (const name of ["codeId", "uniqueQRCodeID", "destinationUrl", "days", "limit", "fields"]) {
      assert.match(SERVER_INSTRUCTIONS, new RegExp(`\\b${name}\\b`), name);
      const listed = listing.flatMap((t) => {
        const schema = (t.inputSchema.properties as Record<string, Record<string, unknown>>)[name];
        return schema ? [{ tool: t.name, schema }] : [];
      });
      assert.ok(listed.length > 0, `${name} is an argument of the default list`);
      for (const { tool, schema } of listed) assert.equal(schema.description, undefined, `${tool} ${name}`);
    }
    // The full form (toolset URLs, svc.tools.search) keeps each description.
    const full = listingFor({ toolsets: ["core"], readOnly: false }).find((t) => t.name === "svc.qr.update")!;
    assert.match(JSON.stringify((full.inputSchema.properties as any).codeId), /"description"/);
  });

  it("counts tokens with the tokenizer, not by a rule of thumb", () => {
    const cost = toolListCost();
    assert.ok(cost.tokens > 1_000 && cost.tokens < cost.bytes, `${cost.tokens} tokens for ${cost.bytes} bytes`);
    assert.equal(cost.perTool.length, cost.tools);
    // The parts cost about what the whole does (the whole adds only its wrapper and commas).
    const sum = cost.perTool.reduce((n, t) => n + t.tokens, 0);
    assert.ok(Math.abs(sum - cost.tokens) < cost.tools * 3 + 10, `${sum} vs ${cost.tokens}`);
  });
});
