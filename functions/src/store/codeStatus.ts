// A code's publication state, beside the generic publishRecord in drafts.ts: publishing inside the batch
// that creates the code (console creates and publishes in one step), and taking a code back to draft.
import { Timestamp, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { codesOf } from "./codes";
import { writeIndexStatus } from "./codeIndex";

export function publishInBatch(batch: WriteBatch, merchantId: string, codeId: string, uid: string, now: Date): void {
  const at = Timestamp.fromDate(now);
  batch.update(codesOf(merchantId).doc(codeId), { status: "published", publishedAt: at, publishedBy: uid });
  writeIndexStatus(batch, merchantId, codeId, "published");
}

/** Back to draft; idempotent. The code keeps its image, link and scans. */
export async function unpublishCode(merchantId: string, codeId: string): Promise<{ id: string; status: "draft" }> {
  const ref = codesOf(merchantId).doc(codeId);
  await db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists) throw new AppError("NOT_FOUND", "QR code not found");
    if (snap.data()!.status === "draft") return;
    tx.update(ref, { status: "draft", publishedAt: null, publishedBy: null, updatedAt: Timestamp.now() });
    writeIndexStatus(tx, merchantId, codeId, "draft");
  });
  return { id: codeId, status: "draft" };
}
