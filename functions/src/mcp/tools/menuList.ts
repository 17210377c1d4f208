import { z } from "zod";
import { publicMenu } from "../../menus/model";
import { listDrafts } from "../../store/drafts";
import { defineTool, READ_ONLY } from "../tool";
import { listLimit } from "../../core/validation";
import { count, menuOutput } from "../outputs";

export const menuListTool = defineTool({
  name: "svc.menu.list",
  title: "List menus",
  description: "Lists the merchant's menus with their sections and items, newest first (limit 1 to 100, default 20).",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z.object({ limit: listLimit.optional() }).strict(),
  output: z.object({ count: z.number().int(), menus: z.array(menuOutput) }),
  async handler({ limit }, { caller }) {
    const menus = (await listDrafts(caller.merchantId, "menus", limit ?? 20)).map(publicMenu);
    return { count: menus.length, menus };
  },
  summarize: (r) =>
    `${count(r.count, "menu")}, newest first${r.count ? ":\n" + r.menus.map((m) => `- ${m.status} menu "${m.name}" (${m.menuId}), ${count(m.itemCount, "item")}`).join("\n") : "."}`,
});
