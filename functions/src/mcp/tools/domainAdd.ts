import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { addDomain, MAX_DOMAINS, NewDomainSchema, PublicDomainSchema } from "../../domains/service";

const input = NewDomainSchema;
const output = PublicDomainSchema;

const definition = {
  name: "svc.domain.add",
  title: "Add branded domain",
  description:
    `Adds a host of the merchant's own (scan.example.com, or an apex such as example.com) to serve codes on, and returns the DNS records to create: a TXT ownership record with a fresh token and a CNAME (sub-domain) or A/AAAA or ALIAS (apex). At most ${MAX_DOMAINS} per workspace; owner only. ` +
    "Then create the records and call svc.domain.verify.",
  scope: "domains:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input,
  output,
  async handler(args: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return addDomain(caller, args);
  },
  summarize: (r: z.infer<typeof output>) => `Domain ${r.hostname} (${r.domainId}) added: create ${r.records.map((x) => `${x.type} ${x.name}`).join(", ")}.`,
};

export const domainAddTool = defineTool(definition);
