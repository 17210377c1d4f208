// `npm run deploy:scan-stream -- --project <id> --consumer-url <url> --invoker <service account> [--region <the
// functions' region>] [--location US] [--retention-days 400] [--dry-run] [--upgrade]`: creates the scan stream in a Firebase project (Pub/Sub schema
// and topic, BigQuery dataset and table, the BigQuery subscription) and the scan consumer's topics and push
// subscription (docs/deploy.md), which `firebase deploy` does not. Run once per project, after `firebase
// deploy`; each command is printed before it runs, and --dry-run only prints them (docs/scan-stream.md).
// --upgrade brings a stream made by an older release to the current message layout instead;
// --add-conversion-stream adds the conversion stream (issue 61) to a project whose scan stream was made before it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_REGION } from "../functions/src/core/constants";
import { conversionCommands, deployCommands, streamFileContents, streamFilesIn, upgradeCommands } from "./lib/scanStream";

const { values } = parseArgs({
  options: {
    project: { type: "string" },
    location: { type: "string", default: "US" },
    "retention-days": { type: "string", default: "400" },
    "project-number": { type: "string" },
    "dry-run": { type: "boolean", default: false },
    upgrade: { type: "boolean", default: false },
    "add-conversion-stream": { type: "boolean", default: false },
    "consumer-url": { type: "string" },
    invoker: { type: "string" },
    region: { type: "string", default: DEFAULT_REGION },
  },
});
const addConversions = values["add-conversion-stream"];
if (!values.project || (!values.upgrade && !addConversions && !values["dry-run"] && (!values["consumer-url"] || !values.invoker))) {
  console.error(`Usage: npm run deploy:scan-stream -- --project <id> --consumer-url <scanConsumer's URL> --invoker <service account> [--region ${DEFAULT_REGION}] [--location US] [--retention-days 400] [--dry-run] [--upgrade | --add-conversion-stream]`);
  process.exit(2);
}
const dryRun = values["dry-run"];
const projectNumber =
  values["project-number"] ??
  (dryRun ? "<project-number>" : execFileSync("gcloud", ["projects", "describe", values.project, "--format=value(projectNumber)"], { encoding: "utf8" }).trim());
const dir = mkdtempSync(path.join(tmpdir(), "scan-stream-"));
const files = streamFilesIn(dir);
const contents = streamFileContents();
writeFileSync(files.avroSchemaFile, contents.avro);
writeFileSync(files.tableSchemaFile, contents.table);
writeFileSync(files.conversionAvroSchemaFile, contents.conversionAvro);
writeFileSync(files.conversionTableSchemaFile, contents.conversionTable);
const commands = addConversions ? conversionCommands({ project: values.project, projectNumber, retentionDays: Number(values["retention-days"]) }, files) : values.upgrade ? upgradeCommands({ project: values.project }, files) : deployCommands(
      {
        project: values.project,
        projectNumber,
        location: values.location!,
        retentionDays: Number(values["retention-days"]),
        consumerUrl: values["consumer-url"] ?? "<scanConsumer URL>",
        invoker: values.invoker ?? "<invoker service account>",
        region: values.region!,
      },
      files,
    );
for (const [bin, ...args] of commands) {
  console.log(`$ ${[bin, ...args].join(" ")}`);
  if (!dryRun) execFileSync(bin, args, { stdio: "inherit" });
}
console.log(dryRun ? `(dry run: nothing was changed; schema files are in ${dir})` : addConversions ? "conversion stream created" : values.upgrade ? "scan stream upgraded" : "scan stream created");
