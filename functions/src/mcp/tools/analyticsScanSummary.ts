import { z } from "zod";
import { scanSummary } from "../../scans/analytics";
import { defineTool } from "../tool";
import { daysField } from "./qrGetAnalytics";

export const analyticsScanSummaryTool = defineTool({
  name: "svc.analytics.scan_summary",
  description: "Scan summary of the whole workspace: totalScans (people's scans), byDay (every local day of the window, with uniqueScanners), uniqueScanners, repeatScans, botScans by reason, countries, regions, cities, devices, operatingSystems, browsers, hourByWeekday (Monday first, local hours), topCodes, and a roll-up by campaign (null for codes without one). Days and hours are in the workspace's timeZone. days 1 to 365, default 30.",
  scope: "merchant:read",
  input: z.object({ days: daysField.optional() }).strict(),
  async handler({ days }, { caller }) {
    return scanSummary(caller.merchantId, days ?? 30);
  },
});
