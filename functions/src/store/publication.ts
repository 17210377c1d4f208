// Publishing: the one place that changes the status of a code, audio code, menu or challenge, so every
// path (the console's publish and unpublish, a code created and published in one step, an import) writes
// the same fields. The rule (docs/data-model.md, "Publishing"): a change of status sets `updatedAt` to the
// same instant as `publishedAt` (or, on unpublish, to the instant of unpublishing); a call that changes
// nothing writes nothing, so `publishedAt` and `updatedAt` stay as they were.
import { Timestamp, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { countStatusChange } from "./catalogue";
import type { DraftKind } from "./drafts";
import { recordConverter } from "./records";

export type PublishableKind = DraftKind | "codes";
export type Status = "draft" | "published";

interface StatusChange {
  id: string;
  status: Status;
  /** When it was published (ISO), null for a draft. */
  publishedAt: string | null;
  /** false when it already had this status (nothing was written). */
  changed: boolean;
}

/**
 * What a change of status reads of any publishable record: its status (null on a document without one,
 * which any status then changes), when it was published, and, for a code, whether the catalogue counts it.
 */
interface PublishState {
  status: Status | null;
  publishedAt: Date | null;
  catalogued: boolean;
}
const publishState = recordConverter<PublishState>((d) => ({
  status: d.status === "published" || d.status === "draft" ? d.status : null,
  publishedAt: d.publishedAt instanceof Timestamp ? d.publishedAt.toDate() : null,
  catalogued: d.catalogue !== undefined,
}));

const refOf = (merchantId: string, kind: PublishableKind, id: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection(kind).doc(id);

/** The fields one change of status writes. */
function statusFields(status: Status, uid: string, now: Date) {
  const at = Timestamp.fromDate(now);
  return status === "published" ? { status, publishedAt: at, publishedBy: uid, updatedAt: at } : { status, publishedAt: null, publishedBy: null, updatedAt: at };
}

function writeStatus(writer: Transaction | WriteBatch, merchantId: string, kind: PublishableKind, id: string, status: Status, uid: string, now: Date): void {
  // Both writers have update(ref, data); the union's overloads do not unify for TypeScript.
  (writer as WriteBatch).update(refOf(merchantId, kind, id), statusFields(status, uid, now));
}

/** Publishes codes created in the same batch (create and publish in one step), at their createdAt. */
export function publishNewCodesInBatch(batch: WriteBatch, merchantId: string, codes: ReadonlyArray<{ codeId: string; createdAt: Date }>, uid: string): void {
  for (const code of codes) writeStatus(batch, merchantId, "codes", code.codeId, "published", uid, code.createdAt);
  countStatusChange(batch, merchantId, codes.length);
}

/** Sets the status of one record of `merchantId`; idempotent. Another workspace's id is "not found". */
export async function setStatus(merchantId: string, kind: PublishableKind, id: string, status: Status, uid: string): Promise<StatusChange> {
  const ref = refOf(merchantId, kind, id);
  return db().runTransaction(async (tx) => {
    const current = (await tx.get(ref.withConverter(publishState))).data();
    if (!current) throw new AppError("NOT_FOUND", `Nothing to ${status === "published" ? "publish" : "unpublish"} with this id in this workspace`);
    if (current.status === status) {
      return { id, status, publishedAt: status === "published" ? (current.publishedAt?.toISOString() ?? null) : null, changed: false };
    }
    const now = new Date();
    writeStatus(tx, merchantId, kind, id, status, uid, now);
    // A code from before the catalogue is counted by the backfill with the status it then has.
    if (kind === "codes" && current.catalogued) countStatusChange(tx, merchantId, status === "published" ? 1 : -1);
    return { id, status, publishedAt: status === "published" ? now.toISOString() : null, changed: true };
  });
}
