// Every collection has a documented retention (docs/data-model.md, "Retention"), and each retention the
// table says is enforced by TTL has its TTL policy in firestore.indexes.json; the bucket's lifecycle rule
// deletes print packages when their jobs go.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { COLLECTIONS } from "../../functions/src/store/collections";
import { JOB_RETENTION_DAYS } from "../../functions/src/store/jobs";
import { DRAFT_KINDS } from "../../functions/src/store/drafts";
import { ROLLUP_KINDS } from "../../functions/src/store/rollups";

const ROOT = path.resolve(__dirname, "..", "..");
const doc = readFileSync(path.join(ROOT, "docs", "data-model.md"), "utf8");
const section = doc.slice(doc.indexOf("## Retention"), doc.indexOf("\n## ", doc.indexOf("## Retention") + 5));
const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Collection"));
// The names in a row's first cell (a path counts by its last part).
const named = (row: string) => [...row.split("|")[1].matchAll(/`([^`]+)`/g)].map((m) => m[1].split("/").pop()!.replace(/^\*$/, ""));

/** Every TypeScript file under a folder. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
const FUNCTIONS_SOURCE = sources(path.join(ROOT, "functions", "src")).map((f) => readFileSync(f, "utf8")).join("\n");
/** Collections the source names: literal `.collection("x")` calls, the COLLECTIONS table, and the kinds passed as variables. */
const COLLECTIONS_USED = new Set([
  ...[...FUNCTIONS_SOURCE.matchAll(/\.collection(?:Group)?\(\s*"([A-Za-z_]+)"/g)].map((m) => m[1]),
  ...Object.values(COLLECTIONS),
  ...DRAFT_KINDS,
  ...ROLLUP_KINDS,
]);
/** Named in the source but never written, so no retention applies: each with the one way it is used. */
const READ_ONLY = { health: /db\(\)\.collection\("health"\)\.doc\("probe"\)\.get\(\)/ };
/**
 * TTL policies kept for a collection nothing writes any more, so its old documents still expire. Each
 * must be named in docs/data-model.md with the word "retired".
 */
const RETIRED_WITH_TTL = ["oauthRateLimits"];

describe("retention is documented and enforced", () => {
  it("has a row for every collection the functions write, found in the source", () => {
    const documented = new Set(rows.flatMap(named));
    assert.ok(COLLECTIONS_USED.size > 30, `found only ${[...COLLECTIONS_USED].join(", ")}`);
    for (const name of COLLECTIONS_USED) {
      if (name in READ_ONLY) continue;
      assert.ok(documented.has(name), `no retention row for ${name} in docs/data-model.md`);
    }
    for (const [name, use] of Object.entries(READ_ONLY)) {
      const uses = FUNCTIONS_SOURCE.split(`collection("${name}")`).length - 1;
      assert.equal(uses, (FUNCTIONS_SOURCE.match(new RegExp(use.source, "g")) ?? []).length, `${name} is used other than by its read`);
    }
  });

  it("sets TTL only on collections the functions write (or retired ones the doc names)", () => {
    const overrides: Array<{ collectionGroup: string; ttl?: boolean }> = JSON.parse(readFileSync(path.join(ROOT, "firestore.indexes.json"), "utf8")).fieldOverrides;
    for (const { collectionGroup } of overrides.filter((o) => o.ttl)) {
      if (RETIRED_WITH_TTL.includes(collectionGroup)) {
        assert.match(doc, new RegExp(`\`${collectionGroup}\`[^\n]*retired`), `${collectionGroup}: kept for its old documents, but the doc does not say it is retired`);
        continue;
      }
      assert.ok(COLLECTIONS_USED.has(collectionGroup), `a TTL policy on ${collectionGroup}, which no function writes: drop it or list it as retired`);
    }
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
