// Warns (never fails) when Google's address ranges (functions/src/core/googleRanges.json) are older than
// 30 days: Google adds ranges, and a Hosting hop outside the file makes every visitor one proxy bucket.
// Run by .ci/run; `npm run refresh:google-ranges` renews the file (docs/decisions.md, "The client address").
import { readFileSync } from "node:fs";
import path from "node:path";

const MAX_AGE_DAYS = 30;
const file = path.join(__dirname, "..", "functions", "src", "core", "googleRanges.json");
const { retrievedAt } = JSON.parse(readFileSync(file, "utf8")) as { retrievedAt: string };
const ageDays = Math.floor((Date.now() - Date.parse(`${retrievedAt}T00:00:00Z`)) / 86_400_000);
if (!(ageDays <= MAX_AGE_DAYS)) {
  console.log(`::warning::Google's address ranges were taken on ${retrievedAt}, ${ageDays} days ago (more than ${MAX_AGE_DAYS}): run \`npm run refresh:google-ranges\` where the internet is reachable.`);
} else console.log(`Google's address ranges: taken on ${retrievedAt}, ${ageDays} days ago.`);
