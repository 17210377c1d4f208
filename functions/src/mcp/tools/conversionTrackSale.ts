import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { trackSale } from "../../attribution/service";
import { SaleAcceptedSchema, SaleBodySchema } from "../../attribution/schemas";

const input = SaleBodySchema;
const output = SaleAcceptedSchema;

const definition = {
  name: "svc.conversion.track_sale",
  title: "Report a sale",
  description:
    "Records a sale once per invoiceId, attributed to its click id or to the customer's lead. amount is an integer in the currency's minor unit (ISO 4217: 1999 EUR = 19.99 EUR, JPY has none, KWD three); revenue is never summed across currencies.",
  scope: "conversions:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return { accepted: true, ...(await trackSale(caller.merchantId, args, { source: "api" })) };
  },
  summarize: (r: z.infer<typeof output>) => `Sale ${r.saleId} ${r.duplicate ? "already recorded: nothing changed" : "recorded"}.`,
};

export const conversionTrackSaleTool = defineTool(definition);
