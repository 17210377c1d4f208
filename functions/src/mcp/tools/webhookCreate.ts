import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { NewWebhookSchema } from "../../webhooks/service";
import { webhookCreate, WebhookCreatedSchema } from "../../webhooks/operations";

const input = NewWebhookSchema;
const output = WebhookCreatedSchema;

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
    return webhookCreate(caller, args);
  },
  summarize: (r: z.infer<typeof output>) => `Webhook ${r.webhookId} created for ${r.webhook.url}; its secret is shown only now.`,
};

export const webhookCreateTool = defineTool(definition);
