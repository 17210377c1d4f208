// QR code records. Codes live under their workspace (workspaces/{merchantId}/codes/{codeId}); the
// top-level links/{uniqueQRCodeID} document maps the cross-platform id to its code and carries what the
// redirect needs in one read. Both are always written together.
import { Timestamp, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import type { QrCode } from "../codes/model";
import { COLLECTIONS } from "./collections";
import { entryOf, writeIndexEntry } from "./codeIndex";

export const codesOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codes");
const linkRef = (uniqueQRCodeID: string) => db().collection(COLLECTIONS.links).doc(uniqueQRCodeID);

/** What a dynamic link resolves to: the one document the redirect reads. */
export interface Link {
  merchantId: string;
  codeId: string;
  destinationUrl: string;
  campaign: string | null;
  /** Active scan.created subscriptions covering this code (store/webhooks.ts); absent when none. */
  webhookIds?: string[];
}

export async function readLink(uniqueQRCodeID: string): Promise<Link | undefined> {
  const snap = await linkRef(uniqueQRCodeID).get();
  return snap.exists ? (snap.data() as Link) : undefined;
}

/** Several links in one round trip (getAll), in the order asked. */
export async function readLinks(uniqueQRCodeIDs: string[]): Promise<Array<Link | undefined>> {
  const snaps = await db().getAll(...uniqueQRCodeIDs.map(linkRef));
  return snaps.map((snap) => (snap.exists ? (snap.data() as Link) : undefined));
}

export function newCodeId(merchantId: string): string {
  return codesOf(merchantId).doc().id;
}

type StoredCode = Omit<QrCode, "createdAt" | "updatedAt"> & { createdAt: Timestamp; updatedAt: Timestamp };

function fromDoc(data: FirebaseFirestore.DocumentData): QrCode {
  const d = data as StoredCode;
  return { ...d, createdAt: d.createdAt.toDate(), updatedAt: d.updatedAt.toDate() };
}

function linkData(code: QrCode) {
  return {
    merchantId: code.merchantId,
    codeId: code.codeId,
    destinationUrl: code.destinationUrl,
    dynamic: code.dynamic,
    campaign: code.campaign,
    updatedAt: Timestamp.fromDate(code.updatedAt),
  };
}

function codeData(code: QrCode) {
  return { ...code, createdAt: Timestamp.fromDate(code.createdAt), updatedAt: Timestamp.fromDate(code.updatedAt) };
}

/** Adds a new code and its link to a batch or transaction; `create` fails it if either already exists. */
export function addNewCode(batch: WriteBatch | Transaction, code: QrCode): void {
  // Both WriteBatch and Transaction have create(); TypeScript cannot unify their overloads.
  const writer = batch as WriteBatch;
  writer.create(codesOf(code.merchantId).doc(code.codeId), codeData(code));
  writer.create(linkRef(code.uniqueQRCodeID), { ...linkData(code), createdAt: Timestamp.fromDate(code.createdAt) });
  writeIndexEntry(batch, code.merchantId, code.codeId, entryOf(code));
}

export interface CodeLookup {
  codeId?: string;
  uniqueQRCodeID?: string;
}

/** Finds a code in `merchantId`'s workspace; another merchant's code is "not found", never returned. */
export async function findCode(merchantId: string, lookup: CodeLookup, tx?: Transaction): Promise<QrCode> {
  const get = <T>(ref: FirebaseFirestore.DocumentReference<T>) => (tx ? tx.get(ref) : ref.get());
  let codeId = lookup.codeId;
  if (lookup.uniqueQRCodeID) {
    const link = await get(linkRef(lookup.uniqueQRCodeID));
    if (!link.exists || link.data()!.merchantId !== merchantId) throw new AppError("NOT_FOUND", "QR code not found");
    const linked = link.data()!.codeId as string;
    if (codeId && codeId !== linked) {
      throw new AppError("VALIDATION_FAILED", "codeId and uniqueQRCodeID name different codes", {
        hint: "Give one of them, or both for the same code.",
      });
    }
    codeId = linked;
  }
  if (!codeId) throw new AppError("VALIDATION_FAILED", "Give codeId or uniqueQRCodeID to identify the code");
  const snap = await get(codesOf(merchantId).doc(codeId));
  if (!snap.exists) throw new AppError("NOT_FOUND", "QR code not found");
  return fromDoc(snap.data()!);
}

export async function listCodes(merchantId: string, limit: number): Promise<QrCode[]> {
  const snap = await codesOf(merchantId).orderBy("createdAt", "desc").limit(limit).get();
  return snap.docs.map((d) => fromDoc(d.data()));
}

/** Writes a changed code and its link in the same transaction. */
export function updateCodeInTransaction(tx: Transaction, code: QrCode): void {
  tx.set(codesOf(code.merchantId).doc(code.codeId), codeData(code));
  tx.set(linkRef(code.uniqueQRCodeID), linkData(code), { merge: true });
  writeIndexEntry(tx, code.merchantId, code.codeId, entryOf(code));
}


/** Several codes of one workspace in one round trip, in the order asked; missing ones are left out. */
export async function readCodes(merchantId: string, codeIds: string[]): Promise<QrCode[]> {
  if (!codeIds.length) return [];
  const snaps = await db().getAll(...codeIds.map((id) => codesOf(merchantId).doc(id)));
  return snaps.filter((s) => s.exists).map((s) => fromDoc(s.data()!));
}
