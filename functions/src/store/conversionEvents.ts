// The conversion stream: one message per counted lead, sale or reversal, published by the scan consumer
// once it has counted it (attribution/consume.ts), into its own topic and BigQuery table beside the scan
// stream's (docs/scan-stream.md, "Conversions"; queries in docs/attribution-figures.md). Same discipline as
// scan events (store/scanEvents.ts): one field list makes the zod schema, the Avro schema the topic
// enforces and the table's columns; a change old readers would misread gets a new version, schema and
// columns. A table of its own, not rows in scan_events: every scan query reads one row per scan_id, and
// a sale is no scan.
import { z } from "zod";
import { avroRecordOf, bigQueryColumnsOf, str, zodOf, type FieldSpec } from "./scanEvents";
import type { Conversion } from "./conversions";

export const CONVERSION_EVENT_VERSION = 1;
export const CONVERSION_STREAM = {
  schema: "conversion-event-v1",
  topic: "conversion-events",
  dataset: "scan_stream",
  table: "conversion_events",
  subscription: "conversion-events-to-bigquery",
} as const;

const nullableInt = (description: string): FieldSpec => ({ type: "int", nullable: true, description });

export const CONVERSION_EVENT_FIELDS = {
  schema_version: { type: "int", description: "Layout version of this message (CONVERSION_EVENT_VERSION)" },
  conversion_id: str(48, "Stable id of the lead (l~), sale (s~) or reversal (r~): a retried publish or a second counting carries the same id, so queries keep one row per id"),
  kind: str(16, "lead, sale or reversal"),
  at: { type: "timestamp", description: "When the service recorded it (UTC, microseconds)" },
  merchant_id: str(64, "Workspace"),
  day: str(10, "Local calendar day (YYYY-MM-DD) in the workspace's time zone: the rollup day it is counted on"),
  time_zone: str(64, "The workspace's IANA time zone when it was recorded"),
  source: str(16, "api (the tracking API), shopify (a Shopify webhook) or till (an in-store redemption)"),
  event_name: str(100, "A lead's event name", true),
  amount: nullableInt("A sale's amount, or what a reversal takes back (positive), in minor units of currency (cents; yen)"),
  currency: str(3, "ISO 4217 currency of amount", true),
  sale_id: str(48, "A reversal's sale (its conversion_id)", true),
  closes_sale: nullableInt("1 when a reversal took back what was left of its sale (the sale no longer counts), 0 for a partial refund; null otherwise"),
  reason: str(16, "A reversal's reason: refund or cancel", true),
  scan_id: str(32, "The attributed click's scan (scan_events.scan_id), or null: unattributed", true),
  code_id: str(64, "The attributed code, or null", true),
  campaign: str(200, "The attributed code's campaign, or null", true),
  rule_index: nullableInt("Position of the campaign rule that answered the click (0 first); null: the destination, or unattributed"),
  variant: nullableInt("The A/B variant (0 first) of the click, or null"),
  person: nullableInt("1 when the click's scan was a person's, 0 a machine's; null unattributed"),
  click_at: { type: "timestamp", nullable: true, description: "When the attributed click's scan happened, or null" },
} satisfies Record<string, FieldSpec>;

export type ConversionEventField = keyof typeof CONVERSION_EVENT_FIELDS;

const FORMATS: Partial<Record<ConversionEventField, z.ZodType>> = {
  conversion_id: z.string().regex(/^[lsr]~[0-9a-f]{40}$/, "a conversion id: l~, s~ or r~ and 40 hex"),
  kind: z.enum(["lead", "sale", "reversal"]),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day: YYYY-MM-DD"),
};

/** The message as published (`at` and `click_at` in microseconds). */
export const ConversionEventSchema = z.object(Object.fromEntries(Object.entries(CONVERSION_EVENT_FIELDS).map(([name, spec]) => [name, FORMATS[name as ConversionEventField] ?? zodOf(spec)])) as Record<ConversionEventField, z.ZodType>).strict();
export type ConversionEvent = { [K in ConversionEventField]: string | number | null };

export const conversionAvroSchema = () => avroRecordOf(CONVERSION_EVENT_FIELDS, { name: "ConversionEvent", namespace: "svc.conversions.v1", doc: "One counted lead, sale or reversal" });
export const conversionBigQuerySchema = () => bigQueryColumnsOf(CONVERSION_EVENT_FIELDS);

const micros = (d: Date) => d.getTime() * 1000;

/** A counted conversion as its stream message. */
export function conversionEventOf(merchantId: string, c: Conversion): ConversionEvent {
  const a = c.attribution;
  return {
    schema_version: CONVERSION_EVENT_VERSION,
    conversion_id: c.id,
    kind: c.kind,
    at: micros(c.at),
    merchant_id: merchantId,
    day: c.day,
    time_zone: c.timeZone,
    source: c.source,
    event_name: c.eventName ?? null,
    amount: c.amount ?? null,
    currency: c.currency ?? null,
    sale_id: c.saleId ?? null,
    closes_sale: c.kind === "reversal" ? (c.closesSale ? 1 : 0) : null,
    reason: c.reason ?? null,
    scan_id: a?.scanId ?? null,
    code_id: a?.codeId ?? null,
    campaign: a?.campaign ?? null,
    rule_index: a ? a.rule.index : null,
    variant: a?.rule.variant ?? null,
    person: a ? (a.person ? 1 : 0) : null,
    click_at: a ? micros(a.clickAt) : null,
  };
}
