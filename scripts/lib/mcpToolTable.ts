// docs/mcp.md's table of tools (title, toolsets, scope, the four hints, the result's fields), generated
// from the registry so the doc cannot drift from what tools/list publishes (`npm run docs:page` rewrites
// it between its markers; test/unit/docs-page.test.ts fails when the committed doc differs). The notes
// beside it (limits, defaults, what a result means) stay written by hand, one row per tool.
import { readFileSync } from "node:fs";
import path from "node:path";
import { toolListing, TOOLS } from "../../functions/src/mcp/registry";
import { toolsetsOf } from "../../functions/src/mcp/catalog";
import { withGeneratedBlock } from "./generatedBlock";

export const MCP_DOC = path.join(__dirname, "..", "..", "docs", "mcp.md");
const START = "<!-- generated: tool table (npm run docs:page) -->";
const END = "<!-- /generated: tool table -->";

const yesNo = (v: boolean | undefined) => (v ? "**yes**" : "no");

export function generatedToolTable(): string {
  const listings = new Map(toolListing().map((l) => [l.name, l]));
  const rows = [...TOOLS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((t) => {
      const listing = listings.get(t.name)!;
      const h = t.annotations;
      // readOnly tools change nothing, so their destructive and idempotent hints carry no meaning (tool.ts).
      const hints = [h.readOnlyHint ? "yes" : "no", h.readOnlyHint ? "–" : yesNo(h.destructiveHint), h.readOnlyHint ? "–" : h.idempotentHint ? "yes" : "no", yesNo(h.openWorldHint)].join(" / ");
      const fields = Object.keys((listing.outputSchema.properties ?? {}) as Record<string, unknown>);
      const app = listing._meta?.ui ? ` (app: \`${listing._meta.ui.resourceUri}\`)` : "";
      return `| \`${t.name}\`${app} | ${listing.title ?? t.name} | ${toolsetsOf(t.name).join(", ") || "–"} | ${t.scope ? `\`${t.scope}\`` : "none"} | ${hints} | \`{${fields.join(", ")}}\` |`;
    });
  return [
    START,
    "| Tool | Title | Toolsets | Scope | readOnly / destructive / idempotent / openWorld | Result fields |",
    "|---|---|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

/** docs/mcp.md with its generated table replaced by today's. */
export function regeneratedMcpDoc(doc = readFileSync(MCP_DOC, "utf8")): string {
  return withGeneratedBlock(doc, { start: START, end: END }, generatedToolTable(), MCP_DOC);
}
