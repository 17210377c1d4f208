// Scans of a GS1 item (its resolutions, gs1/scans.ts): the same figures as a code's, from the item's own
// day rollups, plus people's scans per link type and the machines' fetches of its linkset. No HTTP here.
import { z } from "zod";
import { codeRollupFigures, ranked, timeZoneOf } from "../scans/analytics";
import { analyticsFiguresShape, rankedOutput } from "../scans/analyticsSchemas";
import { getItem } from "./service";
import { gs1CodeIdOf } from "../store/gs1Items";
import { LINKSET_FETCH_REASON } from "./scans";
import { consumerFreshness, freshnessFields } from "../scans/freshness";

export const Gs1ItemAnalyticsSchema = z
  .object({
    itemId: z.string(),
    uri: z.string().describe("The item's GS1 Digital Link URI on the resolver"),
    ...analyticsFiguresShape,
    byLinkType: rankedOutput("linkType").describe("People's scans by the link type they were sent to (gs1:pip, ...), largest first"),
    linksetFetches: z.number().int().describe("Fetches of the item's linkset (machines; also in botScans.byReason.linkset), never counted as people"),
  })
  .strict()
  .meta({ title: "Gs1ItemAnalytics" });
export type Gs1ItemAnalytics = z.infer<typeof Gs1ItemAnalyticsSchema>;

/** The item's scans over the last `days` local days (NOT_FOUND for an item of another workspace). */
export async function itemAnalytics(merchantId: string, itemId: string, days: number, now = new Date()): Promise<Gs1ItemAnalytics> {
  const freshness = consumerFreshness(now.getTime());
  const [item, timeZone] = await Promise.all([getItem(merchantId, itemId), timeZoneOf(merchantId)]);
  const { window, figures, total, more } = await codeRollupFigures(merchantId, gs1CodeIdOf(itemId), timeZone, days, now, 2);
  return {
    itemId: item.itemId,
    uri: item.uri,
    days,
    from: window[0],
    to: window[window.length - 1],
    ...figures,
    ...(await freshnessFields(more, freshness)),
    byLinkType: ranked(total.lt, "linkType"),
    linksetFetches: total.b?.[LINKSET_FETCH_REASON] ?? 0,
  };
}
