// `npm run docs:page`: rewrite the generated tool tables: the /docs/ page's (scripts/lib/docsPage.ts) and
// docs/mcp.md's (scripts/lib/mcpToolTable.ts).
import { writeFileSync } from "node:fs";
import { DOCS_PAGE, regeneratedDocsPage } from "./lib/docsPage";
import { MCP_DOC, regeneratedMcpDoc } from "./lib/mcpToolTable";

writeFileSync(DOCS_PAGE, regeneratedDocsPage());
writeFileSync(MCP_DOC, regeneratedMcpDoc());
console.log(`wrote ${DOCS_PAGE} and ${MCP_DOC}`);
