import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { MAX_OVERLAP_HOURS, webhookIdSchema } from "../../webhooks/service";
import { SecretRotatedSchema, webhookRotateSecret } from "../../webhooks/operations";

const input = z
  .object({
    webhookId: webhookIdSchema,
    overlapHours: z.number().min(0).max(MAX_OVERLAP_HOURS).optional().describe(`Hours the previous secret keeps signing too (0 to ${MAX_OVERLAP_HOURS}, default 24)`),
  })
  .strict();
const output = SecretRotatedSchema;

const definition = {
  name: "svc.webhook.rotate_secret",
  title: "Rotate webhook secret",
  description: "Makes a new signing secret (shown once). Until previousValidUntil every delivery carries signatures by both, so receivers can switch without a gap.",
  scope: "webhooks:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input,
  output,
  async handler({ webhookId, overlapHours }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return webhookRotateSecret(caller, webhookId, overlapHours);
  },
  summarize: (r: z.infer<typeof output>) => `New secret for ${r.webhookId}; the previous one signs until ${r.previousValidUntil}.`,
};

export const webhookRotateSecretTool = defineTool(definition);
