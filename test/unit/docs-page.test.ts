// The public /docs/ page lists exactly the tools and protocol revisions the server has (scripts/lib/docsPage.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DOCS_PAGE, generatedToolsBlock, regeneratedDocsPage } from "../../scripts/lib/docsPage";
import { toolListing } from "../../functions/src/mcp/registry";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../functions/src/mcp/era2026";
import { MCP_DOC, regeneratedMcpDoc } from "../../scripts/lib/mcpToolTable";

describe("the /docs/ page", () => {
  it("is what the generator makes from the registry today (run `npm run docs:page` after changing a tool)", () => {
    assert.equal(readFileSync(DOCS_PAGE, "utf8"), regeneratedDocsPage());
  });

  it("names every listed tool once and both protocol revisions", () => {
    const block = generatedToolsBlock();
    for (const { name } of toolListing()) assert.equal(block.split(`<code>${name}</code>`).length - 1, 1, name);
    assert.equal((block.match(/<tr><td>/g) ?? []).length, toolListing().length);
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) assert.ok(block.includes(`<code>${version}</code>`), version);
  });
});

describe("docs/mcp.md's tools", () => {
  const doc = readFileSync(MCP_DOC, "utf8");

  it("has the table the generator makes from the registry today (run `npm run docs:page` after changing a tool)", () => {
    assert.equal(doc, regeneratedMcpDoc(doc));
  });

  it("has a hand-written note for every tool, and none for a tool that is gone", () => {
    const notes = doc.slice(doc.indexOf("| Tool | Notes on its result |"));
    const rows = notes.slice(0, notes.indexOf("\n\n")).split("\n").slice(2);
    const named = rows.flatMap((row) => [...row.split("|")[1].matchAll(/`(svc\.[a-z0-9_.]+)`/g)].map((m) => m[1]));
    const registered = toolListing().map((t) => t.name);
    assert.deepEqual([...named].sort(), [...registered].sort());
  });
});
