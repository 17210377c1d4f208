import { z } from "zod";
import { LIMITS, text } from "../../menus/fields";
import { publicMenu } from "../../menus/model";
import { draftMenu } from "../../menus/drafts";
import { consoleUrl, consoleUrlField, menuOutputShape } from "../outputs";
import { CREATES_DRAFT, defineTool } from "../tool";
import { UI_RESOURCES } from "../ui/resources";

export const menuCreateTool = defineTool({
  name: "svc.menu.create",
  title: "Draft a menu",
  description: "Creates a draft menu; add items with svc.menu.add_item.",
  scope: "menu:write",
  annotations: CREATES_DRAFT,
  input: z
    .object({
      name: text(LIMITS.menuName),
      description: text(LIMITS.description).optional(),
      locationId: text(LIMITS.locationId).optional(),
    })
    .strict(),
  output: z.object({ ...menuOutputShape, consoleUrl: consoleUrlField }),
  ui: UI_RESOURCES.menu.uri,
  async handler(args, { caller }) {
    const menu = await draftMenu(caller.merchantId, args);
    return { ...publicMenu(menu), consoleUrl: consoleUrl("content") };
  },
  summarize: (r) => `Drafted menu "${r.name}" (${r.menuId}); add items with svc.menu.add_item. Publish it in the console: ${r.consoleUrl}`,
});
