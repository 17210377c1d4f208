// Console routes of a dynamic code's campaign rules (issue 38, item 5) and the workspace's UTM templates:
// read the settings as written, set them through setCodeCampaign (the one function REST and MCP call
// too), preview where a sample scan would go under unsaved settings (campaigns/preview.ts: the evaluator
// the redirect uses, nothing recorded), and list, create or replace, and remove UTM templates
// (campaigns/utmTemplates.ts).
import { z } from "zod";
import { ids } from "../core/ids";
import { codeRulesSchema, type CodeRulesInput } from "../campaigns/rules";
import { campaignInputOf, setCodeCampaign } from "../campaigns/service";
import { CampaignPreviewSchema, PreviewScanSchema, previewCampaign, readCodeCampaign } from "../campaigns/preview";
import { utmTemplateName, utmTemplateSchema } from "../campaigns/utm";
import { listUtmTemplates, putUtmTemplate, removeUtmTemplate, UtmTemplateListSchema, UtmTemplateOutputSchema } from "../campaigns/utmTemplates";
import { consoleRoute, routeTable } from "./route";

const member = { credential: "member" } as const;
const CodeParams = z.object({ codeId: ids.codeId }).strict();
const TemplateParams = z.object({ name: utmTemplateName }).strict();

/** Settings as written (times HH:MM): typed for the browser as what it sends back, checked against the rules' schema. */
const WrittenRules = z.custom<CodeRulesInput>((value) => codeRulesSchema.safeParse(value).success, "campaign settings as written");

const CodeCampaignSchema = z.strictObject({ codeId: z.string(), uniqueQRCodeID: z.string(), campaignRules: WrittenRules.nullable(), updatedAt: z.string() });

const CampaignEditorSchema = z.strictObject({
  codeId: z.string(),
  uniqueQRCodeID: z.string(),
  dynamic: z.boolean(),
  destinationUrl: z.string(),
  campaignRules: WrittenRules.nullable(),
  hasPassword: z.boolean(),
  timeZone: z.string(),
  names: z.strictObject({ device: z.array(z.string()), os: z.array(z.string()), browser: z.array(z.string()) }),
});

const PreviewBody = z.strictObject({ settings: codeRulesSchema, scan: PreviewScanSchema });

export const campaignConsoleRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/codes/:codeId/campaign",
    summary: "A code's campaign rules, schedule, cap and fallback as written",
    params: CodeParams,
    response: CampaignEditorSchema,
    handle: ({ caller, params }) => readCodeCampaign(caller.merchantId, { codeId: params.codeId }),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/codes/:codeId/campaign",
    summary: "Replace a dynamic code's campaign rules, schedule, cap and fallback",
    limit: "consoleWrites",
    params: CodeParams,
    body: codeRulesSchema,
    response: CodeCampaignSchema,
    handle: ({ caller, params, body }) => setCodeCampaign(caller.merchantId, { codeId: params.codeId }, campaignInputOf(body)),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/codes/:codeId/campaign/preview",
    summary: "Where a sample scan would go under unsaved campaign settings (nothing recorded)",
    limit: "consoleReads",
    params: CodeParams,
    body: PreviewBody,
    response: CampaignPreviewSchema,
    handle: ({ caller, params, body }) => previewCampaign(caller.merchantId, { codeId: params.codeId }, campaignInputOf(body.settings), body.scan),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/utm-templates",
    summary: "The workspace's UTM templates",
    response: UtmTemplateListSchema,
    handle: ({ caller }) => listUtmTemplates(caller.merchantId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/utm-templates",
    summary: "Create or replace a UTM template by name",
    limit: "consoleWrites",
    body: utmTemplateSchema,
    response: UtmTemplateListSchema.extend({ template: UtmTemplateOutputSchema, created: z.boolean() }),
    async handle({ caller, body, res }) {
      const saved = await putUtmTemplate(caller.merchantId, body);
      if (saved.created) res.status(201);
      return saved;
    },
  }),
  consoleRoute({
    ...member,
    method: "DELETE",
    path: "/api/console/utm-templates/:name",
    summary: "Remove a UTM template",
    limit: "consoleWrites",
    params: TemplateParams,
    response: UtmTemplateListSchema.extend({ name: z.string(), deleted: z.literal(true) }),
    handle: ({ caller, params }) => removeUtmTemplate(caller.merchantId, params.name),
  }),
);
