import { z } from "zod";
import { brandPresetList } from "../../codes/brandPresets";
import { BRAND_PRESETS_MAX } from "../../store/brandPresets";
import { defineTool, READ_ONLY } from "../tool";
import { count, summaryLines } from "../outputs";
import { PublicBrandPresetSchema } from "../../codes/schemas";

export const brandListPresetsTool = defineTool({
  name: "svc.brand.list_presets",
  title: "List brand presets",
  description:
    `Lists all the workspace's saved brand presets (at most ${BRAND_PRESETS_MAX}, so no pages; read-only): each preset's name and design (colours, module and eye styles, quiet zone, logo size). Use a preset in svc.qr.create or svc.qr.update with design: { preset: "<name>" }; other design fields given beside it override the preset's. Presets are saved by people in the console (Settings, Brand presets).`,
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: z.object({ count: z.number().int(), presets: z.array(PublicBrandPresetSchema) }),
  async handler(_args, { caller }) {
    return brandPresetList(caller.merchantId);
  },
  summarize: (r) =>
    `${count(r.count, "brand preset")}${r.count ? ":\n" + summaryLines(r.presets, (p) => `"${p.name}": ${p.design?.foreground ?? "#000000"} on ${p.design?.background ?? "#FFFFFF"}, ${p.design?.moduleStyle ?? "square"} modules${p.design?.logo ? ", with logo" : ""}`) : ". People save presets in the console (Settings, Brand presets)."}`,
});
