import { z } from "zod";
import { fields } from "../../codes/fields";
import { codeAnalytics, SCAN_LIST_LIMIT } from "../../scans/analytics";
import { analyticsFiguresShape, consoleUrl, consoleUrlField, count } from "../outputs";
import { defineTool, READ_ONLY } from "../tool";
import { UI_RESOURCES } from "../ui/resources";

export const daysField = z.number().int().min(1).max(365).describe("Window in days ending today (the workspace's time zone), 1 to 365");

/** Busiest day of a window, for summaries. */
export function busiestDay(byDay: readonly { date: string; scans: number }[]): string {
  const best = byDay.reduce<{ date: string; scans: number } | undefined>((a, d) => (d.scans > (a?.scans ?? 0) ? d : a), undefined);
  return best ? `; busiest day ${best.date} (${count(best.scans, "scan")})` : "";
}

export const qrGetAnalyticsTool = defineTool({
  name: "svc.qr.get_analytics",
  title: "Get a code's scan analytics",
  description: `Scan analytics of one code (codeId or uniqueQRCodeID): totalScans (people's scans), byDay (every local day of the window, zeros included, with uniqueScanners), uniqueScanners, repeatScans and botScans (counted apart, by reason), countries, regions, devices, operatingSystems, browsers, hourByWeekday (Monday first, local hours), and the scans with date, city/state, country and device, newest first (at most ${SCAN_LIST_LIMIT}). Days and hours are in the workspace's timeZone. Counts dynamic-link scans and scans recorded by the service's app. days 1 to 365, default 30.`,
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z
    .object({ codeId: fields.codeId.optional(), uniqueQRCodeID: fields.uniqueQRCodeID.optional(), days: daysField.optional() })
    .strict(),
  output: z.object({
    codeId: z.string(),
    uniqueQRCodeID: z.string(),
    dynamic: z.boolean(),
    ...analyticsFiguresShape,
    scans: z.array(
      z.object({
        at: z.string(),
        date: z.string(),
        city: z.string(),
        state: z.string(),
        source: z.string(),
        country: z.string(),
        device: z.string(),
        os: z.string(),
        browser: z.string(),
        unique: z.boolean(),
      }),
    ),
    scansListed: z.number().int(),
    scansTruncated: z.boolean(),
    consoleUrl: consoleUrlField,
  }),
  ui: UI_RESOURCES.scans.uri,
  async handler({ codeId, uniqueQRCodeID, days }, { caller }) {
    const analytics = await codeAnalytics(caller.merchantId, { codeId, uniqueQRCodeID }, days ?? 30);
    return { ...analytics, consoleUrl: consoleUrl(`code/${analytics.codeId}?days=${analytics.days}`) };
  },
  summarize: (r) =>
    `Code ${r.codeId}: ${count(r.totalScans, "scan")} by ${count(r.uniqueScanners, "unique scanner")} from ${r.from} to ${r.to} (${r.timeZone})${busiestDay(r.byDay)}; ${count(r.botScans.total, "bot scan")} counted apart.`,
});
