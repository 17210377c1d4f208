import { z } from "zod";
import { LIMITS, text } from "../../menus/fields";
import { publicMenu } from "../../menus/model";
import { createDraft } from "../../store/drafts";
import { defineTool } from "../tool";

export const menuCreateTool = defineTool({
  name: "svc.menu.create",
  description: "Creates a draft menu (name, optional description and merchant locationId). Add items with svc.menu.add_item.",
  scope: "menu:write",
  input: z
    .object({
      name: text(LIMITS.menuName).describe(`At most ${LIMITS.menuName} characters`),
      description: text(LIMITS.description).optional(),
      locationId: text(LIMITS.locationId).optional(),
    })
    .strict(),
  async handler(args, { caller }) {
    const now = new Date();
    const menu = await createDraft(caller.merchantId, "menus", "menuId", {
      name: args.name,
      description: args.description ?? null,
      locationId: args.locationId ?? null,
      sections: [],
      status: "draft",
      createdAt: now,
      updatedAt: now,
    });
    return publicMenu(menu);
  },
});
