import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { trackLead } from "../../attribution/service";
import { LeadAcceptedSchema, LeadBodySchema } from "../../attribution/schemas";

const input = LeadBodySchema;
const output = LeadAcceptedSchema;

const definition = {
  name: "svc.conversion.track_lead",
  title: "Report a lead",
  description:
    "Records a lead (sign-up, booking) once per click id (or customer) and eventName, counted against the code, campaign rule and A/B arm the click id names (docs/attribution.md). A forged, expired or other workspace's click id is refused and nothing is written.",
  scope: "conversions:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return { accepted: true, ...(await trackLead(caller.merchantId, args, { source: "api" })) };
  },
  summarize: (r: z.infer<typeof output>) => `Lead ${r.duplicate ? "already recorded" : "recorded"}${r.attributed ? "" : " (no click known: counted for the workspace only)"}.`,
};

export const conversionTrackLeadTool = defineTool(definition);
