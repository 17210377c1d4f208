// Brand presets of a workspace, for every surface: listed by the console's Settings and svc.brand.list_presets,
// saved and deleted in the console (people save presets; agents use them by name in a design).
import { AppError } from "../core/errors";
import { resolveDesign } from "../designs/design";
import type { DesignInput } from "../designs/fields";
import { BRAND_PRESETS_MAX, deleteBrandPreset, listBrandPresets, saveBrandPreset } from "../store/brandPresets";
import { publicBrandPreset, publicDesign } from "./model";

/** Every preset of the workspace (at most BRAND_PRESETS_MAX: no pages), by name. */
export async function brandPresetList(merchantId: string) {
  const presets = (await listBrandPresets(merchantId)).map(publicBrandPreset);
  return { count: presets.length, presets };
}

/** Saves a preset under `name`, its design resolved like a code's (contrast checked, logo re-encoded and stored); drawn when used. */
export async function brandPresetSave(who: { merchantId: string; uid: string }, name: string, input: Omit<DesignInput, "preset">) {
  const design = { ...(await resolveDesign(who.merchantId, input)), preset: null };
  if (!(await saveBrandPreset(who.merchantId, { name, design, updatedBy: who.uid }))) {
    throw new AppError("CONFLICT", `This workspace already has ${BRAND_PRESETS_MAX} brand presets`, { hint: "Delete one you no longer use." });
  }
  return { ok: true as const, preset: { name, design: publicDesign(design) } };
}

export async function brandPresetDelete(merchantId: string, name: string) {
  if (!(await deleteBrandPreset(merchantId, name))) throw new AppError("NOT_FOUND", `No brand preset named "${name}"`);
  return { ok: true as const };
}
