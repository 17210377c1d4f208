import { z } from "zod";
import { publicBrandPreset } from "../../codes/model";
import { listBrandPresets } from "../../store/brandPresets";
import { defineTool } from "../tool";

export const brandListPresetsTool = defineTool({
  name: "svc.brand.list_presets",
  description:
    "Lists the workspace's saved brand presets (read-only): each preset's name and design (colours, module and eye styles, quiet zone, logo size). Use a preset in svc.qr.create or svc.qr.update with design: { preset: \"<name>\" }; other design fields given beside it override the preset's. Presets are saved by people in the console (Settings, Brand presets).",
  scope: "merchant:read",
  input: z.object({}).strict(),
  async handler(_args, { caller }) {
    const presets = (await listBrandPresets(caller.merchantId)).map(publicBrandPreset);
    return { count: presets.length, presets };
  },
});
