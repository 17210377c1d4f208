import { z } from "zod";
import { defineTool } from "../tool";
import { listLimit } from "../../core/validation";
import { Gs1ItemSchema } from "../../gs1/model";
import { listItems } from "../../gs1/service";

const input = z
  .object({
    limit: listLimit.optional(),
    cursor: z.string().max(64).optional().describe("nextCursor of the previous page"),
  })
  .strict();

const output = z.object({ items: z.array(Gs1ItemSchema), nextCursor: z.string().nullable() }).strict();

export const gs1ItemListTool = defineTool({
  name: "svc.gs1.list_items",
  title: "List GS1 items",
  description: "Lists the workspace's GS1 items (key, qualifiers, resolver URI and links), a page at a time in a stable order; follow nextCursor.",
  scope: "qr:write",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input,
  output,
  handler: ({ limit, cursor }, { caller }) => listItems(caller.merchantId, limit ?? 20, cursor),
  summarize: (r) => `${r.items.length} GS1 item(s)${r.nextCursor ? ", more on the next page" : ""}.`,
});
