import { z } from "zod";
import { scanSummary } from "../../scans/analytics";
import { campaignRollUpShape, codeRollUpShape } from "../../scans/analyticsSchemas";
import { analyticsFiguresShape, daysField, fieldSelection, fitAnalytics, pickFields, SELECTABLE_FIGURES, selectableShape } from "../outputs";
import { defineTool, READ_ONLY } from "../tool";
import { cutSentence, figuresSentence } from "./qrGetAnalytics";

const SELECTABLE = [...SELECTABLE_FIGURES, "byCampaign", "topCodes"] as const;

export const analyticsScanSummaryTool = defineTool({
  name: "svc.analytics.scan_summary",
  title: "Summarise the workspace's scans",
  description: "Workspace scan analytics shaped as in svc.qr.get_analytics, plus top codes and a roll-up by campaign (null: no campaign).",
  scope: "merchant:read",
  annotations: READ_ONLY,
  outputDescribedBy: "svc.qr.get_analytics",
  input: z.object({ days: daysField.optional(), fields: fieldSelection(SELECTABLE) }).strict(),
  output: z.object({
    ...selectableShape(analyticsFiguresShape, SELECTABLE_FIGURES),
    byCampaign: z.array(z.object(campaignRollUpShape)).optional(),
    topCodes: z.array(z.object(codeRollUpShape)).optional(),
  }),
  async handler({ days, fields: selected }, { caller }) {
    return fitAnalytics(pickFields(await scanSummary(caller.merchantId, days ?? 30), SELECTABLE, selected));
  },
  summarize: (r) => `${figuresSentence({ ...r, who: "Workspace" })}${r.topCodes ? `; top code ${r.topCodes[0]?.codeId ?? "none"}` : ""}.${cutSentence(r)}`,
});
