// Counts raw scans (scanInbox) into a workspace's events and counters: the body of the scanCounter
// Firestore trigger. Idempotent per scan id, so at-least-once delivery never counts a scan twice.
import type { DocumentData } from "firebase-admin/firestore";
import { readLink } from "../store/codes";
import { countScan, deleteInboxScan, inboxScanFrom } from "../store/scans";

export async function countInboxScan(scanId: string, data: DocumentData | undefined): Promise<void> {
  if (!data) return;
  const raw = inboxScanFrom(data);
  const link = await readLink(raw.uniqueQRCodeID);
  if (!link) {
    await deleteInboxScan(scanId); // a scan of an unknown id: nothing to count
    return;
  }
  await countScan(
    scanId,
    { merchantId: link.merchantId, codeId: link.codeId, uniqueQRCodeID: raw.uniqueQRCodeID, campaign: link.campaign ?? null, place: raw.place, source: raw.source, at: raw.at },
    { fromInbox: true },
  );
}
