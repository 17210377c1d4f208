// The default tools/list's size in an agent's context, held: test/snapshots/mcp-tools-budget.json records
// its tool count, bytes and cl100k tokens. Growth above 10 % without a new tool fails; a tool added or
// removed must be recorded on purpose (`UPDATE_SNAPSHOT=1 npm run test:unit -- --grep "tools/list budget"`).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolListCost } from "../../scripts/lib/toolBudget";

const SNAPSHOT = join(__dirname, "..", "snapshots", "mcp-tools-budget.json");
const GROWTH_ALLOWED = 1.1;

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

  it("counts tokens with the tokenizer, not by a rule of thumb", () => {
    const cost = toolListCost();
    assert.ok(cost.tokens > 1_000 && cost.tokens < cost.bytes, `${cost.tokens} tokens for ${cost.bytes} bytes`);
    assert.equal(cost.perTool.length, cost.tools);
    // The parts cost about what the whole does (the whole adds only its wrapper and commas).
    const sum = cost.perTool.reduce((n, t) => n + t.tokens, 0);
    assert.ok(Math.abs(sum - cost.tokens) < cost.tools * 3 + 10, `${sum} vs ${cost.tokens}`);
  });
});
