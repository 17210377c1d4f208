// Tracking leads, sales and reversals (docs/attribution.md): the one domain function every surface calls
// (REST bulk/trackRoutes.ts, the MCP conversions toolset, the till's discount redemption, Shopify's
// webhook). Each records one document (store/conversions.ts), created once whatever the repeats, then
// hands it to the scan consumer, which counts it exactly once into the code's and workspace's day rollups
// (attribution/consume.ts). A click id is checked before anything is written: a forged, expired or other
// workspace's one is refused with a sentence and writes nothing.
import { createHmac } from "node:crypto";
import { AppError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import { logWarn } from "../core/log";
import { secretValue } from "../core/secrets";
import { localMoment } from "../scans/localTime";
import { readCodes } from "../store/codes";
import { createConversion, createReversal, readCustomerLead, setCustomerLead, type Attribution, type Conversion, type ConversionSource } from "../store/conversions";
import { publishArrival } from "../store/scanStream";
import { CLICK_ID_REFUSALS, verifyClickId } from "./clickId";
import { currencyExponent } from "./currency";
import { workspaceAttribution, type ResolvedAttribution } from "./settings";

export type SaleInput = { clickId?: string; customerExternalId?: string; amount: number /* integer, minor units */; currency: string /* ISO 4217 */; invoiceId: string };
export type LeadInput = { clickId?: string; customerExternalId?: string; eventName: string };
export type ReversalInput = { invoiceId: string; amount?: number /* partial refund, minor units; omitted = whole sale */; reason: "refund" | "cancel"; reversalId: string /* idempotency of the reversal */ };

/** The attribute that tells the scan consumer a message names conversions to count, not a scan's arrival. */
export const CONVERSION_ATTRIBUTE = "conv";

const idOf = (prefix: string, ...parts: string[]) => `${prefix}~${sha256Hex(parts.join("\u0000")).slice(0, 40)}`;

/** The keyed hash a customer id is stored under (never the id itself): per workspace, under CUSTOMER_HASH_KEY. */
export function customerHash(workspaceId: string, customerExternalId: string, key = secretValue("CUSTOMER_HASH_KEY")): string {
  if (!key) throw new Error("CUSTOMER_HASH_KEY has no value: set it in Secret Manager (docs/attribution.md)");
  return createHmac("sha256", key).update(`${workspaceId}\u0000${customerExternalId}`).digest("hex").slice(0, 40);
}

/** The click a click id names, checked (signature, workspace, window), with its code's campaign; refused with a sentence. */
async function clickAttribution(workspaceId: string, clickId: string, settings: ResolvedAttribution, now: Date): Promise<Attribution> {
  const verdict = verifyClickId(clickId, { merchantId: workspaceId, windowDays: settings.windowDays, now });
  if ("refused" in verdict) throw new AppError("VALIDATION_FAILED", `${CLICK_ID_REFUSALS[verdict.refused]}: nothing was recorded`, { details: { clickId: verdict.refused } });
  const { facts } = verdict;
  const [code] = await readCodes(workspaceId, [facts.codeId]);
  if (!code) throw new AppError("VALIDATION_FAILED", "clickId names a code this workspace no longer has: nothing was recorded", { details: { clickId: "code_gone" } });
  return { codeId: facts.codeId, campaign: code.campaign ?? null, rule: facts.rule, scanId: facts.scanId, person: facts.person, clickAt: facts.at };
}

function requireOne(input: { clickId?: string; customerExternalId?: string }): void {
  if (!input.clickId && !input.customerExternalId) throw new AppError("VALIDATION_FAILED", "Give clickId (the svc_sid the landing page received) or customerExternalId (a customer whose lead was tracked)");
}

/**
 * Asks the scan consumer to count conversions: a message on the arrivals topic. A failed publish is logged,
 * not failed: the conversion is recorded, and a repeat of the request, or the maintenance job's sweep of
 * conversions left uncounted, publishes it again (attribution/consume.ts).
 */
export async function askToCount(workspaceId: string, ids: string[]): Promise<void> {
  await publishArrival(Buffer.from(JSON.stringify({ m: workspaceId, ids })), { [CONVERSION_ATTRIBUTE]: "1" }).catch((error: unknown) =>
    logWarn("attribution.publish_failed", "a conversion was recorded but not yet handed to the consumer", { workspaceId, ids: ids.join(","), error: String(error) }),
  );
}

const moment = (settings: ResolvedAttribution, now: Date) => ({ day: localMoment(now, settings.timeZone).day, timeZone: settings.timeZone });

/** Records a lead once per click (or customer) and event name; a lead with both makes the click the customer's (the last click before the lead wins). */
export async function trackLead(workspaceId: string, input: LeadInput, opts: { source: ConversionSource; now?: Date }): Promise<{ leadId: string; duplicate: boolean; attributed: boolean }> {
  requireOne(input);
  const now = opts.now ?? new Date();
  const settings = await workspaceAttribution(workspaceId);
  const customer = input.customerExternalId ? customerHash(workspaceId, input.customerExternalId) : undefined;
  let attribution: Attribution | null = input.clickId ? await clickAttribution(workspaceId, input.clickId, settings, now) : await readCustomerLead(workspaceId, customer!);
  if (attribution && customer && input.clickId) attribution = await setCustomerLead(workspaceId, customer, attribution, now);
  const id = idOf("l", attribution ? `click:${attribution.scanId}` : `customer:${customer}`, input.eventName);
  const lead: Conversion = { id, kind: "lead", at: now, ...moment(settings, now), source: opts.source, attribution, eventName: input.eventName, ...(customer ? { customer } : {}), counted: false };
  const { conversion, created } = await createConversion(workspaceId, lead);
  if (!conversion.counted) await askToCount(workspaceId, [id]);
  return { leadId: id, duplicate: !created, attributed: attribution !== null };
}

/** Records a sale once per invoiceId (and Idempotency-Key): attributed to its click, or to its customer's lead. */
export async function trackSale(workspaceId: string, input: SaleInput, opts: { idempotencyKey?: string; source: "api" | "shopify" | "till"; now?: Date }): Promise<{ saleId: string; duplicate: boolean }> {
  requireOne(input);
  if (currencyExponent(input.currency) === undefined) throw new AppError("VALIDATION_FAILED", `currency ${JSON.stringify(input.currency)} is not an ISO 4217 currency code (EUR, JPY, KWD...)`);
  if (!Number.isSafeInteger(input.amount) || input.amount < 0) throw new AppError("VALIDATION_FAILED", "amount is a whole number of the currency's minor unit (cents for EUR, yen for JPY, fils for KWD), 0 or more");
  const now = opts.now ?? new Date();
  const settings = await workspaceAttribution(workspaceId);
  const customer = input.customerExternalId ? customerHash(workspaceId, input.customerExternalId) : undefined;
  const attribution = input.clickId ? await clickAttribution(workspaceId, input.clickId, settings, now) : await readCustomerLead(workspaceId, customer!);
  return saveSale(workspaceId, attribution, input, { ...opts, now, settings, customer });
}

/** Records a sale whose click is known (checked by the caller), once per invoiceId and Idempotency-Key. */
export async function saveSale(
  workspaceId: string,
  attribution: Attribution | null,
  input: Pick<SaleInput, "amount" | "currency" | "invoiceId">,
  opts: { idempotencyKey?: string; source: ConversionSource; now: Date; settings?: ResolvedAttribution; customer?: string },
): Promise<{ saleId: string; duplicate: boolean }> {
  if (currencyExponent(input.currency) === undefined) throw new AppError("VALIDATION_FAILED", `currency ${JSON.stringify(input.currency)} is not an ISO 4217 currency code (EUR, JPY, KWD...)`);
  const settings = opts.settings ?? (await workspaceAttribution(workspaceId));
  const id = idOf("s", input.invoiceId);
  const sale: Conversion = { id, kind: "sale", at: opts.now, ...moment(settings, opts.now), source: opts.source, attribution, amount: input.amount, currency: input.currency, reversed: 0, ...(opts.customer ? { customer: opts.customer } : {}), counted: false };
  const { conversion, created } = await createConversion(workspaceId, sale, opts.idempotencyKey ? sha256Hex(opts.idempotencyKey).slice(0, 40) : undefined);
  if (!conversion.counted) await askToCount(workspaceId, [conversion.id]);
  return { saleId: conversion.id, duplicate: !created };
}

/** Reverses a sale (by its invoiceId) in whole or in part, once per reversalId. */
export async function reverseSale(workspaceId: string, input: ReversalInput, opts: { source: "api" | "shopify" | "till"; now?: Date }): Promise<{ reversed: boolean; duplicate: boolean }> {
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount <= 0)) throw new AppError("VALIDATION_FAILED", "amount is a whole number of minor units above 0 (omit it to reverse the whole sale)");
  const now = opts.now ?? new Date();
  const settings = await workspaceAttribution(workspaceId);
  const id = idOf("r", input.reversalId);
  const { conversion, created } = await createReversal(workspaceId, idOf("s", input.invoiceId), {
    id,
    kind: "reversal",
    at: now,
    ...moment(settings, now),
    source: opts.source,
    reason: input.reason,
    counted: false,
    ...(input.amount === undefined ? {} : { amount: input.amount }),
  });
  if (!conversion.counted) await askToCount(workspaceId, [id]);
  return { reversed: true, duplicate: !created };
}
