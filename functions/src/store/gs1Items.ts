// GS1 items and the ownership of GS1 keys (docs/data-model.md, "GS1 items").
//   gs1Keys/{keyId}    one per (resolver host, primary key AI, value): the workspace that owns the key there.
//                      Created in the same transaction as the key's first item; a second workspace's item
//                      for the key is refused (CONFLICT). keyId = base64url(sha256("host|ai|value"))[0..32).
//   gs1Items/{itemId}  one per (host, key path with its qualifiers): its links. itemId = base64url of
//                      sha256("host|/01/…/10/…")[0..32), so the resolver reads every level of a request
//                      (/01/X/10/L/21/S, /01/X/10/L, /01/X) by id in one getAll, with no query.
// Server only: the Firestore rules give clients nothing here.
import { FieldPath, FieldValue, Timestamp, type DocumentData, type DocumentSnapshot } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { sha256 } from "../core/hash";
import { COLLECTIONS } from "./collections";
import { addAuditEvent } from "./audit";
import { dateOf, listOf, readRecords, recordConverter } from "./records";
import type { TakenDown } from "./codes";

export const GS1_COLLECTIONS = { items: "gs1Items", keys: "gs1Keys" } as const;

export interface StoredGs1Link {
  linkType: string;
  href: string;
  title: string;
  hreflang?: string[];
  type?: string;
  context?: string[];
  default: boolean;
  /** The workspace's QR code or listing the link was attached from (gs1/sources.ts); absent for a plain href. */
  from?: { menuCodeId?: string; listingId?: string };
}

export interface StoredGs1Item {
  itemId: string;
  merchantId: string;
  host: string;
  ai: string;
  value: string;
  qualifiers: Array<{ ai: string; value: string }>;
  /** The canonical path, /01/09506000134352/10/ABC. */
  path: string;
  description: string | null;
  links: StoredGs1Link[];
  createdAt: Date;
  updatedAt: Date;
  /** An operator's takedown (moderation/service.ts): the resolver answers the warning page; absent otherwise. */
  takenDown?: TakenDown;
}

/** The code id under which an item's resolutions are counted (scan rollups and events; gs1/scans.ts). */
export const gs1CodeIdOf = (itemId: string) => `gs1_${itemId}`;
/** The item id of such a code id, or undefined for a code's own id (code ids never start with gs1_). */
export const gs1ItemIdOfCodeId = (codeId: string) => (codeId.startsWith("gs1_") ? codeId.slice(4) : undefined);

const idOf = (parts: string) => sha256(parts).toString("base64url").slice(0, 32);
export const gs1ItemIdOf = (host: string, path: string) => idOf(`${host}|${path}`);
export const gs1KeyIdOf = (host: string, ai: string, value: string) => idOf(`${host}|${ai}|${value}`);

function itemOf(data: DocumentData): StoredGs1Item {
  return {
    itemId: data.itemId,
    merchantId: data.merchantId,
    host: data.host,
    ai: data.ai,
    value: data.value,
    qualifiers: listOf<StoredGs1Item["qualifiers"][number]>(data.qualifiers),
    path: data.path,
    description: data.description ?? null,
    links: listOf<StoredGs1Link>(data.links),
    createdAt: dateOf(data.createdAt),
    updatedAt: dateOf(data.updatedAt),
    ...(data.takenDown ? { takenDown: data.takenDown as TakenDown } : {}),
  };
}
const itemRecord = recordConverter<StoredGs1Item>(itemOf);

/** Item documents as written (putGs1Item writes whole ones); `itemRecords` reads them as items. */
const items = () => db().collection(GS1_COLLECTIONS.items);
const itemRecords = () => items().withConverter(itemRecord);
const keys = () => db().collection(GS1_COLLECTIONS.keys);

/** Firestore refuses `undefined` fields: optional link attributes are left out when absent. */
function linkData(link: StoredGs1Link): DocumentData {
  return Object.fromEntries(Object.entries(link).filter(([, v]) => v !== undefined));
}

export type PutGs1ItemInput = Omit<StoredGs1Item, "itemId" | "createdAt" | "updatedAt">;

/**
 * Creates or replaces an item. The key's ownership document is read in the same transaction: absent, it is
 * created for this workspace; owned by another workspace, nothing is written and CONFLICT is thrown.
 */
export async function putGs1Item(input: PutGs1ItemInput, now = new Date()): Promise<{ item: StoredGs1Item; created: boolean }> {
  const itemId = gs1ItemIdOf(input.host, input.path);
  const itemRef = items().doc(itemId);
  const keyRef = keys().doc(gs1KeyIdOf(input.host, input.ai, input.value));
  return db().runTransaction(async (tx) => {
    const [keySnap, itemSnap] = await tx.getAll(keyRef, itemRef);
    const owner = keySnap.exists ? (keySnap.get("merchantId") as string) : undefined;
    if (owner !== undefined && owner !== input.merchantId) {
      throw new AppError("CONFLICT", `${input.ai === "01" ? "GTIN" : `GS1 key (AI ${input.ai})`} ${input.value} is already registered by another workspace on ${input.host}`, {
        hint: "A key has one owner per resolver host. If your company owns this key's GS1 company prefix, contact support to have it reassigned.",
        details: { ai: input.ai, value: input.value },
      });
    }
    // A taken-down item keeps its links until an operator restores it (as a taken-down code keeps its destination).
    if (itemSnap.get("takenDown")) throw takenDownError(input.path, itemSnap.get("takenDown") as TakenDown);
    // An item document of another owner cannot exist without the key's document naming that owner.
    if (!keySnap.exists) tx.create(keyRef, { host: input.host, ai: input.ai, value: input.value, merchantId: input.merchantId, claimedAt: Timestamp.fromDate(now) });
    const createdAt = itemSnap.exists ? (itemSnap.get("createdAt") as Timestamp) : Timestamp.fromDate(now);
    const data = {
      itemId,
      merchantId: input.merchantId,
      host: input.host,
      ai: input.ai,
      value: input.value,
      qualifiers: input.qualifiers,
      path: input.path,
      description: input.description,
      links: input.links.map(linkData),
      // The links' targets, for the query that finds a workspace's items pointing to a URL (a re-check that found it listed).
      hrefs: [...new Set(input.links.map((l) => l.href))],
      createdAt,
      updatedAt: Timestamp.fromDate(now),
    };
    tx.set(itemRef, data);
    return { item: itemOf(data), created: !itemSnap.exists };
  });
}

/** One of the workspace's items, or undefined (another workspace's item is not told apart from none). */
export async function readGs1Item(merchantId: string, itemId: string): Promise<StoredGs1Item | undefined> {
  const item = (await itemRecords().doc(itemId).get()).data();
  return item?.merchantId === merchantId ? item : undefined;
}

/** Deletes one of the workspace's items; false when it has none by that id. The key stays the workspace's. */
export async function deleteGs1Item(merchantId: string, itemId: string): Promise<boolean> {
  const ref = items().doc(itemId);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get("merchantId") !== merchantId) return false;
    // Deleting would let the same path be registered again with new links: the takedown would be undone.
    if (snap.get("takenDown")) throw takenDownError(snap.get("path") as string, snap.get("takenDown") as TakenDown);
    tx.delete(ref);
    return true;
  });
}

function takenDownError(path: string, takenDown: TakenDown): AppError {
  return new AppError("FORBIDDEN", `The GS1 item ${path} was taken down by the service's operators; its links cannot change and it cannot be deleted`, {
    hint: "Contact the service's operators to have it reviewed and restored.",
    details: { takenDown },
  });
}

/** Any item on the host by its itemId (an operator's read: moderation). */
export async function readGs1ItemById(itemId: string): Promise<StoredGs1Item | undefined> {
  return (await itemRecords().doc(itemId).get()).data();
}

/** A workspace's items with a link to `url` (items written before `hrefs` was kept are not found), at most `limit`. */
export async function findGs1ItemsByHref(merchantId: string, url: string, limit = 100): Promise<StoredGs1Item[]> {
  return (await itemRecords().where("merchantId", "==", merchantId).where("hrefs", "array-contains", url).limit(limit).get()).docs.map((d) => d.data());
}

/** Marks an item taken down (or, with null, restores it); resolves to the item as it was. NOT_FOUND when there is none. */
export async function setGs1TakenDown(itemId: string, takenDown: TakenDown | null): Promise<StoredGs1Item> {
  return db().runTransaction(async (tx) => {
    const item = (await tx.get(itemRecords().doc(itemId))).data();
    if (!item) throw new AppError("NOT_FOUND", "No GS1 item answers at this address");
    tx.update(items().doc(itemId), { takenDown: takenDown ?? FieldValue.delete() });
    return item;
  });
}

/** A page of the workspace's items in id order, after `after` (an itemId). */
export async function listGs1Items(merchantId: string, limit: number, after?: string): Promise<{ items: StoredGs1Item[]; next: string | null }> {
  let query = itemRecords().where("merchantId", "==", merchantId).orderBy(FieldPath.documentId()).limit(limit + 1);
  if (after) query = query.startAfter(after);
  const snap = await query.get();
  const page = snap.docs.slice(0, limit).map((d) => d.data());
  return { items: page, next: snap.docs.length > limit ? page[page.length - 1].itemId : null };
}

/** The resolver's read: the items at each given path on the host, in the given order (absent ones undefined). One round trip. */
export async function readGs1Levels(host: string, paths: readonly string[]): Promise<Array<StoredGs1Item | undefined>> {
  return readRecords(paths.map((p) => itemRecords().doc(gs1ItemIdOf(host, p))));
}

/** Items one reassignment may remove with the key, all in its one transaction (docs/data-model.md, "GS1 items: bounds"). */
export const GS1_REASSIGN_ITEMS_MAX = 400;

export interface Gs1KeyReassignment {
  host: string;
  ai: string;
  value: string;
  /** The workspace that becomes the owner. */
  to: string;
  /** Who did it (the operator's name or "admin-cli"), and why. */
  by: string;
  reason: string;
}

/**
 * An operator's reassignment of a key (gs1/reassign.ts), in one transaction: the key's owner becomes `to`,
 * every item of the key on the host (all qualifier levels, all the previous owner's) is deleted, and each
 * of the two workspaces gets an audit event. Refused, with nothing written, when the key has no owner,
 * when `to` already owns it or is no workspace, or when the key has more items than one transaction takes.
 */
export async function reassignGs1Key(input: Gs1KeyReassignment, now = new Date()): Promise<{ previousOwner: string; removed: StoredGs1Item[] }> {
  const keyRef = keys().doc(gs1KeyIdOf(input.host, input.ai, input.value));
  const targetRef = db().collection(COLLECTIONS.workspaces).doc(input.to);
  const keyItems = itemRecords().where("host", "==", input.host).where("ai", "==", input.ai).where("value", "==", input.value).limit(GS1_REASSIGN_ITEMS_MAX + 1);
  const name = `${input.ai === "01" ? "GTIN" : `GS1 key (AI ${input.ai})`} ${input.value}`;
  const check = (keySnap: DocumentSnapshot, targetSnap: DocumentSnapshot): string => {
    if (!keySnap.exists) throw new AppError("NOT_FOUND", `${name} has no owner on ${input.host}: nothing to reassign`, { hint: "The claimant can register it now; no reassignment is needed." });
    if (!targetSnap.exists) throw new AppError("NOT_FOUND", `No workspace ${input.to}`, { hint: "Give the merchantId of the claimant's workspace." });
    const owner = keySnap.get("merchantId") as string;
    if (owner === input.to) throw new AppError("CONFLICT", `${name} already belongs to ${input.to} on ${input.host}`);
    return owner;
  };
  const checkSize = (size: number) => {
    if (size <= GS1_REASSIGN_ITEMS_MAX) return;
    throw new AppError("CONFLICT", `${name} has more than ${GS1_REASSIGN_ITEMS_MAX} items (qualifier levels): more than one reassignment transaction holds`, {
      hint: "Ask the current owner to delete lot or serial items first, then reassign.",
    });
  };
  // Checked before the transaction too: a refusal then opens none (a CLI that exits at once would leave a
  // failed transaction's locks to expire, since the SDK does not wait for its rollback).
  check(...((await db().getAll(keyRef, targetRef)) as [DocumentSnapshot, DocumentSnapshot]));
  checkSize((await keyItems.count().get()).data().count);
  return db().runTransaction(async (tx) => {
    const previousOwner = check(...((await tx.getAll(keyRef, targetRef)) as [DocumentSnapshot, DocumentSnapshot]));
    const found = await tx.get(keyItems);
    checkSize(found.size);
    for (const doc of found.docs) tx.delete(doc.ref);
    const at = Timestamp.fromDate(now);
    tx.update(keyRef, { merchantId: input.to, claimedAt: at, reassignedAt: at, reassignedBy: input.by, reassignReason: input.reason, previousMerchantId: previousOwner });
    const details = { ai: input.ai, value: input.value, host: input.host, from: previousOwner, to: input.to, itemsRemoved: found.size, reason: input.reason };
    for (const merchantId of [previousOwner, input.to]) addAuditEvent(tx, { merchantId, uid: input.by, authMethod: "admin", keyPrefix: null, tool: "admin.gs1_reassign", status: "ok", durationMs: 0, details });
    return { previousOwner, removed: found.docs.map((d) => d.data()) };
  });
}
