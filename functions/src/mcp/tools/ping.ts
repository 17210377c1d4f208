import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool";

export const authMethodOutput = z.enum(["api-key", "id-token", "session-cookie", "oauth"]);

export const pingTool = defineTool({
  name: "svc.ping",
  title: "Check the connection",
  description: "Checks the credential: the workspace it acts in and how it authenticated.",
  scope: null,
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: z.object({ ok: z.literal(true), merchantId: z.string(), authMethod: authMethodOutput }),
  async handler(_args, { caller }) {
    return { ok: true as const, merchantId: caller.merchantId, authMethod: caller.authMethod };
  },
  summarize: (r) => `Connected to workspace ${r.merchantId} (${r.authMethod}).`,
});
