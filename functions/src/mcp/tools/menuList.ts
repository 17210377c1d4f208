import { z } from "zod";
import { publicMenu } from "../../menus/model";
import { listDraftPage } from "../../store/drafts";
import { defineTool, READ_ONLY } from "../tool";
import { listLimit } from "../../core/validation";
import { count, menuOutput } from "../outputs";

export const menuListTool = defineTool({
  name: "svc.menu.list",
  title: "List menus",
  description: "Lists the merchant's menus with their sections and items, newest first; pass nextCursor back as cursor for the next page.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z
    .object({
      limit: listLimit.optional().describe("Page size (default 20)"),
      cursor: z.string().min(1).max(512).optional().describe("nextCursor of the previous page"),
    })
    .strict(),
  output: z.object({
    count: z.number().int(),
    menus: z.array(menuOutput),
    nextCursor: z.string().nullable().describe("Cursor of the next page; null on the last"),
  }),
  async handler({ limit, cursor }, { caller }) {
    const page = await listDraftPage(caller.merchantId, "menus", { limit: limit ?? 20, cursor });
    const menus = page.items.map(publicMenu);
    return { count: menus.length, menus, nextCursor: page.nextCursor };
  },
  summarize: (r) =>
    `${count(r.count, "menu")}, newest first${r.count ? ":\n" + r.menus.map((m) => `- ${m.status} menu "${m.name}" (${m.menuId}), ${count(m.itemCount, "item")}`).join("\n") : "."}${r.nextCursor ? "\nMore: pass nextCursor as cursor." : ""}`,
});
