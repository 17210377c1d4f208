// `npm run docs:page`: rewrite the /docs/ page's generated tool table (scripts/lib/docsPage.ts).
import { writeFileSync } from "node:fs";
import { DOCS_PAGE, regeneratedDocsPage } from "./lib/docsPage";

writeFileSync(DOCS_PAGE, regeneratedDocsPage());
console.log(`wrote ${DOCS_PAGE}`);
