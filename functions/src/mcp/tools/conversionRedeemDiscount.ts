import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { redeemDiscount, RedeemSchema } from "../../attribution/discounts";
import { SaleAcceptedSchema } from "../../attribution/schemas";

const input = RedeemSchema;
const output = SaleAcceptedSchema;

const definition = {
  name: "svc.conversion.redeem_discount",
  title: "Redeem in-store discount",
  description: "Records the till's sale of a one-time discount code a person was shown after scanning, attributed to that scan's code, rule and A/B arm. A code counts once.",
  scope: "conversions:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return { accepted: true, ...(await redeemDiscount(caller.merchantId, args)) };
  },
  summarize: (r: z.infer<typeof output>) => `Sale ${r.saleId} ${r.duplicate ? "already recorded: nothing changed" : "recorded"}.`,
};

export const conversionRedeemDiscountTool = defineTool(definition);
