import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { listLimit } from "../../core/validation";
import { deliveriesOf, deliveryAttempts, deliveryIdSchema, webhookIdSchema } from "../../webhooks/service";
import { DeliveryOut } from "./webhookShapes";

const input = z
  .object({
    webhookId: webhookIdSchema,
    limit: listLimit.optional(),
    deliveryId: deliveryIdSchema.optional().describe("One delivery, with every attempt kept (attemptLog)"),
  })
  .strict();
const output = z.object({ webhookId: z.string(), count: z.number().int(), deliveries: z.array(DeliveryOut) }).strict();

const definition = {
  name: "svc.webhook.deliveries",
  title: "Webhook delivery log",
  description:
    "A webhook's delivery log, newest first (kept 30 days): status, attempts, and the last attempt's response code, latency and first 1 KB of answer; with deliveryId, that delivery's every attempt. Redeliver one with svc.webhook.test and its deliveryId.",
  scope: "webhooks:read" as const,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler({ webhookId, limit, deliveryId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    const deliveries = deliveryId ? [await deliveryAttempts(caller.merchantId, webhookId, deliveryId)] : await deliveriesOf(caller.merchantId, webhookId, limit ?? 20);
    return { webhookId, count: deliveries.length, deliveries };
  },
  summarize: (r: z.infer<typeof output>) => `${r.count} deliveries for ${r.webhookId}.`,
};

export const webhookDeliveriesTool = defineTool(definition);
