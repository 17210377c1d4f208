// GS1 items and the ownership of GS1 keys (docs/data-model.md, "GS1 items").
//   gs1Keys/{keyId}    one per (resolver host, primary key AI, value): the workspace that owns the key there.
//                      Created in the same transaction as the key's first item; a second workspace's item
//                      for the key is refused (CONFLICT). keyId = base64url(sha256("host|ai|value"))[0..32).
//   gs1Items/{itemId}  one per (host, key path with its qualifiers): its links. itemId = base64url of
//                      sha256("host|/01/…/10/…")[0..32), so the resolver reads every level of a request
//                      (/01/X/10/L/21/S, /01/X/10/L, /01/X) by id in one getAll, with no query.
//   gs1Prefixes/{id}   an operator's approval of a GS1 company prefix for one workspace on a host: only that
//                      workspace may claim new keys beginning with it. id = base64url(sha256("host|prefix"))[0..32).
//   workspaces/{m}/gs1Prefixes/{prefix}   a workspace's DNS proof of a prefix (gs1/prefixVerify.ts): its new
//                      claims of keys beginning with it are not rate-limited; nobody else is excluded.
// Server only: the Firestore rules give clients nothing here.
import { FieldPath, FieldValue, Timestamp, type DocumentData, type DocumentSnapshot } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { sha256 } from "../core/hash";
import { COLLECTIONS } from "./collections";
import { addAuditEvent } from "./audit";
import { dateOf, listOf, readRecords, recordConverter } from "./records";
import type { TakenDown } from "./codes";

export const GS1_COLLECTIONS = { items: "gs1Items", keys: "gs1Keys", prefixes: "gs1Prefixes" } as const;

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
const approvals = () => db().collection(GS1_COLLECTIONS.prefixes);
const proofsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection(GS1_COLLECTIONS.prefixes);
const approvalRef = (host: string, prefix: string) => approvals().doc(idOf(`${host}|${prefix}`));

/** Firestore refuses `undefined` fields: optional link attributes are left out when absent. */
function linkData(link: StoredGs1Link): DocumentData {
  return Object.fromEntries(Object.entries(link).filter(([, v]) => v !== undefined));
}

export type PutGs1ItemInput = Omit<StoredGs1Item, "itemId" | "createdAt" | "updatedAt">;

/** Where a workspace stands before it writes an item (gs1/service.ts decides the claim's limits from it). */
export interface Gs1ClaimStanding {
  /** The key's owner on the host, if any. */
  owner: string | undefined;
  itemExists: boolean;
  /** An operator's approval among the key's candidate prefixes: the prefix and its workspace. */
  approved: { prefix: string; merchantId: string } | undefined;
  /** A candidate prefix the workspace has proven by DNS. */
  proven: string | undefined;
}

/** One round trip: the key, the item, and every candidate prefix's approval and the workspace's own proofs. */
export async function readGs1ClaimStanding(input: Pick<PutGs1ItemInput, "merchantId" | "host" | "ai" | "value" | "path">, prefixes: readonly string[]): Promise<Gs1ClaimStanding> {
  const refs = [
    keys().doc(gs1KeyIdOf(input.host, input.ai, input.value)),
    items().doc(gs1ItemIdOf(input.host, input.path)),
    ...prefixes.map((p) => approvalRef(input.host, p)),
    ...prefixes.map((p) => proofsOf(input.merchantId).doc(p)),
  ];
  const [keySnap, itemSnap, ...rest] = await db().getAll(...refs);
  const approvedSnap = rest.slice(0, prefixes.length).find((d) => d.exists);
  const provenSnap = rest.slice(prefixes.length).find((d) => d.exists && d.get("host") === input.host);
  return {
    owner: keySnap.exists ? (keySnap.get("merchantId") as string) : undefined,
    itemExists: itemSnap.exists,
    approved: approvedSnap ? { prefix: approvedSnap.get("prefix") as string, merchantId: approvedSnap.get("merchantId") as string } : undefined,
    proven: provenSnap?.id,
  };
}

/** How many items the workspace holds (a count query: one read per 1,000 items). */
export async function countGs1Items(merchantId: string): Promise<number> {
  return (await items().where("merchantId", "==", merchantId).count().get()).data().count;
}

export function approvedElsewhereError(input: Pick<PutGs1ItemInput, "ai" | "value" | "host">, prefix: string): AppError {
  return new AppError("CONFLICT", `${keyName(input.ai, input.value)} begins with GS1 company prefix ${prefix}, which the service's operators have verified for another workspace on ${input.host}`, {
    hint: "Only the verified holder of a company prefix registers new keys under it. If your company holds this prefix, contact support with GS1's record of it.",
    details: { ai: input.ai, value: input.value, companyPrefix: prefix },
  });
}

const keyName = (ai: string, value: string) => `${ai === "01" ? "GTIN" : `GS1 key (AI ${ai})`} ${value}`;

/**
 * Creates or replaces an item. The key's ownership document is read in the same transaction: absent, it is
 * created for this workspace (unless one of `prefixes`, the key's candidate company prefixes, is approved
 * for another workspace: CONFLICT); owned by another workspace, nothing is written and CONFLICT is thrown.
 * `ownHost`: the host is one the workspace holds now (a verified domain of its own): the workspace owns
 * every key it registers there, so a key a former holder of the host registered passes to it, with that
 * holder's item at the same path.
 */
export async function putGs1Item(input: PutGs1ItemInput, now = new Date(), prefixes: readonly string[] = [], options: { ownHost?: boolean } = {}): Promise<{ item: StoredGs1Item; created: boolean }> {
  const itemId = gs1ItemIdOf(input.host, input.path);
  const itemRef = items().doc(itemId);
  const keyRef = keys().doc(gs1KeyIdOf(input.host, input.ai, input.value));
  return db().runTransaction(async (tx) => {
    const [keySnap, itemSnap, ...approvalSnaps] = await tx.getAll(keyRef, itemRef, ...prefixes.map((p) => approvalRef(input.host, p)));
    const owner = keySnap.exists ? (keySnap.get("merchantId") as string) : undefined;
    const formerHolder = owner !== undefined && owner !== input.merchantId && options.ownHost === true;
    if (owner !== undefined && owner !== input.merchantId && !formerHolder) {
      throw new AppError("CONFLICT", `${keyName(input.ai, input.value)} is already registered by another workspace on ${input.host}`, {
        hint: "A key has one owner per resolver host. If your company owns this key's GS1 company prefix, contact support to have it reassigned.",
        details: { ai: input.ai, value: input.value },
      });
    }
    const approvedElsewhere = owner === undefined ? approvalSnaps.find((d) => d.exists && d.get("merchantId") !== input.merchantId) : undefined;
    if (approvedElsewhere) throw approvedElsewhereError(input, approvedElsewhere.get("prefix") as string);
    // A taken-down item keeps its links until an operator restores it (as a taken-down code keeps its destination).
    if (itemSnap.get("takenDown")) throw takenDownError(input.path, itemSnap.get("takenDown") as TakenDown);
    // An item document of another owner cannot exist without the key's document naming that owner (or, on
    // a host that changed hands, naming the former holder, whose item this one replaces).
    const claim = { host: input.host, ai: input.ai, value: input.value, merchantId: input.merchantId, claimedAt: Timestamp.fromDate(now) };
    if (!keySnap.exists) tx.create(keyRef, claim);
    else if (formerHolder) tx.set(keyRef, claim);
    const ours = itemSnap.exists && itemSnap.get("merchantId") === input.merchantId;
    const createdAt = ours ? (itemSnap.get("createdAt") as Timestamp) : Timestamp.fromDate(now);
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
    return { item: itemOf(data), created: !ours };
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

/** Items deleted per write while a reassignment pages through a key's items (a batch, or the last page's transaction). */
export const GS1_REASSIGN_PAGE = 400;
/** Removed items a reassignment answers with their links (the operator's record); the count covers all. */
export const GS1_REASSIGN_LISTED_MAX = 1_000;

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
 * An operator's reassignment of a key (gs1/reassign.ts). Every item of the key on the host (all qualifier
 * levels, all the previous owner's) is deleted a page at a time, any number of them; the last page goes in
 * the transaction that makes `to` the owner and writes an audit event in each of the two workspaces. Items
 * the previous owner adds meanwhile are paged through too (a last page that grew past one transaction
 * sends the loop round again). Refused, with nothing written, when the key has no owner, or when `to`
 * already owns it or is no workspace. A run stopped half-way leaves the key with its owner and fewer
 * items: running it again finishes it.
 */
export async function reassignGs1Key(input: Gs1KeyReassignment, now = new Date()): Promise<{ previousOwner: string; itemsRemoved: number; removed: StoredGs1Item[] }> {
  const keyRef = keys().doc(gs1KeyIdOf(input.host, input.ai, input.value));
  const targetRef = db().collection(COLLECTIONS.workspaces).doc(input.to);
  const keyItems = itemRecords().where("host", "==", input.host).where("ai", "==", input.ai).where("value", "==", input.value).limit(GS1_REASSIGN_PAGE + 1);
  const name = keyName(input.ai, input.value);
  const check = (keySnap: DocumentSnapshot, targetSnap: DocumentSnapshot): string => {
    if (!keySnap.exists) throw new AppError("NOT_FOUND", `${name} has no owner on ${input.host}: nothing to reassign`, { hint: "The claimant can register it now; no reassignment is needed." });
    if (!targetSnap.exists) throw new AppError("NOT_FOUND", `No workspace ${input.to}`, { hint: "Give the merchantId of the claimant's workspace." });
    const owner = keySnap.get("merchantId") as string;
    if (owner === input.to) throw new AppError("CONFLICT", `${name} already belongs to ${input.to} on ${input.host}`);
    return owner;
  };
  // Checked before any write too: a refusal then opens no transaction (a CLI that exits at once would leave
  // a failed transaction's locks to expire, since the SDK does not wait for its rollback).
  check(...((await db().getAll(keyRef, targetRef)) as [DocumentSnapshot, DocumentSnapshot]));
  const removed: StoredGs1Item[] = [];
  let itemsRemoved = 0;
  const note = (docs: Array<{ data(): StoredGs1Item }>) => {
    itemsRemoved += docs.length;
    for (const d of docs.slice(0, GS1_REASSIGN_LISTED_MAX - removed.length)) removed.push(d.data());
  };
  for (;;) {
    const page = await keyItems.get();
    if (page.size > GS1_REASSIGN_PAGE) {
      const batch = db().batch();
      const docs = page.docs.slice(0, GS1_REASSIGN_PAGE);
      for (const doc of docs) batch.delete(doc.ref);
      await batch.commit();
      note(docs);
      continue;
    }
    const done = await db().runTransaction(async (tx) => {
      const previousOwner = check(...((await tx.getAll(keyRef, targetRef)) as [DocumentSnapshot, DocumentSnapshot]));
      const found = await tx.get(keyItems);
      if (found.size > GS1_REASSIGN_PAGE) return undefined; // grew since the page was read: page again
      for (const doc of found.docs) tx.delete(doc.ref);
      const at = Timestamp.fromDate(now);
      tx.update(keyRef, { merchantId: input.to, claimedAt: at, reassignedAt: at, reassignedBy: input.by, reassignReason: input.reason, previousMerchantId: previousOwner });
      const details = { ai: input.ai, value: input.value, host: input.host, from: previousOwner, to: input.to, itemsRemoved: itemsRemoved + found.size, reason: input.reason };
      for (const merchantId of [previousOwner, input.to]) addAuditEvent(tx, { merchantId, uid: input.by, authMethod: "admin", keyPrefix: null, tool: "admin.gs1_reassign", status: "ok", durationMs: 0, details });
      return { previousOwner, docs: found.docs };
    });
    if (!done) continue;
    note(done.docs);
    return { previousOwner: done.previousOwner, itemsRemoved, removed };
  }
}

// ---- Company prefixes: an operator's approval (exclusive) and a workspace's DNS proof (lifts its claim limit) ----

export interface Gs1PrefixApproval {
  host: string;
  prefix: string;
  /** The workspace it is approved for; null withdraws the approval. */
  merchantId: string | null;
  by: string;
  reason: string;
}

/**
 * Approves a company prefix for one workspace on the host (or, with merchantId null, withdraws the
 * approval), audited in each workspace it concerns. Keys already claimed keep their owners: moving those
 * is a reassignment. Resolves to the workspace it was approved for before, if any.
 */
export async function setGs1PrefixApproval(input: Gs1PrefixApproval, now = new Date()): Promise<{ previous: string | null }> {
  const ref = approvalRef(input.host, input.prefix);
  const targetRef = input.merchantId ? db().collection(COLLECTIONS.workspaces).doc(input.merchantId) : undefined;
  return db().runTransaction(async (tx) => {
    const [snap, target] = await tx.getAll(ref, ...(targetRef ? [targetRef] : []));
    if (target && !target.exists) throw new AppError("NOT_FOUND", `No workspace ${input.merchantId}`, { hint: "Give the merchantId of the prefix holder's workspace." });
    const previous = snap.exists ? (snap.get("merchantId") as string) : null;
    if (input.merchantId) {
      tx.set(ref, { host: input.host, prefix: input.prefix, merchantId: input.merchantId, by: input.by, reason: input.reason, approvedAt: Timestamp.fromDate(now) });
    } else {
      tx.delete(ref);
    }
    const details = { host: input.host, companyPrefix: input.prefix, from: previous, to: input.merchantId, reason: input.reason };
    for (const merchantId of new Set([previous, input.merchantId].filter((m): m is string => m !== null))) {
      addAuditEvent(tx, { merchantId, uid: input.by, authMethod: "admin", keyPrefix: null, tool: "admin.gs1_prefix", status: "ok", durationMs: 0, details });
    }
    return { previous };
  });
}

/** The approval of a prefix on the host: its workspace, or undefined. */
export async function readGs1PrefixApproval(host: string, prefix: string): Promise<string | undefined> {
  const snap = await approvalRef(host, prefix).get();
  return snap.exists ? (snap.get("merchantId") as string) : undefined;
}

/** Records a workspace's DNS proof of a prefix (gs1/prefixVerify.ts), audited as the caller's change. */
export async function recordGs1PrefixProof(
  proof: { merchantId: string; host: string; prefix: string; domain: string },
  audit: { uid: string; authMethod: string; keyPrefix: string | null },
  now = new Date(),
): Promise<void> {
  await db().runTransaction(async (tx) => {
    tx.set(proofsOf(proof.merchantId).doc(proof.prefix), { host: proof.host, prefix: proof.prefix, domain: proof.domain, provenAt: Timestamp.fromDate(now) });
    addAuditEvent(tx, { merchantId: proof.merchantId, ...audit, tool: "gs1.prefix_proof", status: "ok", durationMs: 0, details: { companyPrefix: proof.prefix, domain: proof.domain, host: proof.host } });
  });
}
