import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { MAX_WEBHOOKS } from "../../webhooks/service";
import { webhookList, WebhookListSchema } from "../../webhooks/operations";

const input = z.object({}).strict();
const output = WebhookListSchema;

const definition = {
  name: "svc.webhook.list",
  title: "List webhooks",
  description: `Lists all the workspace's webhook endpoints (at most ${MAX_WEBHOOKS}, so no pages) with their events, narrowing and status (disabled after an hour of failed attempts). Never shows secrets.`,
  scope: "webhooks:read" as const,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(_args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return webhookList(caller.merchantId);
  },
  summarize: (r: z.infer<typeof output>) => `${r.count} webhook${r.count === 1 ? "" : "s"}.`,
};

export const webhookListTool = defineTool(definition);
