import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { reverseSale } from "../../attribution/service";
import { ReversalAcceptedSchema, ReversalBodySchema } from "../../attribution/schemas";

const input = ReversalBodySchema;
const output = ReversalAcceptedSchema;

const definition = {
  name: "svc.conversion.reverse_sale",
  title: "Refund or cancel a sale",
  description: "Takes amount (what is left of the sale when omitted) off a reported sale, once per reversalId; reversing all of it takes the sale off the count.",
  scope: "conversions:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    const { duplicate } = await reverseSale(caller.merchantId, args, { source: "api" });
    return { accepted: true, duplicate };
  },
  summarize: (r: z.infer<typeof output>) => (r.duplicate ? "Reversal already recorded: nothing changed." : "Reversal recorded."),
};

export const conversionReverseSaleTool = defineTool(definition);
