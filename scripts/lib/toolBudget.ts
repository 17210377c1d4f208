// What the default tools/list costs an agent's context: compact JSON bytes and cl100k tokens (counted with
// gpt-tokenizer, a maintained tokenizer library), in all and per tool. Printed by `npm run bench tools`,
// held by test/unit/mcp-tools-budget.test.ts against test/snapshots/mcp-tools-budget.json.
import { encode } from "gpt-tokenizer/cjs/encoding/cl100k_base";
import { DEFAULT_VIEW, listingFor } from "../../functions/src/mcp/registry";

export interface ToolListCost {
  tools: number;
  bytes: number;
  tokens: number;
  perTool: Array<{ name: string; bytes: number; tokens: number }>;
}

const costOf = (value: unknown) => {
  const text = JSON.stringify(value);
  return { bytes: Buffer.byteLength(text), tokens: encode(text).length };
};

/** The default list in the era whose listing is larger (each era gives a tool's title once, in its own place). */
export function toolListCost(): ToolListCost {
  const eras = (["2025-03-26", "2026-07-28"] as const).map((era) => listingFor(DEFAULT_VIEW, era));
  const tools = eras.map((list) => ({ list, tokens: costOf({ tools: list }).tokens })).sort((a, b) => b.tokens - a.tokens)[0].list;
  const perTool = tools.map((t) => ({ name: t.name, ...costOf(t) })).sort((a, b) => b.tokens - a.tokens);
  return { tools: tools.length, ...costOf({ tools }), perTool };
}

export function printToolListCost(cost = toolListCost()): void {
  console.log(`\ntools/list (default): ${cost.tools} tools, ${cost.bytes.toLocaleString("en")} bytes, ${cost.tokens.toLocaleString("en")} tokens (cl100k)`);
  for (const t of cost.perTool) console.log(`  ${t.name.padEnd(30)} ${String(t.bytes).padStart(6)} bytes ${String(t.tokens).padStart(6)} tokens`);
}
