// The tool server's side: turns an OAuth access token into a Caller. Read on every request, never cached, so
// a revoked grant fails on the next call; unknown, expired or foreign-resource tokens fail closed as 401.
// A grant follows the account of the person who approved it, as keys follow their minter.
// The token format is read here, below the OAuth server (oauth/, which mints tokens with oauth/secrets.ts):
// callers are authenticated in auth/, whatever surface they come through.
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import type { Caller } from "./caller";
import { userStanding } from "./standing";
import { CONSOLE_USER_SCOPES } from "./scopes";
import { readAccessToken, touchGrant, type Grant } from "../store/oauthGrants";
import { sha256Hex } from "../core/hash";

export const ACCESS_TOKEN_PREFIX = "svc_at_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
/** `svc_<at|rt>_<grant id>.<secret>`, as oauth/secrets.ts newGrantToken writes them. */
const GRANT_TOKEN = /^svc_(at|rt)_(grant_[0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

/** The grant a well-formed token names, or undefined for anything else. */
export function parseGrantToken(token: string, kind: "at" | "rt"): { grantId: string } | undefined {
  const match = GRANT_TOKEN.exec(token);
  return match && match[1] === kind ? { grantId: match[2] } : undefined;
}

export function looksLikeAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

/**
 * Why a grant no longer works for its person's account, or undefined while it does: the person was
 * disabled or deleted, or signed out everywhere after approving (Auth's `tokensValidAfterTime`, second
 * resolution as for ID tokens). `fresh` skips the minute-long cache (the token endpoint asks each time).
 */
export async function accountProblem(grant: Pick<Grant, "uid" | "createdAt">, fresh = false): Promise<string | undefined> {
  const standing = await userStanding(grant.uid, { fresh });
  if (!standing.enabled) return "belongs to an account that was disabled or deleted";
  if (grant.createdAt && grant.createdAt.getTime() < standing.validAfterMs) return "was ended when its account signed out everywhere";
  return undefined;
}

export async function authenticateAccessToken(token: string, now = new Date()): Promise<Caller> {
  const invalid = (why: string) =>
    new AppError("INVALID_TOKEN", `OAuth access token ${why}`, { hint: "Refresh the token or authorize the app again.", details: { oauthError: "invalid_token" } });
  const parsed = parseGrantToken(token, "at");
  if (!parsed) throw invalid("is malformed");
  const found = await readAccessToken(sha256Hex(token), parsed.grantId);
  if (!found) throw invalid("is not recognised");
  if (found.expiresAt <= now) throw invalid("has expired");
  const { grant } = found;
  if (grant.revokedAt) throw invalid("belongs to a revoked grant");
  // The one resource tokens are minted for: the MCP endpoint (oauth/metadata.ts oauthUrls().resource).
  if (grant.resource !== getConfig().mcpFunctionUrl) throw invalid("was issued for another resource");
  const problem = await accountProblem(grant);
  if (problem) throw invalid(problem);
  return {
    merchantId: grant.merchantId,
    uid: grant.uid,
    authMethod: "oauth",
    scopes: grant.scopes.filter((s) => CONSOLE_USER_SCOPES.includes(s)),
    keyId: grant.grantId,
    keyPrefix: `oauth:${grant.grantId}`,
    isAdmin: false,
    background: touchGrant(grant).catch(() => undefined),
  };
}
