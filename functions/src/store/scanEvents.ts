// The scan event stream's message: one message per scan (person, repeat or machine). The redirect publishes
// it to the arrivals topic before it answers (the scan's one durable record); the scan consumer
// (scans/consume.ts) counts it and publishes it again, resolved and with its count decided (`counted`,
// `unique_scan`), to the stream topic, which a BigQuery subscription writes into one table. A code with a
// cap or scan-count thresholds is counted by its redirect (scans/record.ts) and published to the stream directly.
// One field list is the single source of the message's zod schema (what the publisher checks), its Avro
// schema (what the Pub/Sub topic enforces) and the BigQuery table's columns (what the subscription writes):
// a test checks the three agree. A change that is not backward compatible gets a new SCAN_EVENT_VERSION,
// a new schema revision and new table columns, never a reused name with a new meaning.
import { z } from "zod";
import { QR_ID_PATTERN } from "../core/ids";
import { isTimeZone } from "../core/timeZone";

/** Version of the message layout; every message carries it in `schema_version`. */
export const SCAN_EVENT_VERSION = 4;
/** Names of the stream's parts: the Pub/Sub schema and topic, and the BigQuery table. */
export const SCAN_STREAM = {
  schema: "scan-event-v1",
  topic: "scan-events",
  dataset: "scan_stream",
  table: "scan_events",
  subscription: "scan-events-to-bigquery",
  /** Every scan's durable record, published by the redirect before its answer; the consumer's subscription reads it. */
  arrivals: "scan-arrivals",
  consumer: "scan-arrivals-to-consumer",
  /** Where the consumer's subscription puts a message after CONSUMER_DELIVERY.*.maxAttempts failed deliveries, and the subscription that keeps them. */
  deadLetters: "scan-arrivals-dead",
  deadLetterSubscription: "scan-arrivals-dead-kept",
} as const;
/**
 * The consumer subscription's delivery policy: deliveries of one arrival before Pub/Sub moves it to the
 * dead-letter topic (Pub/Sub accepts 5 to 100) and the backoff between them (0 to 600 s).
 *  - deployed: 25 deliveries at 10 s to 600 s, so a consumer that answers errors for about 3.5 hours loses
 *    nothing to the dead letters (a Firestore outage shorter than CONSUMER_HOLD_MS costs no delivery at all:
 *    the consumer holds the push and retries its own transaction; scans/consume.ts);
 *  - local (the emulator of `npm start` and the tests): the fewest Pub/Sub accepts, 5, at the shortest backoff
 *    the emulator keeps (it raises anything below 1 s to 1 s), so a poisoned arrival reaches the dead letters
 *    within about ten seconds.
 */
export const CONSUMER_DELIVERY = {
  deployed: { maxAttempts: 25, minBackoff: "10s", maxBackoff: "600s" },
  local: { maxAttempts: 5, minBackoff: "1s", maxBackoff: "1s" },
} as const;

export type FieldType = "string" | "int" | "timestamp";

export interface FieldSpec {
  type: FieldType;
  /** The layout version that added the field: fields added after the first are nullable, with a null default (Avro), so older messages still read. */
  since?: number;
  /** Absent in some messages (null): a bot has no visitor, a code may have no campaign. */
  nullable?: boolean;
  max?: number;
  description: string;
}

export const str = (max: number, description: string, nullable = false): FieldSpec => ({ type: "string", max, description, nullable });
/** A field added by a later layout: nullable, absent (null) in older messages. */
export const added = (spec: FieldSpec, since = 2): FieldSpec => ({ ...spec, nullable: true, since });

/** The message's fields, in order. Names are snake_case, as BigQuery columns are. */
export const SCAN_EVENT_FIELDS = {
  schema_version: { type: "int", description: "Layout version of this message (SCAN_EVENT_VERSION)" },
  scan_id: str(32, "Stable id of the scan: a retried publish carries the same id, so queries remove duplicates by it"),
  at: { type: "timestamp", description: "When the scan reached the service (UTC, microseconds)" },
  merchant_id: str(64, "Workspace the code belongs to"),
  code_id: str(64, "Code scanned"),
  unique_qr_code_id: str(32, "The id in the scanned /qr/<id> address"),
  campaign: str(200, "The code's campaign, if any", true),
  kind: str(16, "person (a browser a person may hold) or bot; which of a person's scans count is decided by the queries in docs/scan-stream.md"),
  bot_reason: str(64, "Why a bot scan was not counted as a person", true),
  visitor: str(32, "Keyed hash of the visitor for this code and local day (no address or User-Agent); null for bots", true),
  day: str(10, "Local calendar day (YYYY-MM-DD) in the workspace's time zone"),
  hour: { type: "int", description: "Local hour 0-23 in the workspace's time zone" },
  time_zone: str(64, "The workspace's IANA time zone when the scan was counted"),
  country: str(8, "ISO 3166-1 alpha-2 country, or unknown"),
  region: str(120, "First-level subdivision, or unknown"),
  city: str(120, "City as the address database names it, or unknown"),
  device: str(16, "mobile, tablet, desktop, tv or unknown"),
  os: str(40, "Operating system from a closed list, Other, or unknown"),
  browser: str(40, "Browser from a closed list, Other, or unknown"),
  source: str(16, "redirect (a /qr/ scan), app (the service's own app) or gs1 (a GS1 Digital Link resolution; code_id gs1_<item id>)"),
  served_from: str(24, "arrival (published at arrival, beside the link read: layout 3's plain codes), live (the link was read before the scan was recorded) or last-known-good (that read passed its deadline)"),
  rule_index: added({ type: "int", description: "Position of the campaign rule that answered the scan (0 first); null when no rule did (the code's destination) or the code has no rules" }),
  variant: added({ type: "int", description: "The A/B variant (0 first) the rule's split sent the scan to, or null" }),
  rule_answered: added({ type: "int", description: "1 when the code's campaign rules chose the answer (rule_index null: none matched, the destination), null for codes without rules and closed campaigns" }),
  ended_reason: added(str(16, "Why a campaign's closed answer was given instead (not-started, ended, capped, cap-busy): such a scan is never a person's counted scan; null otherwise")),
  utm_source: added(str(100, "utm_source the code appends to its destinations (its UTM template), or null")),
  utm_medium: added(str(100, "utm_medium the code appends to its destinations, or null")),
  counted: added({ type: "int", description: "1 when this is a person's counted scan (people, `n`), 0 when it is not (a machine, a repeat, a closed answer); null in layout 1-2 rows" }, 3),
  unique_scan: added({ type: "int", description: "1 when the scan is its visitor's first counted scan of the code that local day (uniques, `u`), else 0; null in layout 1-2 rows" }, 3),
  not_counted_reason: added(str(64, "Why a scan is not a person's counted one (a machine's reason, repeat, or a campaign's closed answer); null when counted"), 3),
  host: added(str(253, "The merchant's own host the scan arrived on (punycode, lower case), or null for the service's own host"), 4),
} satisfies Record<string, FieldSpec>;

export type ScanEventField = keyof typeof SCAN_EVENT_FIELDS;

export function zodOf(spec: FieldSpec): z.ZodType {
  const base = spec.type === "string" ? z.string().max(spec.max ?? 1024) : z.number().int().nonnegative();
  return spec.nullable ? base.nullable() : base;
}

/** A scan's id as newScanId makes it: 128 bits in base64url. */
export const SCAN_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** A visitor's or client's hash as scans/visitors.ts makes it: 16 base64url characters. */
export const HASH_PATTERN = /^[A-Za-z0-9_-]{16}$/;
const DAY = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])`;
/**
 * A merchant's host as its domain's claim holds it (punycode ASCII, lower case, at least two labels): it
 * becomes a rollup map key (store/scans.ts), so nothing else is let through.
 */
export const HOST_PATTERN = /^(?=.{4,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** A local day, YYYY-MM-DD. */
export const DAY_PATTERN = new RegExp(`^${DAY}$`);
/** A GS1 item's id (gs1/model.ts), which a GS1 resolution's event carries in place of a /qr/ id. */
const GS1_ITEM_ID = /^[A-Za-z0-9_-]{32}$/;
/** An arrival's `vd`: for each local day (2 or 3) its visitor's hash and its client's (empty for an unrecognised browser). */
export const DAY_HASHES_PATTERN = new RegExp(`^${DAY},[A-Za-z0-9_-]{16},(?:[A-Za-z0-9_-]{16})?(?:;${DAY},[A-Za-z0-9_-]{16},(?:[A-Za-z0-9_-]{16})?){0,2}$`);

/**
 * Fields the consumer turns into document ids (scan, visitor, day, the code's id) or uses as a zone get their
 * exact shape, not only a length: a "/" or ".." would name another document, and a zone no runtime knows
 * would fail every delivery instead of being refused once. Day and zone are empty in an arrival the
 * redirect could not resolve (the consumer fills them in).
 */
const FORMATS: Partial<Record<ScanEventField, z.ZodType>> = {
  scan_id: z.string().regex(SCAN_ID_PATTERN, "a scan id: 22 base64url characters"),
  visitor: z.string().regex(HASH_PATTERN, "a visitor's hash: 16 base64url characters").nullable(),
  day: z.string().regex(DAY_PATTERN, "a day: YYYY-MM-DD").or(z.literal("")),
  time_zone: z.string().refine(isTimeZone, "an IANA time zone this runtime knows").or(z.literal("")),
  unique_qr_code_id: z.string().refine((id) => QR_ID_PATTERN.test(id) || GS1_ITEM_ID.test(id), "a uniqueQRCodeID or a GS1 item id"),
  host: z.string().regex(HOST_PATTERN, "a host name: punycode, lower case").nullable(),
};

const shape = Object.fromEntries(Object.entries(SCAN_EVENT_FIELDS).map(([name, spec]) => [name, FORMATS[name as ScanEventField] ?? zodOf(spec)])) as Record<ScanEventField, z.ZodType>;

/** A scan event, from any of its publishers (the redirect's arrival, the consumer's counted row, a GS1 resolution's, the app's). */
export const ScanEventSchema = z.object(shape).strict();

/** What the redirect publishes of a scan (scans/arrival.ts): an event of a /qr/ address. */
export const ArrivalEventSchema = z.object({ ...shape, unique_qr_code_id: z.string().regex(QR_ID_PATTERN, "a uniqueQRCodeID: 12 letters and digits") }).strict();

/**
 * An arrival's attributes (scans/arrival.ts): the ones the consumer reads get their exact shape. Others are
 * let through (a dead letter carries Pub/Sub's CloudPubSubDeadLetter* attributes).
 */
export const ArrivalAttributesSchema = z.looseObject({
  scan_id: z.string().regex(SCAN_ID_PATTERN, "a scan id: 22 base64url characters"),
  schema_version: z.string().regex(/^[1-9]\d{0,2}$/, "a layout version"),
  plain: z.literal("1").optional(),
  ruled: z.literal("1").optional(),
  cl: z.string().regex(HASH_PATTERN, "a client's hash: 16 base64url characters").optional(),
  vd: z.string().regex(DAY_HASHES_PATTERN, "day,visitor,client entries, ; between them").optional(),
});

/**
 * An arrival as delivered, checked whole: its event (Avro wrappers off) and its attributes, the scan id the
 * same in both. An error names what is wrong (the consumer refuses the arrival as poisoned: dead letters).
 */
export function parseArrival(event: Record<string, unknown>, attributes: Record<string, string>): { event: ScanEvent; attributes: Record<string, string> } | { error: z.ZodError | string } {
  const e = ArrivalEventSchema.safeParse(event);
  if (!e.success) return { error: e.error };
  const a = ArrivalAttributesSchema.safeParse(attributes);
  if (!a.success) return { error: a.error };
  if (a.data.scan_id !== e.data.scan_id) return { error: "the attributes' scan_id is not the event's" };
  return { event: e.data as ScanEvent, attributes };
}

export type ScanEvent = {
  schema_version: number;
  scan_id: string;
  /** Microseconds since the epoch. */
  at: number;
  merchant_id: string;
  code_id: string;
  unique_qr_code_id: string;
  campaign: string | null;
  kind: "person" | "bot";
  bot_reason: string | null;
  visitor: string | null;
  day: string;
  hour: number;
  time_zone: string;
  country: string;
  region: string;
  city: string;
  device: string;
  os: string;
  browser: string;
  source: "redirect" | "app" | "gs1";
  served_from: "arrival" | "live" | "last-known-good";
  rule_index: number | null;
  variant: number | null;
  rule_answered: 1 | null;
  ended_reason: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  counted: 0 | 1 | null;
  unique_scan: 0 | 1 | null;
  not_counted_reason: string | null;
  /** Layout 4: the merchant's host the scan came in on; null on the service's own host (and in older messages). */
  host: string | null;
};

/** The fields a scan without campaign rules has no value for, and those its count fills in later: all null. */
export const UNANSWERED = { rule_index: null, variant: null, rule_answered: null, ended_reason: null, utm_source: null, utm_medium: null, counted: null, unique_scan: null, not_counted_reason: null } as const;

const AVRO_TYPES: Record<FieldType, unknown> = {
  string: "string",
  int: "long",
  timestamp: { type: "long", logicalType: "timestamp-micros" },
};

/** The Avro record the Pub/Sub topic enforces (JSON encoding). */
export function avroSchema(): { type: "record"; name: string; namespace: string; doc: string; fields: Array<{ name: string; type: unknown; doc: string }> } {
  return avroRecordOf(SCAN_EVENT_FIELDS, { name: "ScanEvent", namespace: "svc.scans.v1", doc: "One scan of a dynamic code" });
}

/** The Avro record of a stream's field list (the scan stream's, the conversion stream's: store/conversionEvents.ts). */
export function avroRecordOf(fields: Record<string, FieldSpec>, record: { name: string; namespace: string; doc: string }): { type: "record"; name: string; namespace: string; doc: string; fields: Array<{ name: string; type: unknown; doc: string }> } {
  return {
    type: "record",
    ...record,
    fields: Object.entries(fields).map(([name, spec]: [string, FieldSpec]) => ({
      name,
      type: spec.nullable ? ["null", AVRO_TYPES[spec.type]] : AVRO_TYPES[spec.type],
      doc: spec.description,
      // A field added after the first layout defaults to null: a reader of the new revision still reads older messages.
      ...(spec.since ? { default: null } : {}),
    })),
  };
}

const BIGQUERY_TYPES: Record<FieldType, string> = { string: "STRING", int: "INT64", timestamp: "TIMESTAMP" };

/** Columns the subscription writes with --write-metadata (besides the message's own fields). */
export const BIGQUERY_METADATA_COLUMNS = [
  { name: "subscription_name", type: "STRING", mode: "NULLABLE", description: "Pub/Sub subscription that wrote the row" },
  { name: "message_id", type: "STRING", mode: "NULLABLE", description: "Pub/Sub message id (a retried publish gets a new one)" },
  { name: "publish_time", type: "TIMESTAMP", mode: "NULLABLE", description: "When Pub/Sub accepted the message" },
  { name: "attributes", type: "JSON", mode: "NULLABLE", description: "Message attributes" },
] as const;

/** The BigQuery table's schema (bq's JSON schema file): the message's fields, then the subscription's metadata. */
export function bigQuerySchema(): Array<{ name: string; type: string; mode: string; description: string }> {
  return bigQueryColumnsOf(SCAN_EVENT_FIELDS);
}

/** A stream table's columns: its field list's, then the subscription's metadata. */
export function bigQueryColumnsOf(fields: Record<string, FieldSpec>): Array<{ name: string; type: string; mode: string; description: string }> {
  return [
    ...Object.entries(fields).map(([name, spec]: [string, FieldSpec]) => ({
      name,
      type: BIGQUERY_TYPES[spec.type],
      mode: spec.nullable ? "NULLABLE" : "REQUIRED",
      description: spec.description,
    })),
    ...BIGQUERY_METADATA_COLUMNS.map((c) => ({ ...c })),
  ];
}
