import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { deliveryIdSchema, webhookIdSchema } from "../../webhooks/service";
import { DeliveryQueuedSchema, webhookSend } from "../../webhooks/operations";

const input = z
  .object({ webhookId: webhookIdSchema, deliveryId: deliveryIdSchema.optional().describe("Redeliver this logged delivery (same webhook-id and body) instead of sending a test event") })
  .strict();
const output = DeliveryQueuedSchema;

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
    return webhookSend(caller.merchantId, webhookId, deliveryId);
  },
  summarize: (r: z.infer<typeof output>) => `${r.redelivery ? "Redelivery" : "Test event"} ${r.deliveryId} queued for ${r.webhookId}.`,
};

export const webhookTestTool = defineTool(definition);
