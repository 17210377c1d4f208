import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { deliveryIdSchema, redeliver, sendTestEvent, webhookIdSchema } from "../../webhooks/service";

const input = z
  .object({ webhookId: webhookIdSchema, deliveryId: deliveryIdSchema.optional().describe("Redeliver this logged delivery (same webhook-id and body) instead of sending a test event") })
  .strict();
const output = z.object({ webhookId: z.string(), deliveryId: z.string(), queued: z.literal(true), redelivery: z.boolean() }).strict();

const definition = {
  name: "svc.webhook.test",
  title: "Test or redeliver webhook",
  description:
    "Queues a signed test event to a webhook endpoint, or with deliveryId redelivers a delivery from its log (same webhook-id, so receivers can deduplicate). See the outcome with svc.webhook.deliveries.",
  scope: "webhooks:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input,
  output,
  async handler({ webhookId, deliveryId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    if (deliveryId) {
      await redeliver(caller.merchantId, webhookId, deliveryId);
      return { webhookId, deliveryId, queued: true as const, redelivery: true };
    }
    const sent = await sendTestEvent(caller.merchantId, webhookId);
    return { webhookId, deliveryId: sent.deliveryId, queued: true as const, redelivery: false };
  },
  summarize: (r: z.infer<typeof output>) => `${r.redelivery ? "Redelivery" : "Test event"} ${r.deliveryId} queued for ${r.webhookId}.`,
};

export const webhookTestTool = defineTool(definition);
