// Output shapes shared by the webhook tools (what webhooks/service.ts publicWebhook and publicDelivery return).
import { z } from "zod";
import { WEBHOOK_DISABLED_REASONS, WEBHOOK_EVENTS } from "../../store/webhooks";

export const WebhookOut = z
  .object({
    webhookId: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    codeIds: z.array(z.string()).nullable(),
    campaigns: z.array(z.string()).nullable(),
    status: z.enum(["active", "disabled"]),
    failingSince: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z.enum(WEBHOOK_DISABLED_REASONS).nullable(),
    createdAt: z.string(),
    secretsInUse: z.number().int(),
  })
  .strict();

const LastAttempt = z
  .object({ at: z.string(), attempt: z.number().int(), ok: z.boolean(), responseCode: z.number().int().nullable(), latencyMs: z.number(), detail: z.string() })
  .strict();

export const DeliveryOut = z
  .object({
    deliveryId: z.string(),
    type: z.enum(WEBHOOK_EVENTS),
    events: z.number().int(),
    status: z.enum(["pending", "retrying", "succeeded", "failed"]),
    attempts: z.number().int(),
    createdAt: z.string(),
    last: LastAttempt.nullable(),
  })
  .strict();
