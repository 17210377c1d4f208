import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { webhookIdSchema } from "../../webhooks/service";
import { webhookDelete, WebhookDeletedSchema } from "../../webhooks/operations";

const input = z.object({ webhookId: webhookIdSchema }).strict();
const output = WebhookDeletedSchema;

const definition = {
  name: "svc.webhook.delete",
  title: "Delete webhook",
  description: "Deletes a webhook endpoint and its delivery log; nothing more is sent to it.",
  scope: "webhooks:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input,
  output,
  async handler({ webhookId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return webhookDelete(caller, webhookId);
  },
  summarize: (r: z.infer<typeof output>) => `Webhook ${r.webhookId} deleted.`,
};

export const webhookDeleteTool = defineTool(definition);
