import { z } from "zod";
import { publicMenu } from "../../menus/model";
import { listDraftPage } from "../../store/drafts";
import { defineTool, READ_ONLY } from "../tool";
import { count, menuOutput, moreSentence, pageInputShape, pageOutputShape, summaryLines } from "../outputs";
import { boundedPage } from "../resultBudget";

export const menuListTool = defineTool({
  name: "svc.menu.list",
  title: "List menus",
  description: "Lists the workspace's menus with their sections and items, newest first.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z
    .object(pageInputShape)
    .strict(),
  output: z.object({
    count: z.number().int(),
    menus: z.array(menuOutput),
    ...pageOutputShape,
  }),
  async handler({ limit, cursor }, { caller }) {
    return boundedPage(
      async (n) => {
        const page = await listDraftPage(caller.merchantId, "menus", { limit: n, cursor });
        const menus = page.items.map(publicMenu);
        return { count: menus.length, menus, nextCursor: page.nextCursor };
      },
      (page) => page.menus,
      limit ?? 20,
    );
  },
  summarize: (r) =>
    `${count(r.count, "menu")}, newest first${r.count ? ":\n" + summaryLines(r.menus, (m) => `${m.status} menu "${m.name}" (${m.menuId}), ${count(m.itemCount, "item")}`) : "."}${moreSentence(r)}`,
});
