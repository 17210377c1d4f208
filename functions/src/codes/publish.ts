// The publish service: every way a record is published or taken back to draft goes through here, so the
// stored fields (store/publication.ts) and the code.published webhook event are the same on every path.
// Only the console calls it: tools create drafts and never publish.
import type { WriteBatch } from "firebase-admin/firestore";
import { findCode } from "../store/codes";
import { publishNewCodesInBatch, setStatus, type PublishableKind } from "../store/publication";
import type { QrCode } from "./model";
import { emitCodeEvents } from "./service";

/** Publishes one record; idempotent (a second call answers the first publishedAt and announces nothing). */
export async function publish(merchantId: string, kind: PublishableKind, id: string, uid: string): Promise<{ id: string; status: "published"; publishedAt: string }> {
  const change = await setStatus(merchantId, kind, id, "published", uid);
  if (kind === "codes" && change.changed) await emitCodeEvents("code.published", [await findCode(merchantId, { codeId: id })]);
  return { id, status: "published", publishedAt: change.publishedAt! };
}

/** Back to draft; idempotent. The code keeps its image, link and scans. */
export async function unpublishCode(merchantId: string, codeId: string, uid: string): Promise<{ id: string; status: "draft" }> {
  await setStatus(merchantId, "codes", codeId, "draft", uid);
  return { id: codeId, status: "draft" };
}

/**
 * Codes created and published in one step (the console's create and import): `write` adds the status to
 * the batch that writes the codes (published at their createdAt), `announce` tells subscribers once that
 * batch has committed.
 */
export function publishOnCreate(merchantId: string, uid: string) {
  return {
    write: (batch: WriteBatch, codes: readonly QrCode[]) => publishNewCodesInBatch(batch, merchantId, codes, uid),
    announce: (codes: readonly QrCode[]) => emitCodeEvents("code.published", codes.map((c) => ({ ...c, status: "published" as const }))),
  };
}
