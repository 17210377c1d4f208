// What the tracking surfaces take and answer (REST bulk/trackRoutes.ts, the MCP conversions toolset):
// strict zod, with length limits, declared once.
import { z } from "zod";
import { text } from "../core/validation";
import { CLICK_ID_MAX } from "./clickId";

const clickId = z.string().min(1).max(CLICK_ID_MAX).describe("The svc_sid value the landing page received (or the workspace's parameter name)");
const customerExternalId = text(200).describe("Your id of the customer (stored only as a keyed hash): a lead with clickId ties them to the click; their later sales follow it");
const invoiceId = text(200).describe("Your id of the sale: a second sale with the same invoiceId changes nothing");
const minorUnits = z.int().min(0).max(1e12).describe("Integer, in the currency's minor unit: 1999 EUR is 19.99 EUR, 1999 JPY is 1999 yen, 1999 KWD is 1.999 dinar");

export const LeadBodySchema = z.strictObject({ clickId: clickId.optional(), customerExternalId: customerExternalId.optional(), eventName: text(100).describe("What happened: sign_up, booking...") }).meta({ title: "TrackLead" });
export const SaleBodySchema = z
  .strictObject({
    clickId: clickId.optional(),
    customerExternalId: customerExternalId.optional(),
    amount: minorUnits,
    currency: z.string().regex(/^[A-Z]{3}$/, "currency is an ISO 4217 code in capitals: EUR, JPY, KWD").describe("ISO 4217 code"),
    invoiceId,
  })
  .meta({ title: "TrackSale" });
export const ReversalBodySchema = z
  .strictObject({
    invoiceId,
    amount: minorUnits.min(1).optional().describe("Minor units to take back (a partial refund); omitted: what is left of the sale"),
    reason: z.enum(["refund", "cancel"]),
    reversalId: text(200).describe("Your id of this refund or cancellation: a second one with the same id changes nothing"),
  })
  .meta({ title: "TrackReversal" });

const Accepted = z.object({ accepted: z.literal(true), duplicate: z.boolean().describe("true: this lead, sale or reversal was recorded before; nothing changed") });
export const LeadAcceptedSchema = Accepted.extend({ leadId: z.string(), attributed: z.boolean().describe("false: no click known for it (counted for the workspace only)") }).meta({ title: "LeadAccepted" });
export const SaleAcceptedSchema = Accepted.extend({ saleId: z.string() }).meta({ title: "SaleAccepted" });
export const ReversalAcceptedSchema = Accepted.meta({ title: "ReversalAccepted" });

