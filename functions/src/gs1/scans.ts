// Resolutions are scans (issue 37): a redirect from the resolver is counted as a scan of the item, like a
// scan of /qr/<id> (person or machine, unique, repeat, place, device, local time), split by the link type
// it was sent to; a fetch of the linkset is a machine's, counted apart from people (bot reason "linkset").
// The item counts as a code with id gs1_<itemId> in its owner's rollups and scan events (docs/gs1-resolver.md).
import type { IncomingMessage } from "node:http";
import { clientAddressOf } from "../core/clientAddress";
import { preloadGeoDatabase } from "../scans/geo";
import { placeOfRequest } from "../scans/place";
import { recordScanSafely, type ScanOutcome } from "../scans/record";
import { workspaceTimeZone } from "../scans/timeZones";
import { gs1CodeIdOf } from "../store/gs1Items";
import type { Resolution } from "./resolver";

preloadGeoDatabase(); // as the redirect does: the first resolution must not wait for it

/** Bot reason of a linkset answer: a document for machines, whoever asked. */
export const LINKSET_FETCH_REASON = "linkset";


/** Records a resolution before it is answered; never rejects (a failed or late write is logged, the answer goes out). */
export async function recordResolution(req: IncomingMessage, resolution: Resolution, at = new Date()): Promise<ScanOutcome | undefined> {
  const { item } = resolution;
  const [timeZone, place] = await Promise.all([workspaceTimeZone(item.merchantId, at.getTime()), placeOfRequest(req)]);
  return recordScanSafely({ merchantId: item.merchantId, codeId: gs1CodeIdOf(item.itemId), campaign: null, timeZone }, item.itemId, {
    method: req.method ?? "GET",
    headers: req.headers,
    address: clientAddressOf(req),
    place,
    at,
    source: "gs1",
    servedFrom: "live",
    ...("linkset" in resolution ? { machineReason: LINKSET_FETCH_REASON } : { linkType: resolution.linkType }),
  });
}
