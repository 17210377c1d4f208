import { z } from "zod";
import { scanSummary } from "../../scans/analytics";
import { analyticsFiguresShape, count } from "../outputs";
import { defineTool, READ_ONLY } from "../tool";
import { busiestDay, daysField } from "./qrGetAnalytics";

const rollUp = { scans: z.number().int(), uniqueScanners: z.number().int() };

export const analyticsScanSummaryTool = defineTool({
  name: "svc.analytics.scan_summary",
  title: "Summarise the workspace's scans",
  description: "Scan summary of the whole workspace: totalScans (people's scans), byDay (every local day of the window, with uniqueScanners), uniqueScanners, repeatScans, botScans by reason, countries, regions, cities, devices, operatingSystems, browsers, hourByWeekday (Monday first, local hours), topCodes, and a roll-up by campaign (null for codes without one). Days and hours are in the workspace's timeZone. days 1 to 365, default 30.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z.object({ days: daysField.optional() }).strict(),
  output: z.object({
    ...analyticsFiguresShape,
    byCampaign: z.array(z.object({ campaign: z.string().nullable(), ...rollUp })),
    topCodes: z.array(z.object({ codeId: z.string(), ...rollUp })),
  }),
  async handler({ days }, { caller }) {
    return scanSummary(caller.merchantId, days ?? 30);
  },
  summarize: (r) =>
    `Workspace: ${count(r.totalScans, "scan")} by ${count(r.uniqueScanners, "unique scanner")} from ${r.from} to ${r.to} (${r.timeZone})${busiestDay(r.byDay)}; top code ${r.topCodes[0]?.codeId ?? "none"}.`,
});
