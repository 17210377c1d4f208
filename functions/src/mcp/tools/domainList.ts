import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { defaultDomainOf, domainGet, domainIdSchema, domainList, DomainListSchema, MAX_DOMAINS, hostPagesOf } from "../../domains/service";

const input = z.object({ domainId: domainIdSchema.optional().describe("Only this domain") }).strict();
const output = DomainListSchema;

const definition = {
  name: "svc.domain.list",
  title: "List branded domains",
  description: `Lists the workspace's branded domains (at most ${MAX_DOMAINS}, so no pages), or one by domainId: state (pending, verifying, cert_pending, active, invalid, detached), the records to create, and what is wrong as a sentence.`,
  scope: "domains:read" as const,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler({ domainId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    if (!domainId) return domainList(caller);
    const [domain, defaultDomainId, pages] = await Promise.all([domainGet(caller, domainId), defaultDomainOf(caller), hostPagesOf(caller)]);
    return { count: 1, max: MAX_DOMAINS, defaultDomainId, ...pages, domains: [domain] };
  },
  summarize: (r: z.infer<typeof output>) => `${r.count} domain${r.count === 1 ? "" : "s"}${r.domains.length ? `: ${r.domains.map((d) => `${d.hostname} ${d.state}`).join(", ")}` : ""}.`,
};

export const domainListTool = defineTool(definition);
