import { z } from "zod";
import { defineTool } from "../tool";

export const pingTool = defineTool({
  name: "svc.ping",
  description: "Checks the credential: returns ok, the merchant workspace it acts in, and how the caller authenticated.",
  scope: null,
  input: z.object({}).strict(),
  async handler(_args, { caller }) {
    return { ok: true, merchantId: caller.merchantId, authMethod: caller.authMethod };
  },
});
