import { z } from "zod";
import { text } from "../../core/validation";
import { lookupListing } from "../../listings/service";
import { defineTool } from "../tool";

export const voiceAgentLookupTool = defineTool({
  name: "svc.voice_agent.lookup",
  description: "Finds the approved voice agent number of a business by website domain; registered: false when none.",
  title: "Look up a business's voice agent",
  scope: null,
  // Reads the public phone book of every business, not only the caller's workspace.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: z.object({ domain: text(2048).describe("Domain or URL of the business website") }).strict(),
  // One object rather than a union: outputSchema must be an object schema; `registered` says which fields are set.
  output: z.object({
    registered: z.boolean(),
    domain: z.string(),
    businessName: z.string().optional(),
    voiceAgentPhone: z.string().optional(),
    page: z.string().optional(),
    message: z.string().optional(),
  }),
  async handler({ domain }) {
    return lookupListing(domain);
  },
  summarize: (r) => (r.registered ? `${r.businessName} (${r.domain}): voice agent ${r.voiceAgentPhone}, ${r.page}` : `${r.message}.`),
});
