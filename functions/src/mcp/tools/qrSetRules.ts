import { z } from "zod";
import { fields } from "../../codes/fields";
import { codeRulesSchema, RULES_MAX } from "../../campaigns/rules";
import { campaignInputOf, setCodeCampaign } from "../../campaigns/service";
import { defineTool } from "../tool";

// The settings' own schema (rules.ts), beside the code's id: the rules, schedule, fallback and UTM template.
const input = z
  .object({
    codeId: fields.codeId.optional(),
    uniqueQRCodeID: fields.uniqueQRCodeID.optional(),
    settings: codeRulesSchema.describe(
      `The code's campaign settings, replacing the current ones whole: rules (at most ${RULES_MAX}, the first whose conditions all hold wins; none: the destination), startsAt, endsAt, humanScanCap (exactly N people's scans, then the fallback; raise it to re-arm), fallbackUrl, utmTemplate, password (write-only, for password actions; kept when omitted), endedPage ({heading, message} under the workspace name on the ended page). {rules: []} alone removes them. scanCount conditions: at most 4 distinct thresholds (min, max+1) per code.`,
    ),
  })
  .strict();

const output = z
  .object({
    codeId: z.string(),
    uniqueQRCodeID: z.string(),
    campaignRules: z.record(z.string(), z.unknown()).nullable().describe("The settings as stored (times of day as HH:MM), or null when the code has none"),
    updatedAt: z.string(),
  })
  .strict();

export const qrSetRulesTool = defineTool({
  name: "svc.qr.set_rules",
  title: "Set a code's campaign rules",
  description:
    "Replaces a dynamic code's campaign rules (device, OS, browser, country, region, language, time, weekdays, dates, query, visitor conditions; redirect, A/B split, ended and fallback actions), its schedule and fallback URL. The very next scan follows them.",
  scope: "qr:write",
  // Like svc.qr.update: it overwrites where live scans go, and the same settings twice are one change.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input,
  output,
  async handler({ codeId, uniqueQRCodeID, settings }, { caller }) {
    const set = await setCodeCampaign(caller.merchantId, { codeId, uniqueQRCodeID }, campaignInputOf(settings));
    return { ...set, campaignRules: set.campaignRules as Record<string, unknown> | null };
  },
  summarize: (r) => (r.campaignRules ? `Set ${(r.campaignRules.rules as unknown[]).length} campaign rule(s) on ${r.uniqueQRCodeID}.` : `Removed the campaign rules of ${r.uniqueQRCodeID}.`),
});
