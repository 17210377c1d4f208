// API key records. The document id is the SHA-256 of the key; the plaintext is never stored.
import { randomBytes } from "node:crypto";
import { FieldValue, type DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { Coalescer } from "../core/coalescer";
import { batchGetDocuments } from "../core/firestoreRest";
import type { Scope } from "../core/constants";
import { COLLECTIONS } from "./collections";
import { dateOrNull, listOf, recordConverter } from "./records";

export interface ApiKeyRecord {
  /** Document id: SHA-256 hex of the key. Server-side only; never returned to clients. */
  hash: string;
  /** Public handle used by the console and the CLI to name a key. */
  keyId: string;
  merchantId: string;
  uid: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A key's record as stored under its hash; a key from before names had none ("" then). */
const readApiKey = (data: DocumentData, hash: string): ApiKeyRecord => ({
  hash,
  keyId: data.keyId,
  merchantId: data.merchantId,
  uid: data.uid,
  name: data.name ?? "",
  prefix: data.prefix,
  scopes: listOf<Scope>(data.scopes),
  createdAt: dateOrNull(data.createdAt),
  lastUsedAt: dateOrNull(data.lastUsedAt),
  revokedAt: dateOrNull(data.revokedAt),
});
const apiKeyRecord = recordConverter<ApiKeyRecord>(readApiKey);

const keys = () => db().collection(COLLECTIONS.apiKeys).withConverter(apiKeyRecord);

/** Stores a new key's record under its hash (auth/apiKeys.ts mintApiKey makes the key; its plaintext is never stored). */
export async function createApiKeyRecord(id: string, input: { merchantId: string; uid: string; name: string; prefix: string; scopes: Scope[] }): Promise<ApiKeyRecord> {
  const doc = {
    keyId: `key_${randomBytes(8).toString("hex")}`,
    merchantId: input.merchantId,
    uid: input.uid,
    name: input.name,
    prefix: input.prefix,
    scopes: [...new Set(input.scopes)],
    createdAt: FieldValue.serverTimestamp(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await db().collection(COLLECTIONS.apiKeys).doc(id).create(doc);
  const record = (await keys().doc(id).get()).data();
  if (!record) throw new AppError("INTERNAL", "The new API key's record vanished after creation");
  return record;
}

// Concurrent key checks on one instance share a single batchGet round trip (never a cached answer). Calls
// with the same key in one round trip read its document once and share the record read (a busy key's
// calls mostly come together): the record is read-only to its callers. Every keyed request reads here, so
// it goes to Firestore's REST API directly (core/firestoreRest.ts), not through the client.
const keyReads = new Coalescer<string, ApiKeyRecord | undefined>(async (hashes) => {
  const distinct = [...new Set(hashes)];
  const stored = await batchGetDocuments(distinct.map((h) => `${COLLECTIONS.apiKeys}/${h}`));
  const records = stored.map((data, i) => data && readApiKey(data, distinct[i]));
  if (distinct.length === hashes.length) return records;
  const byHash = new Map(distinct.map((h, i) => [h, records[i]]));
  return hashes.map((h) => byHash.get(h));
});

export function findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
  return keyReads.submit(hash);
}

export async function listApiKeys(merchantId: string): Promise<ApiKeyRecord[]> {
  const snap = await keys().where("merchantId", "==", merchantId).get();
  return snap.docs
    .map((d) => d.data())
    .sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
}

/** Revokes by public keyId or display prefix, only within `merchantId`. Idempotent: returns the record. */
export async function revokeApiKey(merchantId: string, keyIdOrPrefix: string, allowedUid?: string): Promise<ApiKeyRecord> {
  const field = keyIdOrPrefix.startsWith("sk-svc-") ? "prefix" : "keyId";
  const candidates = (await keys().where("merchantId", "==", merchantId).where(field, "==", keyIdOrPrefix).get()).docs;
  if (candidates.length === 0) throw new AppError("NOT_FOUND", "No such API key in this workspace");
  if (candidates.length > 1) throw new AppError("CONFLICT", "Prefix matches several keys; revoke by keyId");
  const ref = candidates[0].ref;
  await db().runTransaction(async (tx) => {
    const key = (await tx.get(ref)).data();
    if (!key) throw new AppError("NOT_FOUND", "No such API key in this workspace");
    if (allowedUid && key.uid !== allowedUid) {
      throw new AppError("FORBIDDEN", "Members can revoke only their own keys");
    }
    if (!key.revokedAt) tx.update(ref, { revokedAt: FieldValue.serverTimestamp() });
  });
  const revoked = (await ref.get()).data();
  if (!revoked) throw new AppError("NOT_FOUND", "No such API key in this workspace");
  return revoked;
}

/** Whether a workspace's key (by keyId) still exists unrevoked: one indexed query, as revocation uses. */
export async function isKeyLive(merchantId: string, keyId: string): Promise<boolean> {
  const docs = (await keys().where("merchantId", "==", merchantId).where("keyId", "==", keyId).limit(1).get()).docs;
  return docs.length === 1 && !docs[0].get("revokedAt");
}

const LAST_USED_RESOLUTION_MS = 60_000;

/** Records use at most once a minute per key, so a busy key does not hammer one document. */
export async function touchApiKey(record: ApiKeyRecord, now = new Date()): Promise<void> {
  if (record.lastUsedAt && now.getTime() - record.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  await keys().doc(record.hash).update({ lastUsedAt: FieldValue.serverTimestamp() });
}

/**
 * Reads, inside `tx`, the keys `uid` minted in `merchantId` (they leave the workspace) and returns the step
 * that revokes the active ones: a transaction does all its reads before its writes.
 */
export async function keysOfMinterRevocation(tx: FirebaseFirestore.Transaction, merchantId: string, uid: string): Promise<() => void> {
  const minted = await tx.get(keys().where("merchantId", "==", merchantId).where("uid", "==", uid));
  return () => {
    for (const doc of minted.docs) if (!doc.get("revokedAt")) tx.update(doc.ref, { revokedAt: FieldValue.serverTimestamp(), revokedReason: "minter-left" });
  };
}
