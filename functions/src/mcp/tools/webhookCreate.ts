import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { createWebhook, NewWebhookSchema, publicWebhook } from "../../webhooks/service";
import { WebhookOut } from "./webhookShapes";

const input = NewWebhookSchema;
const output = z.object({ webhookId: z.string(), secret: z.string().describe("whsec_…: shown this once; verify deliveries with it"), webhook: WebhookOut }).strict();

// Declared apart from defineTool so the hints and output schema ride along whichever ToolDefinition shape is merged.
const definition = {
  name: "svc.webhook.create",
  title: "Create webhook",
  description:
    "Subscribes an https endpoint to events (scan.created, code.created, code.updated, code.published), optionally only for some codeIds or campaigns. " +
    "Deliveries are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature). Returns webhookId and the secret (whsec_…), shown once.",
  scope: "webhooks:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    const { webhook, secret } = await createWebhook(caller.merchantId, caller.uid, args, caller.keyId ?? null);
    return { webhookId: webhook.webhookId, secret, webhook: publicWebhook(webhook) };
  },
  summarize: (r: z.infer<typeof output>) => `Webhook ${r.webhookId} created for ${r.webhook.url}; its secret is shown only now.`,
};

export const webhookCreateTool = defineTool(definition);
