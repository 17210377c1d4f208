// Token endpoint (RFC 6749 section 3.2) and revocation endpoint (RFC 7009), for public clients identified by
// client_id alone. Codes are redeemed with their PKCE verifier; refresh tokens rotate, and a replayed one
// revokes the whole grant (OAuth 2.1, section 4.3.1). Limits are per client and per grant (codes and tokens
// are 256-bit, so guessing is not what they stop); the routes add a high per-address ceiling.
import { logOAuthGrantRefused, logOAuthGrantRevoked } from "../core/log";
import type { RateLimitName, RateSubject } from "../core/rateLimit";
import { clientOfCode, getGrant, redeemCode, revokeGrant, rotateRefreshToken, tokenBelongsToGrant, type Grant, type IssuedHashes, type SpendOutcome } from "../store/oauthGrants";
import { accountProblem, parseGrantToken } from "../auth/oauthAccess";
import { touchClient } from "./clients";
import { oauthError } from "./errors";
import { ACCESS_TOKEN_TTL_S, canonicalResource, REFRESH_TOKEN_TTL_MS } from "./metadata";
import type { RevocationRequest, TokenRequest } from "./schemas";
import { newGrantToken, pkceMatches, sha256Hex } from "./secrets";

/** Counts a request against a per-client or per-grant limit (the route's, so headers and logs are the edge's). */
export type Limit = (name: RateLimitName, subject: RateSubject) => Promise<unknown>;

function required<T extends object>(params: T, name: keyof T & string): string {
  const value = params[name];
  if (typeof value !== "string" || value === "") throw oauthError("invalid_request", `${name} is required`);
  return value;
}

function newTokens(grantId: string) {
  const accessToken = newGrantToken("at", grantId);
  const refreshToken = newGrantToken("rt", grantId);
  const hashes: IssuedHashes = {
    accessHash: sha256Hex(accessToken),
    accessExpiresAt: new Date(Date.now() + ACCESS_TOKEN_TTL_S * 1000),
    refreshHash: sha256Hex(refreshToken),
    refreshExpiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_MS),
  };
  return { accessToken, refreshToken, hashes };
}

function checkResource(params: TokenRequest, bound: string): void {
  const resource = params.resource;
  if (resource !== undefined && canonicalResource(resource) !== bound) throw oauthError("invalid_target", `The grant is bound to ${bound}, not ${resource}`);
}

const REASONS: Record<Exclude<SpendOutcome, { ok: true }>["reason"], string> = {
  unknown: "is not recognised",
  expired: "has expired",
  reused: "was already used; the grant it belonged to is now revoked",
  revoked: "belongs to a revoked grant",
};

function tokenResponse(accessToken: string, refreshToken: string, grant: Grant) {
  return { access_token: accessToken, token_type: "Bearer" as const, expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refreshToken, scope: grant.scopes.join(" ") };
}

/** Refuses a grant whose person was disabled, deleted or signed out everywhere (asked of Auth each time). */
async function requireAccountInStanding(grant: Grant, what: string): Promise<void> {
  const problem = await accountProblem(grant, true);
  if (!problem) return;
  logOAuthGrantRefused({ grantId: grant.grantId, clientId: grant.clientId, uid: grant.uid, reason: problem });
  throw oauthError("invalid_grant", `The ${what} ${problem}`);
}

function failure(what: string, outcome: Exclude<SpendOutcome, { ok: true }>) {
  const grant = outcome.revoked;
  if (grant) logOAuthGrantRevoked({ grantId: grant.grantId, reason: `${what} reused`, clientId: grant.clientId, uid: grant.uid, merchantId: grant.merchantId });
  return oauthError("invalid_grant", `The ${what} ${REASONS[outcome.reason]}`);
}

export async function exchange(params: TokenRequest, limit: Limit) {
  const grantType = required(params, "grant_type");
  const clientId = required(params, "client_id");
  if (grantType === "authorization_code") {
    const code = required(params, "code");
    const verifier = required(params, "code_verifier");
    const redirectUri = required(params, "redirect_uri");
    const codeHash = sha256Hex(code);
    // Counted against the client only for a real code of that client: anyone can name a public client_id,
    // and junk codes must not spend its budget (the per-address ceiling bounds those).
    if ((await clientOfCode(codeHash)) === clientId) await limit("oauthTokenClient", { clientId });
    // Tokens name their grant, which only the code record knows: they are minted inside the transaction.
    let minted: ReturnType<typeof newTokens> | undefined;
    const outcome = await redeemCode(
      codeHash,
      async (record, grant) => {
        if (record.clientId !== clientId) throw oauthError("invalid_grant", "The code was issued to another client");
        if (record.redirectUri !== redirectUri) throw oauthError("invalid_grant", "redirect_uri does not match the authorization request");
        if (!pkceMatches(verifier, record.codeChallenge)) throw oauthError("invalid_grant", "code_verifier does not match the code_challenge");
        checkResource(params, record.resource);
        await requireAccountInStanding(grant, "authorization code");
      },
      (id) => (minted = newTokens(id)).hashes,
    );
    if (!outcome.ok) throw failure("authorization code", outcome);
    await touchClient(clientId);
    return tokenResponse(minted!.accessToken, minted!.refreshToken, outcome.grant);
  }
  if (grantType === "refresh_token") {
    const refreshToken = required(params, "refresh_token");
    const parsed = parseGrantToken(refreshToken, "rt");
    if (!parsed) throw oauthError("invalid_grant", "The refresh token is not recognised");
    // Anyone can write a grant id into a junk token: only a token the grant issued spends its budget
    // (junk is held to the per-address limit instead).
    if (!(await tokenBelongsToGrant("refresh", sha256Hex(refreshToken), parsed.grantId))) throw oauthError("invalid_grant", "The refresh token is not recognised");
    await limit("oauthTokenGrant", { keyId: parsed.grantId });
    const scope = params.scope;
    const minted = newTokens(parsed.grantId);
    const outcome = await rotateRefreshToken(
      sha256Hex(refreshToken),
      parsed.grantId,
      async (grant) => {
        if (grant.clientId !== clientId) throw oauthError("invalid_grant", "The refresh token was issued to another client");
        checkResource(params, grant.resource);
        if (scope && scope.split(/\s+/).some((s) => !(grant.scopes as string[]).includes(s))) {
          throw oauthError("invalid_scope", "A refresh cannot add scopes the grant does not hold");
        }
        await requireAccountInStanding(grant, "refresh token");
      },
      minted.hashes,
    );
    if (!outcome.ok) throw failure("refresh token", outcome);
    await touchClient(clientId);
    return tokenResponse(minted.accessToken, minted.refreshToken, outcome.grant);
  }
  throw oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

/** RFC 7009: revoking either token of a grant revokes the grant. Unknown tokens answer 200 all the same. */
export async function revoke(params: RevocationRequest, limit: Limit): Promise<void> {
  const token = required(params, "token");
  const clientId = required(params, "client_id");
  const hint = params.token_type_hint;
  if (hint !== undefined && hint !== "access_token" && hint !== "refresh_token") {
    throw oauthError("unsupported_token_type", "token_type_hint must be access_token or refresh_token");
  }
  const kind = parseGrantToken(token, "at") ? "access" : parseGrantToken(token, "rt") ? "refresh" : undefined;
  if (!kind) return;
  const { grantId } = parseGrantToken(token, kind === "access" ? "at" : "rt")!;
  if (!(await tokenBelongsToGrant(kind, sha256Hex(token), grantId))) return;
  await limit("oauthTokenGrant", { keyId: grantId }); // only once the token is proven the grant's
  const grant = await getGrant(grantId);
  if (!grant) return;
  if (grant.clientId !== clientId) throw oauthError("unauthorized_client", "This token was not issued to this client");
  await revokeGrant(grantId, `revoked by the client (${kind} token)`);
}
