// Where a scan happened: from the client address through the bundled geolocation database, or from
// platform geo headers where the operator has declared them trusted. Never from what the client claims.
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";
import { clientOf } from "../core/clientAddress";
import { placeFromGeoHeaders, type ScanPlace } from "./classify";
import { placeOfAddress } from "./geo";

export async function placeOfRequest(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string } }): Promise<ScanPlace> {
  const client = clientOf(req);
  // Geo headers are the platform's only on requests that came through the declared proxy that sets them.
  const fromHeaders = getConfig().trustGeoHeaders && client.throughGeoHeaderProxy ? placeFromGeoHeaders(req.headers) : undefined;
  return fromHeaders ?? placeOfAddress(client.address);
}
