import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool";
import { itemAnalytics } from "../../gs1/analytics";
import { Gs1ItemParams } from "../../gs1/model";
import { analyticsFiguresShape, daysField, fieldSelection, fitAnalytics, pickFields, SELECTABLE_FIGURES, selectableShape } from "../outputs";
import { cutSentence, figuresSentence } from "./qrGetAnalytics";

const SELECTABLE = [...SELECTABLE_FIGURES, "byLinkType", "linksetFetches"] as const;

export const gs1ItemAnalyticsTool = defineTool({
  name: "svc.gs1.get_analytics",
  title: "Get a GS1 item's scan analytics",
  description:
    "Scans of one GS1 item through the resolver, counted as a code's scans are (people, unique scanners, repeats, machines by reason, place, device, local hour), " +
    "plus people by the link type they were sent to (byLinkType) and machines' fetches of the linkset (linksetFetches), never counted as people.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z
    .object({
      itemId: Gs1ItemParams.shape.itemId.describe("The item (svc.gs1.list_items)"),
      days: daysField.optional(),
      fields: fieldSelection(SELECTABLE),
    })
    .strict(),
  output: z.object({
    itemId: z.string(),
    uri: z.string(),
    ...selectableShape(analyticsFiguresShape, SELECTABLE_FIGURES),
    byLinkType: z.array(z.object({ linkType: z.string(), scans: z.number().int() })).optional(),
    linksetFetches: z.number().int().optional(),
  }),
  async handler({ itemId, days, fields: selected }, { caller }) {
    return fitAnalytics(pickFields(await itemAnalytics(caller.merchantId, itemId, days ?? 30), SELECTABLE, selected));
  },
  summarize: (r) =>
    `${figuresSentence({ ...r, who: `GS1 item ${r.uri}` })}${r.byLinkType?.length ? `; most sent to ${r.byLinkType[0].linkType}` : ""}${r.linksetFetches ? `; ${(r.linksetFetches === 1 ? "1 linkset fetch" : `${r.linksetFetches} linkset fetches`)} counted apart` : ""}.${cutSentence(r)}`,
});
