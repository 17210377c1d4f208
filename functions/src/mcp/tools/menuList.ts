import { z } from "zod";
import { publicMenu } from "../../menus/model";
import { listDrafts } from "../../store/drafts";
import { defineTool } from "../tool";
import { listLimit } from "../../core/validation";

export const menuListTool = defineTool({
  name: "svc.menu.list",
  description: "Lists the merchant's menus with their sections and items, newest first (limit 1 to 100, default 20).",
  scope: "merchant:read",
  input: z.object({ limit: listLimit.optional() }).strict(),
  async handler({ limit }, { caller }) {
    const menus = (await listDrafts(caller.merchantId, "menus", limit ?? 20)).map(publicMenu);
    return { count: menus.length, menus };
  },
});
