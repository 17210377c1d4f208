// Writing a workspace's UTM templates (issue 38, item 4): the one domain function per action, called by
// REST (bulk/utmTemplateRoutes.ts) and MCP (svc.utm.set_template). A code's rules name a template; its
// parameters are copied onto the code's link when the rules are set, so changing or removing a template
// changes no code until its rules are set again (docs/campaign-rules.md, "UTM templates").
import { z } from "zod";
import { AppError } from "../core/errors";
import { parseOrThrow } from "../core/validation";
import { changeUtmTemplates, readUtmTemplates, type StoredUtmTemplate } from "../store/utmTemplates";
import { UTM_TEMPLATES_MAX, utmTemplateName, utmTemplateSchema, type UtmTemplate } from "./utm";

export const UtmTemplateOutputSchema = z
  .object({
    name: z.string(),
    source: z.string(),
    medium: z.string(),
    campaign: z.string().optional(),
    term: z.string().optional(),
    content: z.string().optional(),
  })
  .meta({ title: "UtmTemplate" });

export const UtmTemplateListSchema = z
  .object({ templates: z.array(UtmTemplateOutputSchema).describe(`The workspace's templates by name (at most ${UTM_TEMPLATES_MAX})`) })
  .meta({ title: "UtmTemplateList" });

const byName = (a: StoredUtmTemplate, b: StoredUtmTemplate) => a.name.localeCompare(b.name);

export async function listUtmTemplates(merchantId: string): Promise<{ templates: UtmTemplate[] }> {
  return { templates: (await readUtmTemplates(merchantId)).sort(byName) };
}

/** Creates the named template or replaces it whole; the 51st name is refused and nothing is written. */
export async function putUtmTemplate(merchantId: string, raw: unknown): Promise<{ template: UtmTemplate; created: boolean; templates: UtmTemplate[] }> {
  const template = parseOrThrow(utmTemplateSchema, raw, "UTM template");
  const { result: created, templates } = await changeUtmTemplates(merchantId, (current) => {
    const exists = current.some((t) => t.name === template.name);
    if (!exists && current.length >= UTM_TEMPLATES_MAX) {
      throw new AppError("CONFLICT", `This workspace has ${UTM_TEMPLATES_MAX} UTM templates, the most it may keep`, { hint: "Remove one it no longer uses, or replace one by giving its name." });
    }
    return { templates: [...current.filter((t) => t.name !== template.name), template], result: !exists };
  });
  return { template, created, templates: templates.sort(byName) };
}

/** Removes the named template; NOT_FOUND when there is none (nothing is written then). */
export async function removeUtmTemplate(merchantId: string, name: string): Promise<{ name: string; deleted: true; templates: UtmTemplate[] }> {
  const checked = parseOrThrow(utmTemplateName, name, "UTM template name");
  const { templates } = await changeUtmTemplates(merchantId, (current) => {
    if (!current.some((t) => t.name === checked)) {
      throw new AppError("NOT_FOUND", `This workspace has no UTM template named ${JSON.stringify(checked)}`, {
        hint: current.length ? `Its templates: ${current.map((t) => t.name).sort().join(", ")}.` : "This workspace has no UTM templates.",
      });
    }
    return { templates: current.filter((t) => t.name !== checked), result: undefined };
  });
  return { name: checked, deleted: true, templates: templates.sort(byName) };
}
