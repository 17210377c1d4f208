import { z } from "zod";
import { scanSummary } from "../../scans/analytics";
import { defineTool } from "../tool";
import { daysField } from "./qrGetAnalytics";

export const analyticsScanSummaryTool = defineTool({
  name: "svc.analytics.scan_summary",
  description: "Scan summary of the whole workspace: totalScans, byDay (every day of the window) and a roll-up by campaign (null for codes without one). days 1 to 365, default 30.",
  scope: "merchant:read",
  input: z.object({ days: daysField.optional() }).strict(),
  async handler({ days }, { caller }) {
    return scanSummary(caller.merchantId, days ?? 30);
  },
});
