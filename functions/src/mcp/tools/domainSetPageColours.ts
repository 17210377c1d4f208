import { z } from "zod";
import type { ToolContext } from "../tool";
import { defineTool } from "../tool";
import { PageColoursSchema, setWorkspacePageColours } from "../../domains/service";

// The same schema and function as POST /api/domains/page-colours (owners only, the contrast floor).
const input = PageColoursSchema;
const output = PageColoursSchema;

const definition = {
  name: "svc.domain.set_page_colours",
  title: "Set branded hosts' page colours",
  description:
    "Sets the colours of the pages the workspace's branded hosts answer when nothing is at an address (an unknown code, a product code not found, / without a root URL): its name above the heading, text in foreground on background (#RRGGBB, refused below a 4.5:1 contrast). null clears them. svc.domain.list answers them as pageColours. Owner only.",
  scope: "domains:write" as const,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler({ pageColours }: z.infer<typeof input>, { caller }: ToolContext): Promise<z.infer<typeof output>> {
    return setWorkspacePageColours(caller, pageColours);
  },
  summarize: (r: z.infer<typeof output>) => (r.pageColours ? `Pages in ${r.pageColours.foreground} on ${r.pageColours.background}.` : "Pages in the plain look."),
};

export const domainSetPageColoursTool = defineTool(definition);
