import { z } from "zod";
import { text } from "../../core/validation";
import { lookupListing } from "../../listings/service";
import { defineTool } from "../tool";

export const voiceAgentLookupTool = defineTool({
  name: "svc.voice_agent.lookup",
  description: "Looks up the confirmed voice agent phone number of a business by website domain (protocol, www. and path are stripped). Returns registered: false when there is no approved listing.",
  scope: null,
  input: z.object({ domain: text(2048).describe("Domain or URL of the business website") }).strict(),
  async handler({ domain }) {
    return lookupListing(domain);
  },
});
