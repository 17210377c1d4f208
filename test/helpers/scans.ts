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
 * An instance's shard of a code's day (`{codeId}~{day}~{instance}~{slot}`) holding one person's first scan
 * at 9:00, as the redirect would leave it: for tests and benches of the fold that need many shards fast.
 */
export function oneScanShard(codeId: string, day: string, instance: string, slot: number) {
  return {
    id: `${codeId}~${day}~${instance}~${slot}`,
    data: { codeId, day, k: "none", shard: true, timeZone: "UTC", expiresAt: new Date(Date.parse(day) + 400 * 86_400_000), n: 1, u: 1, h: { "9": 1 } },
  };
}
