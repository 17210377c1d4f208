// The scan stream's one source (functions/src/store/scanEvents.ts): the publisher's zod schema, the
// topic's Avro schema and the BigQuery table agree; the deploy commands are what docs/scan-stream.md says
// (checked, never run); the documented queries remove duplicates and count as the rollups do.
import assert from "node:assert/strict";
import { ArrivalEventSchema, avroSchema, bigQuerySchema, BIGQUERY_METADATA_COLUMNS, parseArrival, SCAN_EVENT_FIELDS, SCAN_STREAM, ScanEventSchema, UNANSWERED, type ScanEvent } from "../../functions/src/store/scanEvents";
import { decodeArrival, PoisonArrival } from "../../functions/src/scans/consume";
import { decodeScanEvent, encodeScanEvent } from "../../functions/src/store/scanStream";
import { deployCommands, streamFileContents, streamFilesIn, upgradeCommands } from "../../scripts/lib/scanStream";
import { documentedQueries, streamDatabase, type StreamRow } from "../helpers/scanStreamSql";

const event = (over: Partial<ScanEvent> = {}): ScanEvent => ({
  schema_version: 4,
  scan_id: "s".repeat(22),
  at: Date.UTC(2026, 10, 25, 12, 0, 0) * 1000,
  merchant_id: "m1",
  code_id: "c1",
  unique_qr_code_id: "aB3dE5gH7jK9",
  campaign: null,
  kind: "person",
  bot_reason: null,
  visitor: "vIsItOr_hash-016",
  day: "2026-11-25",
  hour: 12,
  time_zone: "UTC",
  country: "US",
  region: "California",
  city: "San Jose",
  device: "mobile",
  os: "iOS",
  browser: "Safari",
  source: "redirect",
  served_from: "live",
  ...UNANSWERED,
  host: null,
  ...over,
});

describe("scan stream schema", () => {
  it("the Avro schema, the BigQuery columns and the zod schema have the same fields, types and nullability", () => {
    const names = Object.keys(SCAN_EVENT_FIELDS);
    const avro = avroSchema().fields;
    const table = bigQuerySchema();
    assert.deepEqual(avro.map((f) => f.name), names);
    assert.deepEqual(table.map((c) => c.name), [...names, ...BIGQUERY_METADATA_COLUMNS.map((c) => c.name)]);
    assert.deepEqual(Object.keys(ScanEventSchema.shape), names);
    const avroToBigQuery = (type: unknown): string => {
      if (typeof type === "string") return { string: "STRING", long: "INT64" }[type]!;
      if (typeof type === "object" && type && (type as { logicalType?: string }).logicalType === "timestamp-micros") return "TIMESTAMP";
      throw new Error(`unexpected Avro type ${JSON.stringify(type)}`);
    };
    for (const [i, field] of avro.entries()) {
      const nullable = Array.isArray(field.type);
      const base = nullable ? (field.type as unknown[])[1] : field.type;
      assert.equal(table[i].type, avroToBigQuery(base), field.name);
      assert.equal(table[i].mode, nullable ? "NULLABLE" : "REQUIRED", field.name);
      assert.equal(ScanEventSchema.shape[field.name as keyof typeof SCAN_EVENT_FIELDS].safeParse(null).success, nullable, `${field.name} null`);
    }
  });

  it("fields added after the first layout are nullable with a null default (older messages still read)", () => {
    const added = avroSchema().fields.filter((f) => "default" in f);
    assert.deepEqual(added.map((f) => f.name), ["rule_index", "variant", "rule_answered", "ended_reason", "utm_source", "utm_medium", "counted", "unique_scan", "not_counted_reason", "host"]);
    for (const f of added) {
      assert.equal((f as { default: unknown }).default, null, f.name);
      assert.equal((f.type as unknown[])[0], "null", f.name);
    }
  });

  it("encodes in Avro's JSON encoding (set nullable fields wrapped in their type) with no schema parse: only the schema's fields go out, strings cut to their bound, and what it writes passes the schema", () => {
    const wire = JSON.parse(encodeScanEvent(event({ campaign: "spring", bot_reason: null, rule_index: 2, variant: 0, rule_answered: 1 })).toString());
    assert.deepEqual(wire.campaign, { string: "spring" });
    assert.deepEqual([wire.rule_index, wire.variant, wire.rule_answered, wire.ended_reason], [{ long: 2 }, { long: 0 }, { long: 1 }, null]);
    assert.equal(wire.bot_reason, null);
    assert.equal(wire.scan_id, "s".repeat(22));
    const decoded = (e: ScanEvent) => decodeScanEvent(encodeScanEvent(e));
    assert.ok(!("extra" in decoded({ ...event(), extra: 1 } as ScanEvent)), "a field the schema does not name never goes out");
    assert.equal(decoded(event({ city: "x".repeat(121) })).city, "x".repeat(120), "a string is cut to its bound");
    // Every event the publishers make (a person's, a machine's, a campaign's, a counted one) decodes to one the schema accepts.
    for (const e of [event(), event({ kind: "bot", bot_reason: "crawler", visitor: null }), event({ campaign: "c", rule_index: 1, variant: 0, rule_answered: 1, utm_source: "s", utm_medium: "m" }), event({ counted: 1, unique_scan: 0, served_from: "arrival", merchant_id: "", day: "" })]) {
      assert.deepEqual(ScanEventSchema.parse(decoded(e)), e);
    }
  });

  it("an arrival's ids, day and zone have their exact shape: a hostile value is refused (the consumer answers it poisoned), never made into a path", () => {
    const hash = "aBcD_-0123456789";
    const arrival = event({ served_from: "arrival", merchant_id: "", code_id: "", day: "", time_zone: "", visitor: null });
    const attributes = { scan_id: arrival.scan_id, schema_version: "3", vd: `2026-11-24,${hash},;2026-11-25,${hash},${hash}` };
    assert.deepEqual(parseArrival({ ...arrival }, attributes), { event: arrival, attributes }, "an unresolved arrival as the redirect makes it");
    const resolved = event({ served_from: "arrival", time_zone: "America/Los_Angeles" });
    assert.ok("event" in parseArrival({ ...resolved }, { scan_id: resolved.scan_id, schema_version: "3", plain: "1", cl: hash }));
    const hostile = ["a/b", "..", ".", "x".repeat(1500), "", " ", "a\u0000b", "__x__"];
    const refusedEvent: Array<[keyof ScanEvent, unknown[]]> = [
      ["scan_id", [...hostile, "s".repeat(21), "s".repeat(23), "s".repeat(21) + "/"]],
      ["visitor", [...hostile, hash + "a", hash.slice(1) + "/"]],
      ["day", ["2026/11/25", "2026-13-01", "2026-11-25/x", "..", "26-11-25", "2026-11-25 "]],
      ["time_zone", ["Mars/Olympus", "../../etc", "Europe/../UTC", "x".repeat(65), "America/Los Angeles"]],
      ["unique_qr_code_id", [...hostile, "aB3dE5gH7jK", "aB3dE5gH7jK9/", "aB3dE5gH7jK_"]],
      // A host becomes a rollup map key: only a lower-case punycode name of two labels or more.
      ["host", [...hostile, "Scan.Brand.com", "brand", "scan.brand.com.", "-a.brand.com", "a..b.com", "scän.brand.com", "x".repeat(64) + ".com", "a|b.com", "a.b.com:443"]],
    ];
    for (const [field, values] of refusedEvent) {
      for (const value of values) {
        const refused = parseArrival({ ...resolved, [field]: value }, { scan_id: field === "scan_id" ? String(value) : resolved.scan_id, schema_version: "3" });
        assert.ok("error" in refused, `${field} ${JSON.stringify(value).slice(0, 40)} is refused`);
      }
    }
    const refusedAttributes: Array<[string, string[]]> = [
      ["cl", ["a/b", "..", hash + "x", ""]],
      ["vd", [`2026-11-25,a/b,`, `2026-11-25,${hash},..`, `../x,${hash},`, `2026-11-25,${hash},;`.repeat(4), `2026-11-25,${hash}`, ""]],
      ["plain", ["0", "yes"]],
      ["scan_id", ["s".repeat(22).replace("s", "t")]],
    ];
    for (const [name, values] of refusedAttributes) {
      for (const value of values) assert.ok("error" in parseArrival({ ...resolved }, { scan_id: resolved.scan_id, schema_version: "3", [name]: value }), `${name} ${JSON.stringify(value).slice(0, 40)} is refused`);
    }
    // The stream's own rows keep their other publishers: a GS1 resolution carries its item's id.
    assert.ok(ScanEventSchema.safeParse(event({ source: "gs1", unique_qr_code_id: "A".repeat(32) })).success);
    assert.ok(!ArrivalEventSchema.safeParse(event({ unique_qr_code_id: "A".repeat(32) })).success, "an arrival is a /qr/ scan");
  });

  it("the consumer refuses a malformed arrival as poisoned (its push answered 422: the dead letters), and decodes a well-formed one", () => {
    const arrival = event({ served_from: "arrival" });
    const attributes = { scan_id: arrival.scan_id, schema_version: "3", plain: "1" };
    const delivery = (e: ScanEvent, a: Record<string, string> = attributes) => ({ data: encodeScanEvent(e), attributes: a });
    assert.deepEqual(decodeArrival(delivery(arrival)), arrival);
    const branded = event({ served_from: "arrival", host: "xn--scn-qla.brand.com" });
    assert.deepEqual(decodeArrival(delivery(branded)), branded, "a scan on a merchant's host keeps it");
    // An arrival a layout 3 redirect published before a deploy has no host on the wire: it reads as the service's own host.
    const { host: _host, ...wire } = JSON.parse(encodeScanEvent(arrival).toString()) as Record<string, unknown>;
    assert.deepEqual(decodeArrival({ data: Buffer.from(JSON.stringify({ ...wire, schema_version: 3 })), attributes }), { ...arrival, schema_version: 3, host: null });
    const malformed: Array<[string, ReturnType<typeof delivery>]> = [
      ["a / in the visitor's hash", delivery(event({ served_from: "arrival", visitor: "vIsItOr/hash-016" }))],
      ["a day that is not one", delivery(event({ served_from: "arrival", day: "2026-13-01" }))],
      ["a zone no runtime knows", delivery(event({ served_from: "arrival", time_zone: "Mars/Olympus" }))],
      ["a / in the code's id", delivery(event({ served_from: "arrival", unique_qr_code_id: "aB3dE5gH7j/9" }))],
      ["attributes naming another scan", delivery(arrival, { ...attributes, scan_id: "t".repeat(22) })],
      ["a / in the day candidates", delivery(arrival, { scan_id: arrival.scan_id, schema_version: "3", vd: "2026-11-25,vIsItOr/hash-016," })],
      ["not an event", { data: Buffer.from("not json"), attributes }],
    ];
    for (const [what, d] of malformed) assert.throws(() => decodeArrival(d), PoisonArrival, what);
  });

  it("scanConsumer is private whatever the environment says (Pub/Sub's push account is granted its invoker role)", () => {
    const saved = process.env.SCAN_CONSUMER_INVOKER;
    process.env.SCAN_CONSUMER_INVOKER = "public";
    const path = require.resolve("../../functions/src/index");
    const cached = require.cache[path];
    delete require.cache[path];
    try {
      const functions = require("../../functions/src/index") as Record<string, { __endpoint?: { httpsTrigger?: { invoker?: string[] } } }>;
      assert.deepEqual(functions.scanConsumer.__endpoint?.httpsTrigger?.invoker, ["private"]);
      assert.deepEqual(functions.redirect.__endpoint?.httpsTrigger?.invoker, ["public"], "the check reads the deployed setting");
    } finally {
      if (cached) require.cache[path] = cached;
      else delete require.cache[path];
      if (saved === undefined) delete process.env.SCAN_CONSUMER_INVOKER;
      else process.env.SCAN_CONSUMER_INVOKER = saved;
    }
  });

  it("the deploy commands create schema, topic, dataset, table, access and subscription from the same files", () => {
    const files = streamFilesIn("/tmp/x");
    const consumerUrl = "https://scanconsumer-abc-uc.a.run.app";
    const invoker = "pusher@shop-prod.iam.gserviceaccount.com";
    const commands = deployCommands({ project: "shop-prod", projectNumber: "123456", location: "EU", retentionDays: 400, consumerUrl, invoker, region: "europe-west1" }, files);
    const lines = commands.map((c) => c.join(" "));
    // 12 for scans and their consumer, then the conversion stream's 5 (test/unit/conversion-stream.test.ts).
    assert.equal(commands.length, 17);
    assert.match(lines[0], new RegExp(`^gcloud pubsub schemas create ${SCAN_STREAM.schema} --type=avro --definition-file=${files.avroSchemaFile} --project=shop-prod$`));
    assert.match(lines[1], new RegExp(`^gcloud pubsub topics create ${SCAN_STREAM.topic} --schema=${SCAN_STREAM.schema} --message-encoding=json`));
    assert.match(lines[2], /^bq --project_id=shop-prod mk --dataset --location=EU .* shop-prod:scan_stream$/);
    assert.ok(lines[3].includes("--time_partitioning_field=at") && lines[3].includes(`--time_partitioning_expiration=${400 * 86_400}`) && lines[3].includes(`--schema=${files.tableSchemaFile}`));
    assert.ok(lines[3].endsWith("shop-prod:scan_stream.scan_events"));
    assert.equal(lines[4], "bq --project_id=shop-prod add-iam-policy-binding --member=serviceAccount:service-123456@gcp-sa-pubsub.iam.gserviceaccount.com --role=roles/bigquery.dataEditor shop-prod:scan_stream.scan_events");
    assert.ok(["--use-topic-schema", "--write-metadata", "--bigquery-table=shop-prod.scan_stream.scan_events", `--topic=${SCAN_STREAM.topic}`].every((f) => commands[5].includes(f)));
    // The consumer's part: the push's account is the private scanConsumer's one invoker (before any push),
    // arrivals and dead letters, the kept dead letters, the push subscription with the deployed delivery
    // policy, and the service agent's rights to move a message to the dead letters.
    assert.equal(lines[6], `gcloud run services add-iam-policy-binding scanconsumer --region=europe-west1 --member=serviceAccount:${invoker} --role=roles/run.invoker --project=shop-prod`);
    assert.equal(lines.filter((l) => l.includes("roles/run.invoker")).length, 1, "no other grant of the invoker role");
    assert.deepEqual(lines.slice(7, 9), [
      `gcloud pubsub topics create ${SCAN_STREAM.arrivals} ${SCAN_STREAM.deadLetters} --project=shop-prod`,
      // Kept for Pub/Sub's longest retention, and never deleted for having no subscriber while nothing fails.
      `gcloud pubsub subscriptions create ${SCAN_STREAM.deadLetterSubscription} --topic=${SCAN_STREAM.deadLetters} --message-retention-duration=31d --expiration-period=never --ack-deadline=60 --project=shop-prod`,
    ]);
    assert.equal(
      lines[9],
      `gcloud pubsub subscriptions create ${SCAN_STREAM.consumer} --topic=${SCAN_STREAM.arrivals} --push-endpoint=${consumerUrl} --push-auth-service-account=${invoker} --ack-deadline=60 --min-retry-delay=10s --max-retry-delay=600s --dead-letter-topic=${SCAN_STREAM.deadLetters} --max-delivery-attempts=25 --project=shop-prod`,
    );
    assert.match(lines[10], new RegExp(`^gcloud pubsub topics add-iam-policy-binding ${SCAN_STREAM.deadLetters} --member=serviceAccount:service-123456@gcp-sa-pubsub.iam.gserviceaccount.com --role=roles/pubsub.publisher`));
    assert.match(lines[11], new RegExp(`^gcloud pubsub subscriptions add-iam-policy-binding ${SCAN_STREAM.consumer} --member=serviceAccount:service-123456@gcp-sa-pubsub.iam.gserviceaccount.com --role=roles/pubsub.subscriber`));
    // A stream made before layout 2: the table gains the new columns, then the schema its new revision.
    const upgrade = upgradeCommands({ project: "shop-prod" }, files).map((c) => c.join(" "));
    assert.deepEqual(upgrade, [
      `bq --project_id=shop-prod update --schema=${files.tableSchemaFile} shop-prod:scan_stream.scan_events`,
      `gcloud pubsub schemas commit ${SCAN_STREAM.schema} --type=avro --definition-file=${files.avroSchemaFile} --project=shop-prod`,
    ]);
    // The files the commands read are the generated schemas.
    assert.deepEqual(JSON.parse(streamFileContents().avro), avroSchema());
    assert.deepEqual(JSON.parse(streamFileContents().table), bigQuerySchema());
  });
});

describe("scan stream queries (docs/scan-stream.md, on SQLite)", () => {
  const minute = 60_000_000;
  const t0 = Date.UTC(2026, 10, 25, 12, 0, 0) * 1000;
  let n = 0;
  const row = (over: Partial<ScanEvent>, copy = 0): StreamRow => {
    const e = event({ scan_id: `scan-${n++}`, ...over });
    return { ...e, message_id: `${e.scan_id}-${copy}`, publish_time: e.at + copy };
  };

  it("the documentation holds the eight queries the tests run", () => {
    assert.equal(documentedQueries().length, 8);
  });

  it("the reconciliation sets the stream's machines and repeats beside the most the consumer can have counted twice (its rows beyond a scan's first)", async () => {
    const counted = (over: Partial<ScanEvent>) => ({ served_from: "arrival" as const, ...over });
    const bot = row(counted({ kind: "bot", visitor: null, bot_reason: "crawler", at: t0, counted: 0, unique_scan: 0 }));
    const first = row(counted({ visitor: "v1", at: t0, counted: 1, unique_scan: 1 }));
    const repeat = row(counted({ visitor: "v1", at: t0 + 1000, counted: 0, unique_scan: 0, not_counted_reason: "repeat" }));
    const rows: StreamRow[] = [
      // The bot's batch delivered again after its commit: counted twice, two consumer rows.
      bot, { ...bot, message_id: "again", publish_time: bot.publish_time + 7 },
      // The person's scan delivered again finds its guard: two rows, counted once; never an excess.
      first, { ...first, message_id: "again", publish_time: first.publish_time + 7 },
      // The repeat counted three times; its redirect's last-known-good copy is not a counting (and not the row kept).
      repeat, { ...repeat, message_id: "again", publish_time: repeat.publish_time + 7 }, { ...repeat, message_id: "third", publish_time: repeat.publish_time + 9 },
      { ...repeat, served_from: "last-known-good", counted: null, unique_scan: null, not_counted_reason: null, message_id: "marked", publish_time: repeat.publish_time - 1 },
    ];
    const { query } = await streamDatabase(rows);
    const reconcile = documentedQueries()[7];
    assert.deepEqual(query(reconcile), [{ merchant_id: "m1", code_id: "c1", day: "2026-11-25", bot_scans: 1, repeat_scans: 1, ended_scans: 0, counted_again_at_most: 3 }]);
  });

  it("people's scans per host: a brand's host and the service's own apart, repeats, machines and app scans left out", async () => {
    const brand = "scan.brand.com";
    const rows: StreamRow[] = [
      row({ visitor: "v1", at: t0, host: brand }),
      row({ visitor: "v1", at: t0 + 1000, host: null }), // v1 again on the own host: counted there, not unique
      row({ visitor: "v2", at: t0, host: brand }),
      row({ visitor: "v3", at: t0, host: null }),
      row({ kind: "bot", visitor: null, bot_reason: "crawler", at: t0, host: brand }),
      row({ visitor: "v4", at: t0, host: null, source: "app" }),
    ];
    for (let i = 0; i < 5; i++) rows.push(row({ visitor: "v2", at: t0 + 2000 + i, host: brand })); // 3 count, 2 repeats
    const { query } = await streamDatabase(rows);
    const byHost = documentedQueries()[6];
    assert.deepEqual(query(byHost), [
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", host: null, scans: 2, unique_scanners: 1 },
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", host: brand, scans: 5, unique_scanners: 2 },
    ]);
    assert.deepEqual(query(byHost.replace("WHERE ", `WHERE host = '${brand}' AND `)).map((r) => r.scans), [5], "the documented filter");
  });

  it("a scan published twice (a retried publish) is one row; counts follow the rollups' rules", async () => {
    const rows: StreamRow[] = [];
    // Visitor v1: first scan of the day, then 5 more in the same minute (3 count), then 2 in the next minute (both count).
    for (let i = 0; i < 6; i++) rows.push(row({ visitor: "v1", at: t0 + i * 1000 }));
    for (let i = 0; i < 2; i++) rows.push(row({ visitor: "v1", at: t0 + minute + i * 1000 }));
    // Visitor v2 once; a bot twice; and one scan delivered twice with the same scan_id.
    const twice = row({ visitor: "v3", at: t0 + 5000 });
    rows.push(row({ visitor: "v2", at: t0 + 2000 }), row({ kind: "bot", visitor: null, bot_reason: "crawler", at: t0 }), row({ kind: "bot", visitor: null, bot_reason: "crawler", at: t0 + 1 }));
    rows.push(twice, { ...twice, message_id: "retry", publish_time: twice.publish_time + 5 });
    const { query } = await streamDatabase(rows);
    const [, , summary, uniques] = documentedQueries();
    assert.deepEqual(query("SELECT COUNT(*) AS n FROM scan_events_once"), [{ n: rows.length - 1 }]);
    // v1: 1 + 3 + 2 = 6 counted, 2 repeats; v2 and v3: 1 each.
    assert.deepEqual(query(summary), [{ merchant_id: "m1", code_id: "c1", day: "2026-11-25", scans: 8, unique_scanners: 3, repeat_scans: 2, bot_scans: 2, ended_scans: 0 }]);
    assert.deepEqual(query(uniques), [{ merchant_id: "m1", code_id: "c1", day: "2026-11-25", unique_scanners: 3 }]);
  });

  it("a scan answered from last-known-good is one row, the marked copy, whichever copy was stored first", async () => {
    const live = row({ visitor: "v1", at: t0, served_from: "live" });
    const marked = { ...live, served_from: "last-known-good" as const, message_id: "marked" };
    const other = row({ visitor: "v2", at: t0 });
    for (const order of [[live, { ...marked, publish_time: live.publish_time + 3 }], [{ ...marked, publish_time: live.publish_time - 3 }, live]]) {
      const { query } = await streamDatabase([...order, other]);
      assert.deepEqual(query("SELECT scan_id, served_from, last_known_good FROM scan_events_once ORDER BY scan_id"), [
        { scan_id: live.scan_id, served_from: "last-known-good", last_known_good: 1 },
        { scan_id: other.scan_id, served_from: "live", last_known_good: 0 },
      ]);
    }
  });

  it("a plain code's scan is the consumer's row (resolved, its count decided) with the redirect's last-known-good mark ORed in, whichever copy was stored first", async () => {
    // The consumer's rows: counted (a unique), and one its newcomer budget made a repeat (the rules alone would count it).
    const consumers = row({ visitor: "v1", at: t0, served_from: "arrival", counted: 1, unique_scan: 1 });
    const budgeted = row({ visitor: "v2", at: t0, served_from: "arrival", counted: 0, unique_scan: 0, not_counted_reason: "newcomers" });
    // The redirect's marked copy of the arrival it had not resolved: no workspace, code, day, visitor or count.
    const marked = { ...consumers, served_from: "last-known-good" as const, merchant_id: "", code_id: "", day: "", visitor: null, counted: null, unique_scan: null, message_id: "marked" };
    for (const order of [[consumers, { ...marked, publish_time: consumers.publish_time - 5 }], [{ ...marked, publish_time: consumers.publish_time + 5 }, consumers]]) {
      const { query } = await streamDatabase([...order, budgeted]);
      assert.deepEqual(query("SELECT scan_id, merchant_id, code_id, day, served_from, consumer_counted, consumer_unique_scan, last_known_good FROM scan_events_once ORDER BY scan_id"), [
        { scan_id: consumers.scan_id, merchant_id: "m1", code_id: "c1", day: "2026-11-25", served_from: "arrival", consumer_counted: 1, consumer_unique_scan: 1, last_known_good: 1 },
        { scan_id: budgeted.scan_id, merchant_id: "m1", code_id: "c1", day: "2026-11-25", served_from: "arrival", consumer_counted: 0, consumer_unique_scan: 0, last_known_good: 0 },
      ]);
      const [, , summary] = documentedQueries();
      assert.deepEqual(query(summary), [{ merchant_id: "m1", code_id: "c1", day: "2026-11-25", scans: 1, unique_scanners: 1, repeat_scans: 1, bot_scans: 0, ended_scans: 0 }]);
      // scan_counts keeps its BOOL `counted` (queries written `WHERE counted` still run); the consumer's INT has its own name.
      assert.deepEqual(query("SELECT scan_id, counted, is_unique FROM scan_counts WHERE counted"), [{ scan_id: consumers.scan_id, counted: 1, is_unique: 1 }]);
      const columns = query("SELECT * FROM scan_counts LIMIT 1").length ? Object.keys(query("SELECT * FROM scan_counts LIMIT 1")[0]) : [];
      assert.equal(columns.filter((c) => c === "counted").length, 1, "one column named counted");
      assert.ok(columns.includes("consumer_counted") && columns.includes("consumer_unique_scan") && !columns.includes("unique_scan"));
    }
  });

  it("per rule and variant, and per UTM source and medium, count people's counted scans; a closed campaign's scans count apart", async () => {
    const ruled = { rule_answered: 1 as const, utm_source: "flyer", utm_medium: "print" };
    const rows: StreamRow[] = [
      // Rule 0's split: v1 and v2 on variant 0, v3 on variant 1; v1 scans 5 times in its first minute (1 + 3 count).
      ...Array.from({ length: 5 }, (_, i) => row({ ...ruled, visitor: "v1", rule_index: 0, variant: 0, at: t0 + i * 1000 })),
      row({ ...ruled, visitor: "v2", rule_index: 0, variant: 0, at: t0 }),
      row({ ...ruled, visitor: "v3", rule_index: 0, variant: 1, at: t0 }),
      // No rule matched: the destination.
      row({ ...ruled, visitor: "v4", rule_index: null, at: t0 }),
      // A capped code's answer: not counted, and v5's later scan is still its first of the day.
      row({ ...ruled, visitor: "v5", ended_reason: "capped", at: t0 }),
      row({ ...ruled, visitor: "v5", rule_index: 1, at: t0 + 2 * minute }),
      // A bot answered by rule 0 is no person's scan.
      row({ ...ruled, kind: "bot", visitor: null, bot_reason: "crawler", rule_index: 0, variant: 1, at: t0 }),
      // A code without rules or UTM.
      row({ code_id: "c2", visitor: "v6", at: t0 }),
    ];
    const { query } = await streamDatabase(rows);
    const [, , summary, uniques, byRule, byUtm] = documentedQueries();
    assert.deepEqual(query(byRule), [
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", rule_index: null, variant: null, scans: 1 },
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", rule_index: 0, variant: 0, scans: 5 },
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", rule_index: 0, variant: 1, scans: 1 },
      { merchant_id: "m1", code_id: "c1", day: "2026-11-25", rule_index: 1, variant: null, scans: 1 },
    ]);
    assert.deepEqual(query(byUtm), [{ merchant_id: "m1", day: "2026-11-25", utm_source: "flyer", utm_medium: "print", scans: 8 }]);
    const c1 = query(summary).find((r) => r.code_id === "c1");
    assert.deepEqual(c1, { merchant_id: "m1", code_id: "c1", day: "2026-11-25", scans: 8, unique_scanners: 5, repeat_scans: 1, bot_scans: 1, ended_scans: 1 });
    assert.deepEqual(query(uniques).find((r) => r.code_id === "c1"), { merchant_id: "m1", code_id: "c1", day: "2026-11-25", unique_scanners: 5 });
  });
});
