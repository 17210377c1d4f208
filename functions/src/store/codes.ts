// QR code records. Codes live under their workspace (workspaces/{merchantId}/codes/{codeId}); the
// top-level links/{uniqueQRCodeID} document maps the cross-platform id to its code and carries what the
// redirect needs in one read. Both are always written together.
import { FieldValue, Timestamp, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import type { BoostFrame, ScanBeepSound, Template } from "../core/constants";
import type { StoredDesign } from "./designRecord";
import { COLLECTIONS } from "./collections";
import { addNewCodesToCatalogue, catalogueFields, NEW_CODE_SCAN_FIELDS } from "./catalogue";

export type CodeSource = "tool" | "bulk" | "sandbox-claim" | "console";

/** The account-owned QR code as stored (codes/model.ts turns it into what tools and endpoints return). */
export interface QrCode {
  codeId: string;
  merchantId: string;
  uniqueQRCodeID: string;
  title: string;
  destinationUrl: string;
  campaign: string | null;
  tags: string[];
  dynamic: boolean;
  /** `{dynamic_link_url}/qr/<uniqueQRCodeID>` for dynamic codes, else null. */
  dynamicLink: string | null;
  template: Template | null;
  scanBeepSound: ScanBeepSound | null;
  boostFrame: BoostFrame | null;
  /** Brand design (docs/decisions.md, "Brand designs"); null or absent: the plain black-on-white code. */
  design?: StoredDesign | null;
  qrImageUrl: string;
  imagePath: string;
  imageToken: string;
  status: "draft" | "published";
  source: CodeSource;
  createdAt: Date;
  updatedAt: Date;
  /** Set by an operator's takedown (abuse/service.ts): scans see a warning page; absent otherwise. */
  takenDown?: TakenDown;
  /** A dynamic code's campaign settings as written (docs/campaign-rules.md); its link holds them parsed. Absent: none. */
  campaignRules?: StoredCampaignRules;
}

/**
 * A code's or link's campaign settings. Their shape is the campaigns domain's (campaigns/rules.ts, which
 * validates them before they are written and reads them back through its own types); the store, a layer
 * below, keeps them as written.
 */
export type StoredCampaignRules = Record<string, unknown>;

/** Why and when an operator took a code down; on the code and its link, removed on restore. */
export interface TakenDown {
  reason: string;
  /** ISO time (a plain string, so the record reads back the same from either document). */
  at: string;
  reportId: string | null;
}

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
  /** Those of them that also want scans that are not a person's (a subset of webhookIds). */
  machineWebhookIds?: string[];
  /** An operator's takedown: scans get a warning page instead of the destination. */
  takenDown?: TakenDown;
  /** A dynamic code's campaign settings, parsed, with its UTM template's parameters (campaigns/service.ts); absent: none. */
  campaignRules?: StoredCampaignRules;
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

/** Fields of a code document that belong to the catalogue (store/catalogue.ts), not to the code. */
const CATALOGUE_ONLY = ["titleKey", "searchTokens", "catalogue", "scans7", "scans30", "scansStaleAt"];

export function fromDoc(data: FirebaseFirestore.DocumentData): QrCode {
  const d = Object.fromEntries(Object.entries(data).filter(([k]) => !CATALOGUE_ONLY.includes(k))) as StoredCode;
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

/**
 * Adds new codes of one workspace, their links and their place in the catalogue (totals, campaigns) to a
 * batch or transaction; `create` fails it if any code or link already exists.
 */
export function addNewCodes(batch: WriteBatch | Transaction, merchantId: string, codes: readonly QrCode[]): void {
  // Both WriteBatch and Transaction have create(); TypeScript cannot unify their overloads.
  const writer = batch as WriteBatch;
  for (const code of codes) {
    if (code.merchantId !== merchantId) throw new Error("addNewCodes: every code must belong to the workspace written");
    writer.create(codesOf(merchantId).doc(code.codeId), { ...codeData(code), ...catalogueFields(code), ...NEW_CODE_SCAN_FIELDS });
    writer.create(linkRef(code.uniqueQRCodeID), { ...linkData(code), createdAt: Timestamp.fromDate(code.createdAt) });
  }
  addNewCodesToCatalogue(batch, merchantId, codes);
}

export interface CodeLookup {
  codeId?: string;
  uniqueQRCodeID?: string;
}

/** Finds a code in `merchantId`'s workspace; another merchant's code is "not found", never returned. */
export async function findCode(merchantId: string, lookup: CodeLookup, tx?: Transaction): Promise<QrCode> {
  return (await findCodeRecord(merchantId, lookup, tx)).code;
}

/** findCode, with the code's document as stored (its catalogue fields too), for a read-modify-write. */
export async function findCodeRecord(merchantId: string, lookup: CodeLookup, tx?: Transaction): Promise<{ code: QrCode; stored: FirebaseFirestore.DocumentData }> {
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
  return { code: fromDoc(snap.data()!), stored: snap.data()! };
}

/**
 * Writes a changed code and its link in the same transaction, with its list fields. `stored` is the code
 * document as read in this transaction: a code from before the catalogue joins its totals here (the
 * backfill then skips it), and its stored scan counts are kept.
 */
export function updateCodeInTransaction(tx: Transaction, code: QrCode, stored: FirebaseFirestore.DocumentData): void {
  const scans = stored.catalogue === undefined ? NEW_CODE_SCAN_FIELDS : Object.fromEntries(["scans7", "scans30", "scansStaleAt"].filter((k) => stored[k] !== undefined).map((k) => [k, stored[k]]));
  tx.set(codesOf(code.merchantId).doc(code.codeId), { ...codeData(code), ...catalogueFields(code), ...scans });
  tx.set(linkRef(code.uniqueQRCodeID), linkData(code), { merge: true });
  if (stored.catalogue === undefined) addNewCodesToCatalogue(tx, code.merchantId, [code]);
}

/** Replaces (or, with null, removes) a link's campaign settings: the whole field, never merged into the old one. */
export function setLinkCampaignRules(tx: Transaction, uniqueQRCodeID: string, rules: StoredCampaignRules | null): void {
  tx.update(linkRef(uniqueQRCodeID), { campaignRules: rules ?? FieldValue.delete() });
}

/** Several codes of one workspace in one round trip, in the order asked; missing ones are left out. */
export async function readCodes(merchantId: string, codeIds: string[]): Promise<QrCode[]> {
  if (!codeIds.length) return [];
  const snaps = await db().getAll(...codeIds.map((id) => codesOf(merchantId).doc(id)));
  return snaps.filter((s) => s.exists).map((s) => fromDoc(s.data()!));
}

/**
 * Marks a code and its link taken down (or, with null, restores both) in one transaction: the redirect
 * reads the link, the owner's console the code. Resolves to the code as it was before.
 */
export async function setTakenDown(uniqueQRCodeID: string, takenDown: TakenDown | null): Promise<QrCode> {
  return db().runTransaction(async (tx) => {
    const link = await tx.get(linkRef(uniqueQRCodeID));
    if (!link.exists) throw new AppError("NOT_FOUND", `No code with the scan id ${uniqueQRCodeID}`);
    const { merchantId, codeId } = link.data() as Link;
    const codeRef = codesOf(merchantId).doc(codeId);
    const code = await tx.get(codeRef);
    if (!code.exists) throw new AppError("NOT_FOUND", `No code with the scan id ${uniqueQRCodeID}`);
    const value = takenDown ?? FieldValue.delete();
    tx.update(linkRef(uniqueQRCodeID), { takenDown: value });
    tx.update(codeRef, { takenDown: value });
    return fromDoc(code.data()!);
  });
}
