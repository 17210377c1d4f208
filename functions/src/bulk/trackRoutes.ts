// REST: conversion tracking (docs/attribution.md), served by the bulk function under /api/track. Leads,
// sales, reversals and till redemptions need a key with the conversions:write scope; the tracking
// settings of the workspace and of a code need it too (they decide what the redirect appends).
import { z } from "zod";
import { ids } from "../core/ids";
import { endpoint } from "../http/endpoint";
import { reverseSale, trackLead, trackSale } from "../attribution/service";
import { codeTracking, readTrackingSettings, setCodeTracking, writeTrackingSettings } from "../attribution/admin";
import { TrackingSettingsSchema, WorkspaceAttributionSchema, trackConversionsField } from "../attribution/settings";
import { DiscountPoolSchema, DiscountPoolResultSchema, addDiscountCodes, redeemDiscount, RedeemSchema } from "../attribution/discounts";
import { idempotencyKeyOf } from "./app";
import { LeadAcceptedSchema, LeadBodySchema, ReversalAcceptedSchema, ReversalBodySchema, SaleAcceptedSchema, SaleBodySchema } from "../attribution/schemas";

const TRACK = { credential: "caller", scope: "conversions:write", limit: "tracking" } as const;

const CodeParams = z.strictObject({ codeId: ids.codeId });
export const CodeTrackingBodySchema = z.strictObject({ trackConversions: trackConversionsField.nullable().describe("true or false for this code; null: its campaign's or the workspace's setting decides") });
export const CodeTrackingSchema = z.object({ codeId: z.string(), trackConversions: z.boolean().nullable() }).meta({ title: "CodeTracking" });

const REFUSALS = "A clickId that is forged or altered, older than the workspace's window, or another workspace's is refused with 400 and a sentence saying which; nothing is written.";

export const trackRoutes = [
  endpoint({
    method: "POST",
    path: "/api/track/lead",
    summary: "Report a lead (sign-up, booking...) after a scan",
    ...TRACK,
    body: LeadBodySchema,
    response: LeadAcceptedSchema,
    doc: {
      operationId: "trackLead",
      success: [202],
      description: `Records a lead once per click (or customer) and eventName; the scan consumer counts it against the code, rule and A/B arm the click id names. Give clickId, customerExternalId, or both (which ties the customer to the click: the last click before the lead wins). ${REFUSALS}`,
      errors: ["VALIDATION_FAILED"],
      example: { body: { customerExternalId: "cust-8812", eventName: "sign_up" }, response: { accepted: true, duplicate: false, leadId: "l~3f9a2c7d1e5b4a60c2d13f9a2c7d1e5b4a60c2d1", attributed: false } },
    },
    handle: async ({ res, caller, body }) => {
      const result = await trackLead(caller.merchantId, body, { source: "api" });
      res.status(202);
      return { accepted: true as const, ...result };
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/track/sale",
    summary: "Report a sale after a scan",
    ...TRACK,
    body: SaleBodySchema,
    response: SaleAcceptedSchema,
    doc: {
      operationId: "trackSale",
      success: [202],
      description: `Records a sale once per invoiceId (and per Idempotency-Key), attributed to its click id, or to the click of the customer's lead. Amounts are integers in the currency's minor unit (ISO 4217: EUR 2 decimals, JPY 0, KWD 3); revenue is kept per currency, never summed across currencies. A sale may arrive before its scan is counted. ${REFUSALS}`,
      errors: ["VALIDATION_FAILED"],
      requestHeaders: [{ name: "Idempotency-Key", maxLength: 255, description: "Optional: a retry with the same key changes nothing" }],
      example: { body: { customerExternalId: "cust-8812", amount: 1999, currency: "EUR", invoiceId: "INV-2026-0042" }, response: { accepted: true, duplicate: false, saleId: "s~3f9a2c7d1e5b4a60c2d13f9a2c7d1e5b4a60c2d1" } },
    },
    handle: async ({ req, res, caller, body }) => {
      const key = idempotencyKeyOf(req);
      const result = await trackSale(caller.merchantId, body, { source: "api", ...(key ? { idempotencyKey: key } : {}) });
      res.status(202);
      return { accepted: true as const, ...result };
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/track/reversal",
    summary: "Refund or cancel a reported sale",
    ...TRACK,
    body: ReversalBodySchema,
    response: ReversalAcceptedSchema,
    doc: {
      operationId: "trackReversal",
      success: [202],
      description: "Takes `amount` (what is left of the sale when omitted) off the sale named by its invoiceId, once per reversalId; the reversal that leaves nothing of the sale also takes it off the sales count. 404: no such sale; 409: reversed in full already; 400: more than what is left.",
      errors: ["VALIDATION_FAILED", "NOT_FOUND", "CONFLICT"],
      example: { body: { invoiceId: "INV-2026-0042", reason: "refund", reversalId: "RF-7" }, response: { accepted: true, duplicate: false } },
    },
    handle: async ({ res, caller, body }) => {
      const { duplicate } = await reverseSale(caller.merchantId, body, { source: "api" });
      res.status(202);
      return { accepted: true as const, duplicate };
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/track/settings",
    summary: "Read the workspace's conversion tracking settings",
    ...TRACK,
    response: TrackingSettingsSchema,
    doc: { operationId: "getTrackingSettings", description: "The workspace's tracking settings with their defaults (docs/attribution.md, \"Settings\").", example: { response: { trackConversions: false, clickIdParam: "svc_sid", windowDays: 30, firstPartyCookie: false } } },
    handle: ({ caller }) => readTrackingSettings(caller.merchantId),
  }),
  endpoint({
    method: "POST",
    path: "/api/track/settings",
    summary: "Change the workspace's conversion tracking settings",
    ...TRACK,
    body: WorkspaceAttributionSchema,
    response: TrackingSettingsSchema,
    doc: {
      operationId: "setTrackingSettings",
      description: "Sets the fields given (the others keep their values). Redirect instances apply a change within a minute. `firstPartyCookie` sets a tracking cookie on your own domains: you need your visitors' consent basis for it.",
      errors: ["VALIDATION_FAILED"],
      example: { body: { trackConversions: true, windowDays: 14 }, response: { trackConversions: true, clickIdParam: "svc_sid", windowDays: 14, firstPartyCookie: false } },
    },
    handle: ({ caller, body }) => writeTrackingSettings(caller.merchantId, body),
  }),
  endpoint({
    method: "POST",
    path: "/api/track/codes/:codeId",
    summary: "Turn conversion tracking on or off for one code",
    ...TRACK,
    params: CodeParams,
    body: CodeTrackingBodySchema,
    response: CodeTrackingSchema,
    doc: {
      operationId: "setCodeTracking",
      description: "A dynamic code's own choice, which comes before its campaign's and the workspace's; null removes it.",
      errors: ["VALIDATION_FAILED", "NOT_FOUND"],
      example: { params: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne" }, body: { trackConversions: true }, response: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne", trackConversions: true } },
    },
    handle: ({ caller, params, body }) => setCodeTracking(caller.merchantId, params.codeId, body.trackConversions),
  }),
  endpoint({
    method: "GET",
    path: "/api/track/codes/:codeId",
    summary: "Read one code's own conversion tracking choice",
    ...TRACK,
    params: CodeParams,
    response: CodeTrackingSchema,
    doc: { operationId: "getCodeTracking", description: "null: the code has no choice of its own.", errors: ["NOT_FOUND"], example: { params: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne" }, response: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne", trackConversions: null } } },
    handle: ({ caller, params }) => codeTracking(caller.merchantId, params.codeId),
  }),
  endpoint({
    method: "POST",
    path: "/api/track/discounts/:codeId",
    summary: "Give a code one-time discount codes to hand out in store",
    ...TRACK,
    params: CodeParams,
    body: DiscountPoolSchema,
    response: DiscountPoolResultSchema,
    doc: {
      operationId: "addDiscountCodes",
      description: "Adds your own one-time codes (`codes`) or has the service generate `generate` of them; each person who scans the code is shown one on a page after the scan, and the till redeems it as a sale. At most 1,000 per call.",
      errors: ["VALIDATION_FAILED", "NOT_FOUND"],
      example: { params: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne" }, body: { codes: ["K7QH-M2XP", "R4TN-9WVD"] }, response: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne", added: 2, codes: ["K7QH-M2XP", "R4TN-9WVD"] } },
    },
    handle: ({ caller, params, body }) => addDiscountCodes(caller.merchantId, params.codeId, body),
  }),
  endpoint({
    method: "POST",
    path: "/api/track/redeem",
    summary: "Redeem an in-store discount code at the till (a sale)",
    ...TRACK,
    body: RedeemSchema,
    response: SaleAcceptedSchema,
    doc: {
      operationId: "redeemDiscount",
      success: [202],
      description: "Records the sale of a one-time discount code, attributed to the code, rule and A/B arm of the scan it was handed out after (one never handed out: a sale of the workspace only). A code counts once: redeeming it again answers duplicate (the same invoiceId) or 409 (another invoiceId).",
      errors: ["VALIDATION_FAILED", "NOT_FOUND", "CONFLICT"],
      example: { body: { discountCode: "K7QH-M2XP", amount: 4500, currency: "EUR", invoiceId: "TILL-3-0098" }, response: { accepted: true, duplicate: false, saleId: "s~3f9a2c7d1e5b4a60c2d13f9a2c7d1e5b4a60c2d1" } },
    },
    handle: async ({ res, caller, body }) => {
      const result = await redeemDiscount(caller.merchantId, body);
      res.status(202);
      return { accepted: true as const, ...result };
    },
  }),
];
