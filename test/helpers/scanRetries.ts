// Shared by the scan-retries files (test/service/scan-retries*.test.ts): redirect instances behind the
// loopback Firestore proxy (test/helpers/firestoreProxy.ts), scans sent to them as a person's phone sends
// them, and a code's day as its rollup documents add up.
import assert from "node:assert/strict";
import { createCode } from "../../functions/src/codes/service";
import { setCodeCampaign } from "../../functions/src/campaigns/service";
import { foldCounts, readRollupDocs } from "../../functions/src/store/rollups";
import { localMoment } from "../../functions/src/scans/localTime";
import type { RedirectInstance } from "./redirectInstances";

export const PHONE = (i: number) => `Mozilla/5.0 (iPhone; CPU iPhone OS 17_${i % 7} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${i % 5} Mobile/15E148 Safari/604.1`;
export const DESTINATION = "https://example.com/offer";
export const FALLBACK = "https://example.com/sold-out";

export interface Answer {
  status: number;
  location: string | null;
  counted: string | null;
  retryAfter: string | null;
}

export async function scan(instance: RedirectInstance, id: string, userAgent: string, address: string): Promise<Answer> {
  // X-Test-Scan-Counted: a capped code's answers carry X-Scan-Counted only where a test asks (redirect/app.ts countedFor).
  const res = await fetch(`${instance.origin}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": userAgent, "X-Forwarded-For": address, "X-Test-Scan-Counted": "1" } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), counted: res.headers.get("x-scan-counted"), retryAfter: res.headers.get("retry-after") };
}

/** A code's day as its shards and folded document add up (read past the proxy). */
export async function codeDay(merchantId: string, codeId: string) {
  const day = localMoment(new Date(), "UTC").day;
  const { docs, more } = await readRollupDocs(merchantId, "codeDays", { codeId, first: day, last: day }, 1000);
  assert.equal(more, false);
  return foldCounts(docs);
}

/** A commit of a scan batch (it writes a code's rollup shard), as its REST body names documents. */
export const scanCommit = (body: string) => body.includes("/codeDays/");

/** A code whose scans the redirect counts before answering: a cap (far above what a test spends here). */
export async function cappedCode(merchantId: string, title: string, cap = 10_000) {
  const code = await createCode(merchantId, { title, destinationUrl: DESTINATION, dynamic: true });
  await setCodeCampaign(merchantId, { codeId: code.codeId }, { rules: [], humanScanCap: cap, fallbackUrl: FALLBACK } as never);
  return code;
}
