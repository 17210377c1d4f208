// A scan's facts as the redirect records them, for tests that write scans of past days straight to the store.
import type { ScanFacts } from "../../functions/src/store/scans";

export function pastScanFacts(merchantId: string, code: { codeId: string; uniqueQRCodeID: string }, campaign: string | null, day: string, hour: number): ScanFacts {
  return {
    merchantId,
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    campaign,
    at: new Date(`${day}T${String(hour).padStart(2, "0")}:00:00Z`),
    day,
    hour,
    timeZone: "UTC",
    place: { country: "US", state: "Oregon", city: "Portland" },
    device: { device: "mobile", os: "iOS", browser: "Safari" },
    source: "redirect",
    retentionDays: 400,
  };
}

/**
 * An instance's shard of a code's day (`{instance}~{slot}~{codeId}~{day}`) holding one person's first scan
 * at 9:00, as the redirect would leave it: for tests and benches of the fold that need many shards fast.
 */
export function oneScanShard(codeId: string, day: string, instance: string, slot: number) {
  return {
    id: `${instance}~${slot}~${codeId}~${day}`,
    data: { codeId, day, k: "none", shard: true, timeZone: "UTC", expiresAt: new Date(Date.parse(day) + 400 * 86_400_000), n: 1, u: 1, h: { "9": 1 } },
  };
}

import type { IncomingHttpHeaders } from "node:http";
import { arrivalOf, type KnownCode } from "../../functions/src/scans/arrival";
import { consumeArrival } from "../../functions/src/scans/consume";
import type { ScanOutcome } from "../../functions/src/scans/record";
import { eventually } from "./poll";

/** A scan as the redirect would describe it, counted in this process by the consumer's own code (no Pub/Sub in between). */
export async function consumeInProcess(code: KnownCode & { uniqueQRCodeID: string }, request: { headers: IncomingHttpHeaders; address: string; at: Date; place?: { country: string; state: string; city: string }; method?: string }): Promise<ScanOutcome> {
  const { uniqueQRCodeID, ...known } = code;
  const arrival = await arrivalOf({ method: request.method ?? "GET", headers: request.headers, address: request.address, at: request.at, place: request.place ?? { country: "US", state: "Oregon", city: "Portland" }, uniqueQRCodeID, known });
  const { outcome } = await consumeArrival({ data: arrival.data, attributes: arrival.attributes });
  if (outcome === "dropped" || outcome === "left") throw new Error(`the consumer ${outcome === "left" ? "left" : "dropped"} the scan`);
  return outcome;
}

/** Analytics once the consumer has counted `recorded` scans of the code (people, repeats and machines): it counts them seconds after their answers. */
export function countedAnalytics<T extends { totalScans: number; repeatScans: number; botScans: { total: number } }>(read: () => Promise<T>, recorded: number): Promise<T> {
  return eventually(read, (a) => a.totalScans + a.repeatScans + a.botScans.total >= recorded, { what: `${recorded} scans counted by the consumer`, timeoutMs: 60_000 });
}
