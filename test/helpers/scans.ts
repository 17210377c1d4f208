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
