import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ids } from "../../core/ids";
import { AppError } from "../../core/errors";
import { LIMITS, price, text } from "../../menus/fields";
import type { MenuSection } from "../../menus/model";
import { updateDraft } from "../../store/drafts";
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
    return updateDraft(caller.merchantId, "menus", args.menuId, (menu) => {
      const sections = (menu.sections as MenuSection[]) ?? [];
      const itemCount = sections.reduce((n, s) => n + s.items.length, 0);
      if (itemCount >= LIMITS.itemsPerMenu) {
        throw new AppError("CONFLICT", `A menu holds at most ${LIMITS.itemsPerMenu} items`);
      }
      const item = { itemId: `item_${randomBytes(6).toString("hex")}`, name: args.name, description: args.description ?? null, price: args.price ?? null };
      let section = sections.find((s) => s.name.toLowerCase() === args.sectionName.toLowerCase());
      const sectionCreated = !section;
      if (!section) {
        section = { name: args.sectionName, items: [] };
        sections.push(section);
      }
      section.items.push(item);
      const now = new Date();
      return {
        next: { ...menu, sections, updatedAt: now },
        result: { menuId: args.menuId, sectionName: section.name, sectionCreated, position: section.items.length, item },
      };
    });
  },
  summarize: (r) => `Added "${r.item.name}"${r.item.price === null ? "" : ` (${r.item.price})`} as item ${r.position} of ${r.sectionCreated ? "new " : ""}section "${r.sectionName}" of menu ${r.menuId}.`,
});
