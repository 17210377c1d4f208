// Firestore access for the OAuth server: pending authorization requests, codes, grants, and the access and
// refresh tokens of each grant. Codes and tokens are stored under their SHA-256 hash, never in clear.
// Redemption and rotation run in transactions, so a code or refresh token is spent exactly once.
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import type { Scope } from "../core/constants";
import { COLLECTIONS } from "./collections";
import { logOAuthGrantRevoked } from "../core/log";
import { dateOf, dateOrNull, listOf, readRecords, recordConverter } from "./records";

const col = (name: keyof typeof COLLECTIONS) => db().collection(COLLECTIONS[name]);
const ts = (d: Date) => Timestamp.fromDate(d);
/** Spent codes and refresh tokens are kept a week past expiry (TTL on `purgeAt`) so a replay is still recognised. */
const purgeAfter = (d: Date) => Timestamp.fromMillis(d.getTime() + 7 * 24 * 3600_000);

export interface PendingRequest {
  requestId: string;
  clientId: string;
  clientName: string;
  clientKind: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  expiresAt: Date;
  /** SHA-256 of the browser binding cookie set by /oauth/authorize: only that browser may decide. */
  browserHash: string;
}

export interface Grant {
  grantId: string;
  merchantId: string;
  uid: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
  resource: string;
  createdAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export interface CodeRecord {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/** What a successful redemption or refresh writes: hashes of the new tokens and their expiries. */
export interface IssuedHashes {
  accessHash: string;
  accessExpiresAt: Date;
  refreshHash: string;
  refreshExpiresAt: Date;
}

/** Outcome of spending a one-time secret: the grant, or why not (reuse revokes the grant). */
/** `revoked`: this attempt revoked the grant (a reuse of a live grant's code or refresh token). */
export type SpendOutcome = { ok: true; grant: Grant } | { ok: false; reason: "unknown" | "expired" | "reused" | "revoked"; revoked?: Grant };

/** An access or refresh token as stored under its hash (an access token is never marked used). */
interface TokenRecord {
  grantId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

const requestRecord = recordConverter<{ request: PendingRequest; consumed: boolean }>((d, requestId) => ({
  request: {
    requestId,
    clientId: d.clientId,
    clientName: d.clientName,
    clientKind: d.clientKind,
    redirectUri: d.redirectUri,
    state: d.state ?? null,
    codeChallenge: d.codeChallenge,
    scopes: listOf<Scope>(d.scopes),
    resource: d.resource,
    expiresAt: dateOf(d.expiresAt),
    browserHash: d.browserHash,
  },
  consumed: Boolean(d.consumedAt),
}));
const grantRecord = recordConverter<Grant>((d, grantId) => ({
  grantId,
  merchantId: d.merchantId,
  uid: d.uid,
  clientId: d.clientId,
  clientName: d.clientName,
  resource: d.resource,
  scopes: listOf<Scope>(d.scopes),
  createdAt: dateOrNull(d.createdAt),
  lastUsedAt: dateOrNull(d.lastUsedAt),
  revokedAt: dateOrNull(d.revokedAt),
  revokedReason: d.revokedReason ?? null,
}));
const authorizationCodeRecord = recordConverter<CodeRecord>((d) => ({
  grantId: d.grantId,
  clientId: d.clientId,
  redirectUri: d.redirectUri,
  codeChallenge: d.codeChallenge,
  resource: d.resource,
  expiresAt: dateOf(d.expiresAt),
  usedAt: dateOrNull(d.usedAt),
}));
const tokenRecord = recordConverter<TokenRecord>((d) => ({ grantId: d.grantId, expiresAt: dateOf(d.expiresAt), usedAt: dateOrNull(d.usedAt) }));

const requestRef = (requestId: string) => col("oauthRequests").doc(requestId).withConverter(requestRecord);
const grantRef = (grantId: string) => col("oauthGrants").doc(grantId).withConverter(grantRecord);
const tokenRef = (kind: "access" | "refresh", hash: string) => col(kind === "access" ? "oauthAccessTokens" : "oauthRefreshTokens").doc(hash).withConverter(tokenRecord);

export async function createPendingRequest(request: PendingRequest): Promise<void> {
  const { requestId, ...rest } = request;
  await col("oauthRequests").doc(requestId).create({ ...rest, expiresAt: ts(rest.expiresAt), consumedAt: null, createdAt: FieldValue.serverTimestamp() });
}

export async function getPendingRequest(requestId: string, now = new Date()): Promise<PendingRequest | undefined> {
  const found = (await requestRef(requestId).get()).data();
  if (!found || found.consumed || found.request.expiresAt <= now) return undefined;
  return found.request;
}

/**
 * Spends a pending request once (approve or deny) and, on approval, creates the grant and its code together.
 * Returns undefined when the request is unknown, expired or already decided.
 */
export async function decidePendingRequest(
  requestId: string,
  decision: { approve: false } | { approve: true; grant: Omit<Grant, "createdAt" | "lastUsedAt" | "revokedAt" | "revokedReason">; codeHash: string; codeExpiresAt: Date },
  now = new Date(),
): Promise<PendingRequest | undefined> {
  const ref = requestRef(requestId);
  return db().runTransaction(async (tx) => {
    const found = (await tx.get(ref)).data();
    if (!found || found.consumed || found.request.expiresAt <= now) return undefined;
    const { request } = found;
    tx.update(ref, { consumedAt: FieldValue.serverTimestamp(), approved: decision.approve });
    if (decision.approve) {
      const { grantId, ...grant } = decision.grant;
      tx.create(col("oauthGrants").doc(grantId), {
        ...grant,
        createdAt: FieldValue.serverTimestamp(),
        lastUsedAt: null,
        revokedAt: null,
        revokedReason: null,
      });
      tx.create(col("oauthCodes").doc(decision.codeHash), {
        grantId,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        expiresAt: ts(decision.codeExpiresAt),
        purgeAt: purgeAfter(decision.codeExpiresAt),
        usedAt: null,
      });
    }
    return request;
  });
}

function writeTokens(tx: Transaction, grantId: string, issued: IssuedHashes): void {
  tx.create(col("oauthAccessTokens").doc(issued.accessHash), { grantId, expiresAt: ts(issued.accessExpiresAt) });
  tx.create(col("oauthRefreshTokens").doc(issued.refreshHash), {
    grantId,
    expiresAt: ts(issued.refreshExpiresAt),
    purgeAt: purgeAfter(issued.refreshExpiresAt),
    usedAt: null,
  });
}

/** A revoked grant stays this long (the console shows why an app lost access), then TTL removes it. */
export const REVOKED_GRANT_RETENTION_DAYS = 90;

function revokeInTx(tx: Transaction, grantId: string, reason: string): void {
  tx.update(col("oauthGrants").doc(grantId), {
    revokedAt: FieldValue.serverTimestamp(),
    revokedReason: reason,
    purgeAt: Timestamp.fromMillis(Date.now() + REVOKED_GRANT_RETENTION_DAYS * 86_400_000),
  });
}

/**
 * Redeems an authorization code once. `check` throws for a request that does not match the code (client,
 * redirect URI, verifier, resource, account; the code stays unspent then), also for a code already spent:
 * only a request that would have redeemed it counts as a replay and revokes the grant, so holding a spent
 * code alone revokes nothing. `issue` returns the new tokens' hashes.
 */
export async function redeemCode(
  codeHash: string,
  check: (code: CodeRecord, grant: Grant) => Promise<void>,
  issue: (grantId: string) => IssuedHashes,
  now = new Date(),
): Promise<SpendOutcome> {
  const codeRef = col("oauthCodes").doc(codeHash).withConverter(authorizationCodeRecord);
  return db().runTransaction(async (tx): Promise<SpendOutcome> => {
    const code = (await tx.get(codeRef)).data();
    if (!code) return { ok: false, reason: "unknown" };
    const grant = (await tx.get(grantRef(code.grantId))).data();
    if (!grant) return { ok: false, reason: "unknown" };
    await check(code, grant);
    if (code.usedAt) {
      if (grant.revokedAt) return { ok: false, reason: "reused" };
      revokeInTx(tx, grant.grantId, "authorization code reused");
      return { ok: false, reason: "reused", revoked: grant };
    }
    if (code.expiresAt <= now) return { ok: false, reason: "expired" };
    if (grant.revokedAt) return { ok: false, reason: "revoked" };
    tx.update(codeRef, { usedAt: FieldValue.serverTimestamp() });
    writeTokens(tx, grant.grantId, issue(grant.grantId));
    return { ok: true, grant };
  });
}

/** The client an authorization code was issued to, or undefined for an unknown code (no transaction). */
export async function clientOfCode(codeHash: string): Promise<string | undefined> {
  const snap = await col("oauthCodes").doc(codeHash).get();
  return snap.exists ? (snap.get("clientId") as string) : undefined;
}

/**
 * Rotates a refresh token: the old one is spent, a new pair issued. `check` runs first (client, resource,
 * scope, account), so only a request that would have rotated it counts as reuse, which revokes the grant.
 */
export async function rotateRefreshToken(
  refreshHash: string,
  grantId: string,
  check: (grant: Grant) => Promise<void>,
  issued: IssuedHashes,
  now = new Date(),
): Promise<SpendOutcome> {
  const refreshRef = tokenRef("refresh", refreshHash);
  return db().runTransaction(async (tx): Promise<SpendOutcome> => {
    const [token, grant] = await readRecords([refreshRef, grantRef(grantId)], tx);
    if (!token || !grant || token.grantId !== grantId) return { ok: false, reason: "unknown" };
    await check(grant);
    if (token.usedAt) {
      if (grant.revokedAt) return { ok: false, reason: "reused" };
      revokeInTx(tx, grantId, "refresh token reused");
      return { ok: false, reason: "reused", revoked: grant };
    }
    if (grant.revokedAt) return { ok: false, reason: "revoked" };
    if (token.expiresAt <= now) return { ok: false, reason: "expired" };
    tx.update(refreshRef, { usedAt: FieldValue.serverTimestamp() });
    writeTokens(tx, grantId, issued);
    return { ok: true, grant };
  });
}

/** The access token (by hash) and its grant, in one round trip. */
export async function readAccessToken(accessHash: string, grantId: string): Promise<{ expiresAt: Date; grant: Grant } | undefined> {
  const [token, grant] = await readRecords([tokenRef("access", accessHash), grantRef(grantId)]);
  if (!token || !grant || token.grantId !== grantId) return undefined;
  return { expiresAt: token.expiresAt, grant };
}

export async function getGrant(grantId: string): Promise<Grant | undefined> {
  return (await grantRef(grantId).get()).data();
}

/** Revokes a grant (every token it issued stops working on the next request), logged once. Idempotent. */
export async function revokeGrant(grantId: string, reason: string): Promise<Grant | undefined> {
  const revoked = await db().runTransaction(async (tx) => {
    const grant = (await tx.get(grantRef(grantId))).data();
    if (!grant || grant.revokedAt) return false;
    revokeInTx(tx, grantId, reason);
    return true;
  });
  const grant = await getGrant(grantId);
  if (revoked && grant) logOAuthGrantRevoked({ grantId, reason, clientId: grant.clientId, uid: grant.uid, merchantId: grant.merchantId });
  return grant;
}

/**
 * Reads, inside `tx`, the live grants `uid` made for `merchantId` (they leave the workspace) and returns
 * the step that revokes them: a transaction does all its reads before its writes.
 */
export async function grantsOfUserRevocation(tx: Transaction, merchantId: string, uid: string): Promise<() => () => void> {
  const grants = await tx.get(col("oauthGrants").where("merchantId", "==", merchantId).where("uid", "==", uid));
  const reason = "member left the workspace";
  return () => {
    const live = grants.docs.filter((doc) => !doc.get("revokedAt"));
    for (const doc of live) revokeInTx(tx, doc.id, reason);
    // Logged by the caller once the transaction has committed (a retried transaction runs this again).
    return () => {
      for (const doc of live) logOAuthGrantRevoked({ grantId: doc.id, reason, clientId: doc.get("clientId"), uid, merchantId });
    };
  };
}

export async function listGrants(merchantId: string): Promise<Grant[]> {
  const snap = await col("oauthGrants").withConverter(grantRecord).where("merchantId", "==", merchantId).get();
  return snap.docs.map((d) => d.data()).sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
}

const LAST_USED_RESOLUTION_MS = 60_000;

/** Stamps use at most once a minute per grant, as keys do. */
export async function touchGrant(grant: Grant, now = new Date()): Promise<void> {
  if (grant.lastUsedAt && now.getTime() - grant.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  await col("oauthGrants").doc(grant.grantId).update({ lastUsedAt: FieldValue.serverTimestamp() });
}

/** Whether a token (by hash) exists and belongs to the grant: revocation must not act on a guessed grant id. */
export async function tokenBelongsToGrant(kind: "access" | "refresh", hash: string, grantId: string): Promise<boolean> {
  return (await tokenRef(kind, hash).get()).data()?.grantId === grantId;
}
