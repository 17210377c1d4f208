// REST: set a dynamic code's campaign rules (served by the bulk function, under /api/codes) with a key
// holding qr:write, through the same domain function as the MCP tool svc.qr.set_rules.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { ids } from "../core/ids";
import { BULK_SCOPE } from "./app";
import { codeRulesSchema } from "../campaigns/rules";
import { campaignInputOf, setCodeCampaign } from "../campaigns/service";

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
        "Replaces the whole campaign settings of a dynamic code in the key's workspace (docs/campaign-rules.md): ordered rules (the first whose conditions all hold wins), startsAt, endsAt, humanScanCap (exactly this many people's scans reach the code; raise it to re-arm), fallbackUrl, utmTemplate and password (write-only, stored as a salted hash, asked for by password actions; omitted, the code keeps the one it has). The very next scan follows them. `{\"rules\": []}` alone removes them. scanCount conditions are refused.",
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
];
