import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { domainIdSchema, DomainDeletedSchema, removeDomain } from "../../domains/service";

const input = z.object({ domainId: domainIdSchema }).strict();
const output = DomainDeletedSchema;

const definition = {
  name: "svc.domain.remove",
  title: "Remove branded domain",
  description: "Removes a branded domain from the workspace and frees its host; adding it again gives a new token. Owner only.",
  scope: "domains:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input,
  output,
  async handler({ domainId }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return removeDomain(caller, domainId);
  },
  summarize: (r: z.infer<typeof output>) => `Domain ${r.domainId} removed.`,
};

export const domainRemoveTool = defineTool(definition);
