// The public /docs/ page's tool table and protocol revisions, generated from the tool registry so the page
// cannot drift from what the server lists (`npm run docs:page` rewrites hosting/docs/index.html between
// its markers; test/unit/docs-page.test.ts fails when the committed page differs).
import { readFileSync } from "node:fs";
import path from "node:path";
import { TOOLS } from "../../functions/src/mcp/registry";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../functions/src/mcp/era2026";
import { withGeneratedBlock } from "./generatedBlock";

export const DOCS_PAGE = path.join(__dirname, "..", "..", "hosting", "docs", "index.html");
const START = "<!-- generated: tools (npm run docs:page) -->";
const END = "<!-- /generated: tools -->";

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
/** A tool's first sentence: what it does, in the registry's own words. */
const firstSentence = (s: string) => (/^.*?[.!?](?=\s+[A-Z(]|$)/.exec(s)?.[0] ?? s).trim();

export function generatedToolsBlock(): string {
  const revisions = [...SUPPORTED_PROTOCOL_VERSIONS].map((v) => `<code>${v}</code>`).join(" and ");
  const rows = [...TOOLS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((t) => `<tr><td><code>${t.name}</code></td><td>${t.scope ?? "—"}</td><td>${escapeHtml(firstSentence(t.description))}</td></tr>`);
  return [
    START,
    `<p>MCP protocol revisions ${revisions}, stateless: every request stands alone. ${TOOLS.length} tools:</p>`,
    `<table>`,
    `<tr><th>Tool</th><th>Scope</th><th>What it does</th></tr>`,
    ...rows,
    `</table>`,
    END,
  ].join("\n");
}

/** The page with its generated block replaced by today's. */
export function regeneratedDocsPage(page = readFileSync(DOCS_PAGE, "utf8")): string {
  return withGeneratedBlock(page, { start: START, end: END }, generatedToolsBlock(), DOCS_PAGE);
}
