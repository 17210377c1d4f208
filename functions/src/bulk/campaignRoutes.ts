// REST: set a dynamic code's campaign rules (served by the bulk function, under /api/codes) with a key
// holding qr:write, through the same domain function as the MCP tool svc.qr.set_rules.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { ids } from "../core/ids";
import { BULK_SCOPE } from "./app";
import { codeRulesSchema } from "../campaigns/rules";
import { campaignInputOf, setCodeCampaign } from "../campaigns/service";
import { UTM_TEMPLATES_MAX, utmTemplateName, utmTemplateSchema } from "../campaigns/utm";
import { listUtmTemplates, putUtmTemplate, removeUtmTemplate, UtmTemplateListSchema, UtmTemplateOutputSchema } from "../campaigns/utmTemplates";

const CodeParams = z.object({ codeId: ids.codeId }).strict();

export const CodeCampaignSchema = z
  .object({
    codeId: z.string(),
    uniqueQRCodeID: z.string(),
    campaignRules: z.record(z.string(), z.unknown()).nullable().describe("The settings as stored (times of day as HH:MM), or null when the code has none"),
    updatedAt: z.string().describe("ISO 8601"),
  })
  .meta({ title: "CodeCampaign" });

const EXAMPLE_SETTINGS = {
  rules: [
    { name: "French speakers", when: { language: ["fr"] }, then: { type: "redirect" as const, url: "https://example.com/fr" } },
    { when: {}, then: { type: "split" as const, variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 50 }] } },
  ],
  endsAt: "2026-12-31T23:00:00Z",
  fallbackUrl: "https://example.com/thanks",
};

const TemplateParams = z.object({ name: utmTemplateName }).strict();
const EXAMPLE_TEMPLATE = { name: "spring-poster", source: "poster", medium: "print", campaign: "spring-2027" };
const UTM_TEMPLATES_MAX_TEXT = String(UTM_TEMPLATES_MAX);

export const campaignRoutes = [
  endpoint({
    method: "POST",
    path: "/api/codes/:codeId/rules",
    summary: "Replace a dynamic code's campaign rules, schedule and fallback",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: CodeParams,
    body: codeRulesSchema,
    response: CodeCampaignSchema,
    doc: {
      operationId: "setCodeRules",
      description:
        "Replaces the whole campaign settings of a dynamic code in the key's workspace (docs/campaign-rules.md): ordered rules (the first whose conditions all hold wins), startsAt, endsAt, humanScanCap (exactly this many people's scans reach the code; raise it to re-arm), fallbackUrl, utmTemplate and password (write-only, stored as a salted hash, asked for by password actions; omitted, the code keeps the one it has) and endedPage (the heading and message of the ended page, under the workspace name). The very next scan follows them. `{\"rules\": []}` alone removes them. scanCount conditions may use at most 4 distinct thresholds (each min above 0 and each max + 1) per code.",
      errors: ["NOT_FOUND", "FORBIDDEN", "DESTINATION_BLOCKED"],
      example: {
        params: { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne" },
        body: EXAMPLE_SETTINGS,
        response: {
          codeId: "Hk2Qm8ZpT1xVb4sLr9Ne",
          uniqueQRCodeID: "aB3dE5fG7hJ9",
          campaignRules: EXAMPLE_SETTINGS,
          updatedAt: "2026-11-27T09:00:00.000Z",
        },
      },
    },
    handle: ({ caller, params, body }) => setCodeCampaign(caller.merchantId, { codeId: params.codeId }, campaignInputOf(body)),
  }),
  endpoint({
    method: "GET",
    path: "/api/utm-templates",
    summary: "The workspace's named UTM templates",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    response: UtmTemplateListSchema,
    doc: {
      operationId: "listUtmTemplates",
      description: "Every template by name. A code's campaign settings name one (`utmTemplate`) to append its utm_* parameters to every URL the code sends people to.",
      example: { response: { templates: [EXAMPLE_TEMPLATE] } },
    },
    handle: ({ caller }) => listUtmTemplates(caller.merchantId),
  }),
  endpoint({
    method: "POST",
    path: "/api/utm-templates",
    summary: "Create or replace a named UTM template",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    body: utmTemplateSchema,
    response: UtmTemplateListSchema.extend({ template: UtmTemplateOutputSchema, created: z.boolean() }).meta({ title: "UtmTemplateSaved" }),
    doc: {
      operationId: "putUtmTemplate",
      description:
        `Creates the named template (201) or replaces the one of that name whole (200): source and medium required, campaign, term and content optional, values of at most 100 characters; at most ${UTM_TEMPLATES_MAX_TEXT} per workspace (CONFLICT past it). ` +
        "A code's rules copy the template's parameters when they are set: codes already naming it keep the parameters they were set with until their rules are set again (docs/campaign-rules.md).",
      success: [200, 201],
      errors: ["CONFLICT"],
      example: { body: EXAMPLE_TEMPLATE },
    },
    async handle({ res, caller, body }) {
      const saved = await putUtmTemplate(caller.merchantId, body);
      if (saved.created) res.status(201);
      return saved;
    },
  }),
  endpoint({
    method: "DELETE",
    path: "/api/utm-templates/:name",
    summary: "Remove a named UTM template",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: TemplateParams,
    response: UtmTemplateListSchema.extend({ name: z.string(), deleted: z.literal(true) }).meta({ title: "UtmTemplateDeleted" }),
    doc: {
      operationId: "deleteUtmTemplate",
      description: "Removes the template; codes whose rules named it keep the parameters they were set with, and setting their rules again with its name is refused.",
      errors: ["NOT_FOUND"],
      example: { params: { name: EXAMPLE_TEMPLATE.name } },
    },
    handle: ({ caller, params }) => removeUtmTemplate(caller.merchantId, params.name),
  }),
];
