import { defineTool } from "../tool";
import { Gs1ItemInputSchema, Gs1ItemSavedSchema } from "../../gs1/model";
import { putItem } from "../../gs1/service";

export const gs1ItemSetTool = defineTool({
  name: "svc.gs1.set_item",
  title: "Register a GS1 item and its links",
  description:
    "Registers a GS1 key (a GTIN by default; also GLN, SSCC and the other primary keys) with optional qualifiers (CPV, lot, serial) and its links (GS1 link types such as gs1:pip, gs1:recipeInfo, gs1:promotion, gs1:sustainabilityInfo, gs1:recallStatus; exactly one default), or replaces the links of an item the workspace already has. " +
    "The returned uri is its GS1 Digital Link URI, answered at once by the service's GS1-Conformant resolver. Check digits are checked; a key another workspace registered is refused (CONFLICT). " +
    "Instead of href, a link may give from: {menuCodeId} (a QR code of this workspace leading to its menu; link type gs1:menuInfo) or {listingId} (its approved phone-book listing; gs1:support).",
  scope: "qr:write",
  // It replaces what the resolver serves for the key, and the same item twice is one change.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: Gs1ItemInputSchema,
  output: Gs1ItemSavedSchema,
  async handler(args, { caller }) {
    const { item, created } = await putItem(caller.merchantId, args);
    return { ...item, created };
  },
  summarize: (r) => `${r.created ? "Registered" : "Updated"} ${r.uri} with ${r.links.length} link(s).`,
});
