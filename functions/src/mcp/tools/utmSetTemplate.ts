import { z } from "zod";
import { AppError } from "../../core/errors";
import { utmTemplateName, utmTemplateSchema } from "../../campaigns/utm";
import { listUtmTemplates, putUtmTemplate, removeUtmTemplate, UtmTemplateOutputSchema } from "../../campaigns/utmTemplates";
import { defineTool } from "../tool";

const input = z
  .object({
    template: utmTemplateSchema.optional().describe("Create the named template, or replace the one of that name whole"),
    remove: utmTemplateName.optional().describe("Remove the template of this name"),
  })
  .strict();

const output = z
  .object({
    templates: z.array(UtmTemplateOutputSchema).describe("The workspace's templates by name, after the change"),
    created: z.boolean().optional(),
    deleted: z.string().optional(),
  })
  .strict();

export const utmSetTemplateTool = defineTool({
  name: "svc.utm.set_template",
  title: "Set or remove a UTM template",
  description:
    "Creates or replaces a named UTM template of the workspace (source, medium; campaign, term, content optional), or removes one, and returns all of them; with neither argument it only lists them. " +
    "svc.qr.set_rules names a template (settings.utmTemplate) to append its utm_* parameters to every URL a code sends people to; a code keeps the parameters it was set with until its rules are set again.",
  scope: "qr:write",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler({ template, remove }, { caller }) {
    if (template && remove) throw new AppError("VALIDATION_FAILED", "Give template or remove, not both", { details: { field: "remove" } });
    if (template) {
      const saved = await putUtmTemplate(caller.merchantId, template);
      return { templates: saved.templates, created: saved.created };
    }
    if (remove) return { templates: (await removeUtmTemplate(caller.merchantId, remove)).templates, deleted: remove };
    return listUtmTemplates(caller.merchantId);
  },
  summarize: (r) => `${r.created === true ? "Template created; " : r.created === false ? "Template replaced; " : r.deleted ? `Removed ${r.deleted}; ` : ""}${r.templates.length} UTM template(s): ${r.templates.map((t) => t.name).join(", ") || "none"}.`,
});
