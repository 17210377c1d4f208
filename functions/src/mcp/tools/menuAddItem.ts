import { z } from "zod";
import { ids } from "../../core/ids";
import { LIMITS, price, text } from "../../menus/fields";
import { addMenuItem } from "../../menus/drafts";
import { defineTool } from "../tool";
import { menuItemOutput } from "../outputs";

export const menuAddItemTool = defineTool({
  name: "svc.menu.add_item",
  description: "Adds an item to a menu section (created when first used); items keep their order.",
  title: "Add a menu item",
  scope: "menu:write",
  // Each call appends an item: the same call twice adds it twice.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      menuId: ids.menuId,
      sectionName: text(LIMITS.sectionName),
      name: text(LIMITS.itemName),
      description: text(LIMITS.itemDescription).optional(),
      price: price.optional(),
    })
    .strict(),
  output: z.object({ menuId: z.string(), sectionName: z.string(), sectionCreated: z.boolean(), position: z.number().int(), item: menuItemOutput }),
  async handler(args, { caller }) {
    return addMenuItem(caller.merchantId, args);
  },
  summarize: (r) => `Added "${r.item.name}"${r.item.price === null ? "" : ` (${r.item.price})`} as item ${r.position} of ${r.sectionCreated ? "new " : ""}section "${r.sectionName}" of menu ${r.menuId}.`,
});
