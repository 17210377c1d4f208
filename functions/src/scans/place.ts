// Where a scan happened: from the client address through the bundled geolocation database, or from
// platform geo headers where the operator has declared them trusted. Never from what the client claims.
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";
import { clientAddressOf } from "../http/clientAddress";
import { placeFromGeoHeaders, type ScanPlace } from "./classify";
import { placeOfAddress } from "./geo";

export async function placeOfRequest(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string } }): Promise<ScanPlace> {
  const fromHeaders = getConfig().trustGeoHeaders ? placeFromGeoHeaders(req.headers) : undefined;
  return fromHeaders ?? placeOfAddress(clientAddressOf(req));
}
