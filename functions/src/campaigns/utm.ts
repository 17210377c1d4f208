// Named UTM templates of a workspace (issue 38, item 4): utm_source, utm_medium and optionally
// utm_campaign, utm_term and utm_content, appended to a code's destinations. A parameter the URL already
// has (in any letter case) is kept as it is and not added again; every other part of the URL, its other
// parameters, their order and encoding and the fragment, is left untouched.
import { z } from "zod";
import { text } from "../core/validation";

export const UTM_FIELDS = ["source", "medium", "campaign", "term", "content"] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export const UTM_TEMPLATES_MAX = 50;
export const UTM_VALUE_MAX = 100;

export const utmTemplateName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "a UTM template name is 1 to 40 of a-z, 0-9, _ and -, starting with a letter or digit");

const value = text(UTM_VALUE_MAX);

export const utmTemplateSchema = z.strictObject(
  {
    name: utmTemplateName,
    source: value,
    medium: value,
    campaign: value.optional(),
    term: value.optional(),
    content: value.optional(),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown UTM field(s) ${issue.keys.join(", ")}; known: name, ${UTM_FIELDS.join(", ")}` : undefined) },
);

export const utmTemplatesSchema = z
  .array(utmTemplateSchema)
  .max(UTM_TEMPLATES_MAX, `at most ${UTM_TEMPLATES_MAX} UTM templates`)
  .refine((ts) => new Set(ts.map((t) => t.name)).size === ts.length, "each UTM template name at most once");

export type UtmTemplate = z.output<typeof utmTemplateSchema>;

/** `url` with the template's utm_* parameters that it does not already carry appended, in the template's order. */
export function applyUtm(url: string, template: Omit<UtmTemplate, "name">): string {
  const target = new URL(url);
  const present = new Set<string>();
  for (const key of new URLSearchParams(target.search).keys()) present.add(key.toLowerCase());
  const added = new URLSearchParams();
  for (const field of UTM_FIELDS) {
    const v = template[field];
    if (v !== undefined && !present.has(`utm_${field}`)) added.append(`utm_${field}`, v);
  }
  if (!added.size) return url;
  // Appended to the query as written: the URL's own parameters keep their encoding (a `+`, a bare `flag`).
  const query = target.search.slice(1);
  target.search = query ? `${query}&${added}` : `${added}`;
  return target.href;
}
