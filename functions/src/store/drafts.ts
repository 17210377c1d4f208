// Draft audio codes, menus and challenges, each under its workspace.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { timeOrderedPage } from "./pageCursor";

export type DraftKind = "audioCodes" | "menus" | "challenges";

const draftsOf = (merchantId: string, kind: DraftKind) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection(kind);

/** Document data with Date fields turned into Timestamps for storage, and back. */
const toStored = (data: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v instanceof Date ? Timestamp.fromDate(v) : v]));
const fromStored = (data: FirebaseFirestore.DocumentData) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v instanceof Timestamp ? v.toDate() : v]));

export async function createDraft<T extends Record<string, unknown>>(merchantId: string, kind: DraftKind, idField: string, data: T): Promise<T & Record<string, unknown>> {
  const ref = draftsOf(merchantId, kind).doc();
  const record = { [idField]: ref.id, ...data };
  await ref.create(toStored(record));
  return record as T & Record<string, unknown>;
}

export async function listDrafts(merchantId: string, kind: DraftKind, limit: number): Promise<Record<string, unknown>[]> {
  const snap = await draftsOf(merchantId, kind).orderBy("createdAt", "desc").limit(limit).get();
  return snap.docs.map((d) => fromStored(d.data()));
}

/** One page of a workspace's drafts of a kind, newest first (createdAt, then id), after `cursor` (store/pageCursor.ts). */
export async function listDraftPage(merchantId: string, kind: DraftKind, page: { limit: number; cursor?: string }): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  const { docs, nextCursor } = await timeOrderedPage(draftsOf(merchantId, kind), "createdAt", kind, page);
  return { items: docs.map((d) => fromStored(d.data())), nextCursor };
}

/** Read-modify-write of one draft of `merchantId`; another workspace's id is "not found". */
export async function updateDraft<R>(
  merchantId: string,
  kind: DraftKind,
  id: string,
  change: (current: Record<string, unknown>) => { next: Record<string, unknown>; result: R },
): Promise<R> {
  const ref = draftsOf(merchantId, kind).doc(id);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists) throw new AppError("NOT_FOUND", `No such ${kind === "menus" ? "menu" : "draft"} in this workspace`);
    const { next, result } = change(fromStored(snap.data()!));
    tx.set(ref, toStored(next));
    return result;
  });
}
