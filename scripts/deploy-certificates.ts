// `npm run deploy:certificates -- --project <id> [--runtime-account <service account>] [--https-proxy <name>]
// [--dry-run]`: makes what branded domains' certificates need and `firebase deploy` does not (scripts/lib/
// certificates.ts; docs/deploy.md, "Certificates for branded domains"). Run once per project; each command
// is printed before it runs, and --dry-run only prints them.
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { certificateCommands } from "./lib/certificates";

const { values } = parseArgs({
  options: {
    project: { type: "string" },
    "runtime-account": { type: "string" },
    "https-proxy": { type: "string" },
    "dry-run": { type: "boolean", default: false },
  },
});
if (!values.project) {
  console.error("Usage: npm run deploy:certificates -- --project <id> [--runtime-account <functions' service account>] [--https-proxy <target HTTPS proxy>] [--dry-run]");
  process.exit(2);
}
const dryRun = values["dry-run"];
// Cloud Functions (2nd gen) run as the Compute Engine default service account unless deployed with another.
const runtimeAccount =
  values["runtime-account"] ??
  (dryRun ? "<project-number>-compute@developer.gserviceaccount.com" : `${execFileSync("gcloud", ["projects", "describe", values.project, "--format=value(projectNumber)"], { encoding: "utf8" }).trim()}-compute@developer.gserviceaccount.com`);
for (const [bin, ...args] of certificateCommands({ project: values.project, runtimeAccount, httpsProxy: values["https-proxy"] })) {
  console.log(`$ ${[bin, ...args].join(" ")}`);
  if (!dryRun) execFileSync(bin, args, { stdio: "inherit" });
}
if (!values["https-proxy"]) console.log("No --https-proxy: attach the map to the load balancer's target HTTPS proxy once it exists (docs/deploy.md).");
console.log(dryRun ? "(dry run: nothing was changed)" : "certificate map ready");
