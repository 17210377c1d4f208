import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { domainIdSchema, PublicDomainSchema, verifyDomain } from "../../domains/service";

const input = z.object({ domainId: domainIdSchema }).strict();
const output = PublicDomainSchema;

const definition = {
  name: "svc.domain.verify",
  title: "Verify branded domain",
  description: "Checks a branded domain's DNS records now (they are also checked hourly) and returns its new state; problem says what is wrong or awaited. Owner only.",
  scope: "domains:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input,
  output,
  async handler({ domainId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return verifyDomain(caller, domainId);
  },
  summarize: (r: z.infer<typeof output>) => `${r.hostname} is ${r.state}${r.problem ? `: ${r.problem}` : "."}`,
};

export const domainVerifyTool = defineTool(definition);
