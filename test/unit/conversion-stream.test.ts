// The conversion stream (functions/src/store/conversionEvents.ts; docs/scan-stream.md, "Conversions"):
// one field list makes the zod schema, the Avro schema and the BigQuery columns; a counted conversion
// becomes a message that passes them; the deploy commands make its topic, table and subscription; and the
// queries of docs/attribution-figures.md ("In BigQuery") give the figures on SQLite, a retried publish
// counted once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CONVERSION_EVENT_FIELDS, CONVERSION_STREAM, ConversionEventSchema, conversionAvroSchema, conversionBigQuerySchema, conversionEventOf, type ConversionEvent } from "../../functions/src/store/conversionEvents";
import { BIGQUERY_METADATA_COLUMNS, UNANSWERED, type ScanEvent } from "../../functions/src/store/scanEvents";
import { encodeConversionEvent } from "../../functions/src/store/scanStream";
import { conversionCommands, deployCommands, streamFileContents, streamFilesIn } from "../../scripts/lib/scanStream";
import { streamDatabase, type StreamRow } from "../helpers/scanStreamSql";

const DOC = path.resolve(__dirname, "..", "..", "docs", "attribution-figures.md");
const queries = () => [...readFileSync(DOC, "utf8").matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1].replaceAll("scan_stream.", "").replace("CREATE OR REPLACE VIEW", "CREATE VIEW"));

const SALE_ID = `s~${"a".repeat(40)}`;
const at = new Date(Date.UTC(2026, 10, 25, 12));

describe("conversion stream", () => {
  it("the Avro schema, the BigQuery columns and the zod schema have the same fields and nullability", () => {
    const names = Object.keys(CONVERSION_EVENT_FIELDS);
    assert.deepEqual(conversionAvroSchema().fields.map((f) => f.name), names);
    assert.deepEqual(conversionBigQuerySchema().map((c) => c.name), [...names, ...BIGQUERY_METADATA_COLUMNS.map((c) => c.name)]);
    assert.deepEqual(Object.keys(ConversionEventSchema.shape), names);
    for (const field of conversionAvroSchema().fields) {
      const column = conversionBigQuerySchema().find((c) => c.name === field.name)!;
      assert.equal(Array.isArray(field.type), column.mode === "NULLABLE", field.name);
    }
    assert.deepEqual(JSON.parse(streamFileContents().conversionAvro), conversionAvroSchema());
    assert.deepEqual(JSON.parse(streamFileContents().conversionTable), conversionBigQuerySchema());
  });

  it("a counted sale and its reversal become messages the schema accepts, in Avro's JSON encoding", () => {
    const attribution = { codeId: "c1", campaign: "spring", rule: { index: 0, variant: 1 }, scanId: "s".repeat(22), person: true, clickAt: new Date(at.getTime() - 60_000) };
    const sale = conversionEventOf("m1", { id: SALE_ID, kind: "sale", at, day: "2026-11-25", timeZone: "UTC", source: "shopify", attribution, amount: 36997, currency: "USD", reversed: 0, counted: true });
    assert.equal(ConversionEventSchema.safeParse(sale).success, true);
    assert.deepEqual([sale.amount, sale.currency, sale.code_id, sale.rule_index, sale.variant, sale.person, sale.closes_sale], [36997, "USD", "c1", 0, 1, 1, null]);
    const reversal = conversionEventOf("m1", { id: `r~${"b".repeat(40)}`, kind: "reversal", at, day: "2026-11-26", timeZone: "UTC", source: "shopify", attribution: null, amount: 8999, currency: "USD", saleId: SALE_ID, closesSale: false, reason: "refund", counted: true });
    assert.equal(ConversionEventSchema.safeParse(reversal).success, true);
    assert.deepEqual([reversal.closes_sale, reversal.scan_id, reversal.rule_index], [0, null, null]);
    const wire = JSON.parse(encodeConversionEvent(sale).toString()) as Record<string, unknown>;
    // A set nullable field is wrapped in its Avro branch; a required one and a null are bare.
    assert.deepEqual([wire.amount, wire.currency, wire.kind, wire.event_name], [{ long: 36997 }, { string: "USD" }, "sale", null]);
    assert.equal(ConversionEventSchema.safeParse({ ...sale, conversion_id: "../x" }).success, false);
  });

  it("the deploy commands make the conversion topic, table and subscription after the scan stream's", () => {
    const files = streamFilesIn("/tmp/x");
    const target = { project: "shop-prod", projectNumber: "123456", location: "EU", retentionDays: 400, consumerUrl: "https://c", invoker: "p@x.iam.gserviceaccount.com", region: "europe-west1" };
    const lines = conversionCommands(target, files).map((c) => c.join(" "));
    assert.deepEqual(deployCommands(target, files).slice(-5).map((c) => c.join(" ")), lines);
    assert.equal(lines[0], `gcloud pubsub schemas create ${CONVERSION_STREAM.schema} --type=avro --definition-file=${files.conversionAvroSchemaFile} --project=shop-prod`);
    assert.equal(lines[1], `gcloud pubsub topics create ${CONVERSION_STREAM.topic} --schema=${CONVERSION_STREAM.schema} --message-encoding=json --project=shop-prod`);
    assert.ok(lines[2].includes("--time_partitioning_field=at") && lines[2].includes(`--schema=${files.conversionTableSchemaFile}`) && lines[2].endsWith("shop-prod:scan_stream.conversion_events"));
    assert.equal(lines[3], "bq --project_id=shop-prod add-iam-policy-binding --member=serviceAccount:service-123456@gcp-sa-pubsub.iam.gserviceaccount.com --role=roles/bigquery.dataEditor shop-prod:scan_stream.conversion_events");
    assert.ok(["--use-topic-schema", "--write-metadata", "--bigquery-table=shop-prod.scan_stream.conversion_events", `--topic=${CONVERSION_STREAM.topic}`].every((f) => lines[4].includes(f)));
  });

  it("the documented queries give leads, sales and revenue per arm and currency, and each arm's rate, a retried publish counted once", async () => {
    let n = 0;
    const scan = (variant: number, visitor: string): StreamRow => {
      const e: ScanEvent = {
        schema_version: 4, host: null, scan_id: `scan-${n++}`, at: at.getTime() * 1000 + n, merchant_id: "m1", code_id: "c1", unique_qr_code_id: "aB3dE5gH7jK9", campaign: null, kind: "person", bot_reason: null,
        visitor, day: "2026-11-25", hour: 12, time_zone: "UTC", country: "US", region: "California", city: "San Jose", device: "mobile", os: "iOS", browser: "Safari", source: "redirect", served_from: "live",
        ...UNANSWERED, rule_index: 0, variant, rule_answered: 1,
      };
      return { ...e, message_id: `msg-${n}`, publish_time: e.at };
    };
    const scans = [...["v0-a", "v0-b", "v0-c", "v0-d"].map((v) => scan(0, `${v}`.padEnd(16, "x"))), ...["v1-a", "v1-b", "v1-c", "v1-d", "v1-e"].map((v) => scan(1, `${v}`.padEnd(16, "x")))];
    const { db, query } = await streamDatabase(scans);
    const columns = [...Object.keys(CONVERSION_EVENT_FIELDS), "message_id", "publish_time"];
    db.run(`CREATE TABLE conversion_events (${columns.join(", ")})`);
    const attribution = (variant: number) => ({ codeId: "c1", campaign: null, rule: { index: 0, variant }, scanId: "s".repeat(22), person: true, clickAt: at });
    const id = (kind: string, i: number) => `${kind}~${String(i).repeat(40).slice(0, 40)}`;
    const rows: Array<[ConversionEvent, string]> = [
      [conversionEventOf("m1", { id: id("s", 1), kind: "sale", at, day: "2026-11-25", timeZone: "UTC", source: "api", attribution: attribution(0), amount: 1000, currency: "EUR", counted: true }), "m1"],
      // The same sale again: a retried publish stores a second row with the same conversion_id.
      [conversionEventOf("m1", { id: id("s", 1), kind: "sale", at, day: "2026-11-25", timeZone: "UTC", source: "api", attribution: attribution(0), amount: 1000, currency: "EUR", counted: true }), "m1-again"],
      [conversionEventOf("m1", { id: id("l", 2), kind: "lead", at, day: "2026-11-25", timeZone: "UTC", source: "api", attribution: attribution(0), eventName: "signup", counted: true }), "m2"],
      [conversionEventOf("m1", { id: id("s", 3), kind: "sale", at, day: "2026-11-25", timeZone: "UTC", source: "shopify", attribution: attribution(1), amount: 2000, currency: "EUR", counted: true }), "m3"],
      [conversionEventOf("m1", { id: id("s", 4), kind: "sale", at, day: "2026-11-25", timeZone: "UTC", source: "shopify", attribution: attribution(1), amount: 500, currency: "JPY", counted: true }), "m4"],
      // Cancelling the EUR sale of arm 1 takes its sale and its revenue back (a reversal carries its sale's attribution).
      [conversionEventOf("m1", { id: id("r", 5), kind: "reversal", at, day: "2026-11-25", timeZone: "UTC", source: "shopify", attribution: attribution(1), amount: 2000, currency: "EUR", saleId: id("s", 3), closesSale: true, reason: "cancel", counted: true }), "m5"],
    ];
    const insert = db.prepare(`INSERT INTO conversion_events VALUES (${columns.map(() => "?").join(", ")})`);
    rows.forEach(([event, messageId], i) => insert.run(columns.map((c) => (c === "message_id" ? messageId : c === "publish_time" ? Number(event.at) + i : (event[c as keyof ConversionEvent] ?? null)))));
    insert.free();
    const [once, perArm, rates] = queries();
    db.run(once);
    assert.deepEqual(
      query(perArm).map((r) => [r.variant, r.currency, r.leads, r.sales, r.revenue_minor_units]),
      [
        [0, null, 1, 0, 0],
        [0, "EUR", 0, 1, 1000],
        [1, "EUR", 0, 0, 0],
        [1, "JPY", 0, 1, 500],
      ],
    );
    assert.deepEqual(
      query(rates).map((r) => [r.variant, r.people, r.sales, r.conversion_rate]),
      [
        [0, 4, 1, 0.25],
        [1, 5, 1, 0.2],
      ],
    );
  });
});
