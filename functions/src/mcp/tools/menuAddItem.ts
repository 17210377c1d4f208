import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ids } from "../../core/ids";
import { AppError } from "../../core/errors";
import { LIMITS, price, text } from "../../menus/fields";
import type { MenuSection } from "../../menus/model";
import { updateDraft } from "../../store/drafts";
import { defineTool } from "../tool";

export const menuAddItemTool = defineTool({
  name: "svc.menu.add_item",
  description: "Adds an item to a section of an existing menu of this workspace; the section is created when first used, and items keep their order.",
  scope: "menu:write",
  input: z
    .object({
      menuId: ids.menuId,
      sectionName: text(LIMITS.sectionName),
      name: text(LIMITS.itemName),
      description: text(LIMITS.itemDescription).optional(),
      price: price.optional(),
    })
    .strict(),
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
});
