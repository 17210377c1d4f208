import { z } from "zod";
import { fields } from "../../codes/fields";
import { codeAnalytics, SCAN_LIST_LIMIT } from "../../scans/analytics";
import { defineTool } from "../tool";

export const daysField = z.number().int().min(1).max(365).describe("Window in days ending today (the workspace's time zone), 1 to 365");

export const qrGetAnalyticsTool = defineTool({
  name: "svc.qr.get_analytics",
  description: `Scan analytics of one code (codeId or uniqueQRCodeID): totalScans (people's scans), byDay (every local day of the window, zeros included, with uniqueScanners), uniqueScanners, repeatScans and botScans (counted apart, by reason), countries, regions, devices, operatingSystems, browsers, hourByWeekday (Monday first, local hours), and the scans with date, city/state, country and device, newest first (at most ${SCAN_LIST_LIMIT}). Days and hours are in the workspace's timeZone. Counts dynamic-link scans and scans recorded by the service's app. days 1 to 365, default 30.`,
  scope: "merchant:read",
  input: z
    .object({ codeId: fields.codeId.optional(), uniqueQRCodeID: fields.uniqueQRCodeID.optional(), days: daysField.optional() })
    .strict(),
  async handler({ codeId, uniqueQRCodeID, days }, { caller }) {
    return codeAnalytics(caller.merchantId, { codeId, uniqueQRCodeID }, days ?? 30);
  },
});
