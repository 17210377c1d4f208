// Every collection has a documented retention (docs/data-model.md, "Retention"), and each retention the
// table says is enforced by TTL has its TTL policy in firestore.indexes.json; the bucket's lifecycle rule
// deletes print packages when their jobs go.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { COLLECTIONS } from "../../functions/src/store/collections";
import { JOB_RETENTION_DAYS } from "../../functions/src/store/jobs";

const ROOT = path.resolve(__dirname, "..", "..");
const doc = readFileSync(path.join(ROOT, "docs", "data-model.md"), "utf8");
const section = doc.slice(doc.indexOf("## Retention"), doc.indexOf("\n## ", doc.indexOf("## Retention") + 5));
const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Collection"));
// The names in a row's first cell (a path counts by its last part).
const named = (row: string) => [...row.split("|")[1].matchAll(/`([^`]+)`/g)].map((m) => m[1].split("/").pop()!.replace(/^\*$/, ""));
const WORKSPACE_COLLECTIONS = ["codes", "menus", "audioCodes", "challenges", "scans", "scanDays", "codeDays", "idempotency", "webhooks", "deliveries", "brandPresets", "codeCounts", "campaigns", "jobs", "chunks", "externalRefs", "mcpTasks"];

describe("retention is documented and enforced", () => {
  it("has a row for every collection the functions write", () => {
    const documented = new Set(rows.flatMap(named));
    for (const name of [...Object.values(COLLECTIONS), ...WORKSPACE_COLLECTIONS]) assert.ok(documented.has(name), `no retention row for ${name}`);
  });

  it("has a TTL policy for every collection the table says TTL removes, on the field it names", () => {
    const overrides: Array<{ collectionGroup: string; fieldPath: string; ttl?: boolean }> = JSON.parse(readFileSync(path.join(ROOT, "firestore.indexes.json"), "utf8")).fieldOverrides;
    for (const row of rows) {
      const ttl = /TTL `(\w+)`(?: \/ `(\w+)`)?/.exec(row.split("|")[3] ?? "");
      if (!ttl) continue;
      for (const name of named(row)) {
        const fields = overrides.filter((o) => o.collectionGroup === name && o.ttl).map((o) => o.fieldPath);
        assert.ok(fields.some((f) => f === ttl[1] || f === ttl[2]), `${name}: the table says TTL on ${ttl[1]}, firestore.indexes.json has ${JSON.stringify(fields)}`);
      }
    }
  });

  it("deletes print packages with their jobs (the bucket's lifecycle rule)", () => {
    const lifecycle = JSON.parse(readFileSync(path.join(ROOT, "storage.lifecycle.json"), "utf8"));
    const rule = lifecycle.lifecycle.rule.find((r: any) => r.condition.matchesPrefix?.includes("packages/"));
    assert.deepEqual([rule?.action.type, rule?.condition.age], ["Delete", JOB_RETENTION_DAYS]);
  });
});
