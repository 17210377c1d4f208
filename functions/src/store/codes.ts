// QR code records. Codes live under their workspace (workspaces/{merchantId}/codes/{codeId}); the
// top-level links/{uniqueQRCodeID} document maps the cross-platform id to its code and carries what the
// redirect needs in one read. Both are always written together.
import { FieldValue, Timestamp, type DocumentData, type Transaction, type WriteBatch } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import type { BoostFrame, ScanBeepSound, Template } from "../core/constants";
import type { StoredDesign } from "./designRecord";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";
import { addNewCodesToCatalogue, catalogueFields, NEW_CODE_SCAN_FIELDS, UNCOUNTED_SCAN_FIELDS } from "./catalogue";
import { dateOf, listOf, readRecords, recordConverter } from "./records";

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
  /** The workspace's branded domain the code's link is on (docs/domains.md, "Codes on a domain"); absent or null: none. */
  domainId?: string | null;
  /** Whether the stored dynamicLink and PNG use that domain's host (false while it is detached); absent: no domain. */
  onDomainHost?: boolean;
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
  /** The last time its password page's budget ran out (someone guessing), for the owner's console; absent: never. */
  passwordNotice?: PasswordGuessNotice;
}

/** What the owner's console says of a password being guessed (campaigns/passwordAlert.ts). */
export interface PasswordGuessNotice {
  /** ISO time the code's attempt budget ran out. */
  at: string;
  message: string;
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

/** A workspace's code documents, as written (the list's queries, store/catalogue.ts, read them as codes). */
export const codesOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codes");
const linkDoc = (uniqueQRCodeID: string) => db().collection(COLLECTIONS.links).doc(uniqueQRCodeID);

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
  /** When the link last gained or lost its campaign settings (setLinkCampaignRules); absent: never since this was kept. */
  rulesChangedAt?: Date;
  /** The code's own conversion tracking choice (attribution/settings.ts); absent: its campaign's or workspace's decides. */
  trackConversions?: boolean;
  /** The code hands each person a one-time discount code on a page after the scan (attribution/discounts.ts). */
  discounts?: boolean;
}

/**
 * A link as the redirect reads it: a plain mapping (every scan reads one). Its optional fields stay absent
 * when unset, as written (setLinkWebhooks and setTakenDown delete them), rather than null.
 */
const linkRecord = recordConverter<Link>((d) => {
  const link: Link = { merchantId: d.merchantId, codeId: d.codeId, destinationUrl: d.destinationUrl, campaign: d.campaign ?? null };
  if (d.webhookIds !== undefined) link.webhookIds = d.webhookIds;
  if (d.machineWebhookIds !== undefined) link.machineWebhookIds = d.machineWebhookIds;
  if (d.takenDown !== undefined) link.takenDown = d.takenDown;
  if (d.campaignRules !== undefined) link.campaignRules = d.campaignRules;
  if (d.rulesChangedAt !== undefined) link.rulesChangedAt = dateOf(d.rulesChangedAt);
  if (typeof d.trackConversions === "boolean") link.trackConversions = d.trackConversions;
  if (d.discounts === true) link.discounts = true;
  return link;
});
const linkRef = (uniqueQRCodeID: string) => linkDoc(uniqueQRCodeID).withConverter(linkRecord);

export async function readLink(uniqueQRCodeID: string): Promise<Link | undefined> {
  return (await linkRef(uniqueQRCodeID).get()).data();
}

/** Several links in one round trip (getAll), in the order asked. */
export async function readLinks(uniqueQRCodeIDs: string[]): Promise<Array<Link | undefined>> {
  return readRecords(uniqueQRCodeIDs.map(linkRef));
}

export function newCodeId(merchantId: string): string {
  return codesOf(merchantId).doc().id;
}

/** Fields of a code document that belong to the catalogue (store/catalogue.ts), not to the code. */
const SCAN_COUNT_FIELDS = ["scans7", "scans30", "scansStaleAt", "scansByDay"];
const CATALOGUE_ONLY = ["titleKey", "searchTokens", "catalogue", ...SCAN_COUNT_FIELDS];
/** The fields a code document names: the code's (every field of QrCode, checked by `satisfies`) and the catalogue's. */
const NAMED_FIELDS = new Set([
  ...Object.keys({
    codeId: 1, merchantId: 1, uniqueQRCodeID: 1, title: 1, destinationUrl: 1, campaign: 1, tags: 1, dynamic: 1, dynamicLink: 1, template: 1, scanBeepSound: 1,
    boostFrame: 1, design: 1, qrImageUrl: 1, imagePath: 1, imageToken: 1, status: 1, source: 1, createdAt: 1, updatedAt: 1, takenDown: 1, campaignRules: 1, passwordNotice: 1,
    domainId: 1, onDomainHost: 1,
  } satisfies Record<keyof QrCode, 1>),
  ...CATALOGUE_ONLY,
]);

/**
 * A code document as a code. An older document's absent fields read as null (or none, for tags); design,
 * domainId, takenDown and campaignRules stay absent when unset, as they are written (a rewrite leaves them out).
 */
function codeOf(d: DocumentData, id: string): QrCode {
  const code: QrCode = {
    codeId: d.codeId ?? id,
    merchantId: d.merchantId,
    uniqueQRCodeID: d.uniqueQRCodeID,
    title: d.title ?? "",
    destinationUrl: d.destinationUrl,
    campaign: d.campaign ?? null,
    tags: listOf<string>(d.tags),
    dynamic: d.dynamic === true,
    dynamicLink: d.dynamicLink ?? null,
    template: d.template ?? null,
    scanBeepSound: d.scanBeepSound ?? null,
    boostFrame: d.boostFrame ?? null,
    qrImageUrl: d.qrImageUrl,
    imagePath: d.imagePath,
    imageToken: d.imageToken,
    status: d.status === "published" ? "published" : "draft",
    source: d.source,
    createdAt: dateOf(d.createdAt),
    updatedAt: dateOf(d.updatedAt),
  };
  if (d.design !== undefined) code.design = d.design;
  if (typeof d.domainId === "string") {
    code.domainId = d.domainId;
    code.onDomainHost = d.onDomainHost === true;
  }
  if (d.takenDown !== undefined) code.takenDown = d.takenDown;
  if (d.campaignRules !== undefined) code.campaignRules = d.campaignRules;
  if (d.passwordNotice !== undefined) code.passwordNotice = d.passwordNotice;
  return code;
}

/** Code documents read as codes (the list's queries use it too: store/catalogue.ts). */
export const codeRecord = recordConverter<QrCode>(codeOf);

/**
 * What a rewrite of a code keeps of its document as read (updateCodeInTransaction): whether it is in the
 * catalogue yet, its stored scan counts, and the fields that are not the code's (publishedAt and
 * publishedBy, store/publication.ts; a newer release's), written back as they were.
 */
export interface StoredCodeFields {
  catalogued: boolean;
  scanCounts: DocumentData;
  other: DocumentData;
}

const codeDocument = recordConverter<{ code: QrCode; stored: StoredCodeFields }>((d, id) => ({
  code: codeOf(d, id),
  stored: {
    catalogued: d.catalogue !== undefined,
    scanCounts: Object.fromEntries(SCAN_COUNT_FIELDS.filter((k) => d[k] !== undefined).map((k) => [k, d[k]])),
    other: Object.fromEntries(Object.entries(d).filter(([k]) => !NAMED_FIELDS.has(k))),
  },
}));

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
    writer.create(linkDoc(code.uniqueQRCodeID), { ...linkData(code), createdAt: Timestamp.fromDate(code.createdAt) });
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

/** findCode, with what a rewrite keeps of the code's document (its catalogue fields too), for a read-modify-write. */
export async function findCodeRecord(merchantId: string, lookup: CodeLookup, tx?: Transaction): Promise<{ code: QrCode; stored: StoredCodeFields }> {
  const get = <T>(ref: FirebaseFirestore.DocumentReference<T>) => (tx ? tx.get(ref) : ref.get());
  let codeId = lookup.codeId;
  if (lookup.uniqueQRCodeID) {
    const link = (await get(linkRef(lookup.uniqueQRCodeID))).data();
    if (!link || link.merchantId !== merchantId) throw new AppError("NOT_FOUND", "QR code not found");
    const linked = link.codeId;
    if (codeId && codeId !== linked) {
      throw new AppError("VALIDATION_FAILED", "codeId and uniqueQRCodeID name different codes", {
        hint: "Give one of them, or both for the same code.",
      });
    }
    codeId = linked;
  }
  if (!codeId) throw new AppError("VALIDATION_FAILED", "Give codeId or uniqueQRCodeID to identify the code");
  const found = (await get(codesOf(merchantId).withConverter(codeDocument).doc(codeId))).data();
  if (!found) throw new AppError("NOT_FOUND", "QR code not found");
  return found;
}

/**
 * Writes a changed code and its link in the same transaction, with its list fields. `stored` is what
 * findCodeRecord read in this transaction: a code from before the catalogue joins its totals here (the
 * backfill then skips it), its stored scan counts are kept, and so are the document's fields that are not
 * the code's (a field of the code left out of `code`, such as campaignRules, is removed).
 */
export function updateCodeInTransaction(tx: Transaction, code: QrCode, stored: StoredCodeFields): void {
  const scans = stored.catalogued ? stored.scanCounts : UNCOUNTED_SCAN_FIELDS;
  tx.set(codesOf(code.merchantId).doc(code.codeId), { ...stored.other, ...codeData(code), ...catalogueFields(code), ...scans });
  tx.set(linkDoc(code.uniqueQRCodeID), linkData(code), { merge: true });
  if (!stored.catalogued) addNewCodesToCatalogue(tx, code.merchantId, [code]);
}

/**
 * Replaces (or, with null, removes) a link's campaign settings: the whole field, never merged into the old one.
 * `had`: whether the link had settings; when that changes, the link records when (`rulesChangedAt`), so the
 * scan consumer judges a scan published before its redirect read the link by the rules at the scan's time.
 */
export function setLinkCampaignRules(tx: Transaction, uniqueQRCodeID: string, rules: StoredCampaignRules | null, had: boolean): void {
  tx.update(linkDoc(uniqueQRCodeID), { campaignRules: rules ?? FieldValue.delete(), ...(had !== (rules !== null) ? { rulesChangedAt: FieldValue.serverTimestamp() } : {}) });
}

/** Several codes of one workspace in one round trip, in the order asked; missing ones are left out. */
export async function readCodes(merchantId: string, codeIds: string[]): Promise<QrCode[]> {
  const codes = await readRecords(codeIds.map((id) => codesOf(merchantId).withConverter(codeRecord).doc(id)));
  return codes.filter((c): c is QrCode => c !== undefined);
}

/** A workspace's codes that point to `url` (a re-check that found it listed takes them down), at most `limit`. */
export async function findCodesByDestination(merchantId: string, url: string, limit = 100): Promise<QrCode[]> {
  return (await codesOf(merchantId).withConverter(codeRecord).where("destinationUrl", "==", url).limit(limit).get()).docs.map((d) => d.data());
}

/** The owner's console notice that the code's password is being guessed (at most one write a day per code: passwordAlerts). */
export async function setPasswordNotice(merchantId: string, codeId: string, notice: PasswordGuessNotice): Promise<void> {
  await codesOf(merchantId).doc(codeId).update({ passwordNotice: notice });
}

/**
 * Marks a code and its link taken down (or, with null, restores both) in one transaction: the redirect
 * reads the link, the owner's console the code. Resolves to the code as it was before.
 */
export async function setTakenDown(uniqueQRCodeID: string, takenDown: TakenDown | null): Promise<QrCode> {
  return db().runTransaction(async (tx) => {
    const link = (await tx.get(linkRef(uniqueQRCodeID))).data();
    if (!link) throw new AppError("NOT_FOUND", `No code with the scan id ${uniqueQRCodeID}`);
    const codeRef = codesOf(link.merchantId).withConverter(codeRecord).doc(link.codeId);
    const code = (await tx.get(codeRef)).data();
    if (!code) throw new AppError("NOT_FOUND", `No code with the scan id ${uniqueQRCodeID}`);
    const value = takenDown ?? FieldValue.delete();
    tx.update(linkDoc(uniqueQRCodeID), { takenDown: value });
    tx.update(codeRef, { takenDown: value });
    return code;
  });
}

/**
 * A dynamic code's link fields for conversion tracking (attribution/admin.ts): its own `trackConversions`
 * choice (null removes it) and whether it hands out in-store discount codes. Absent fields are left alone.
 */
export async function setLinkAttribution(uniqueQRCodeID: string, fields: { trackConversions?: boolean | null; discounts?: boolean }): Promise<void> {
  const data: Record<string, unknown> = {};
  if (fields.trackConversions !== undefined) data.trackConversions = fields.trackConversions ?? FieldValue.delete();
  if (fields.discounts !== undefined) data.discounts = fields.discounts;
  await linkDoc(uniqueQRCodeID).update(data);
  countOps({ writes: 1 });
}
