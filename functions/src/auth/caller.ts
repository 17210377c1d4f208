// Turns request credentials into a verified Caller. Every surface that needs auth goes through here,
// and every tool derives the workspace from the Caller, never from its arguments.
import { AppError } from "../core/errors";
import { hashApiKey, isWellFormedApiKey, looksLikeApiKey } from "./apiKeys";
import { CONSOLE_USER_SCOPES, type Scope } from "./scopes";
import { findApiKeyByHash, touchApiKey } from "../store/apiKeys";
import { getMembership, type Role } from "../store/workspaces";
import { authenticateAccessToken, looksLikeAccessToken } from "./oauthAccess";
import { userStanding } from "./standing";
import { verifySession, verifySignIn, type VerifiedUser } from "./sessions";

export type AuthMethod = "api-key" | VerifiedUser["authMethod"] | "oauth";

export type { VerifiedUser };

export interface Caller {
  merchantId: string;
  uid: string;
  authMethod: AuthMethod;
  scopes: readonly Scope[];
  role?: Role;
  keyId?: string;
  keyPrefix?: string;
  isAdmin: boolean;
  /** Pending side work (last-used stamp) that the surface awaits before answering. */
  background?: Promise<unknown>;
}

export interface CredentialHeaders {
  authorization?: string;
  cookie?: string;
}

/** Firebase Hosting forwards only the cookie named `__session` to functions. */
export const SESSION_COOKIE_NAME = "__session";

type Credential = { kind: "bearer"; value: string } | { kind: "cookie"; value: string };

function readCredential(headers: CredentialHeaders): Credential {
  const header = headers.authorization?.trim();
  if (header) {
    const match = /^Bearer\s+(.*)$/i.exec(header);
    if (!match) throw new AppError("INVALID_TOKEN", "Authorization header must use the Bearer scheme");
    const value = match[1].trim();
    if (!value) throw new AppError("NO_AUTH", "Bearer credential is empty");
    return { kind: "bearer", value };
  }
  const cookie = parseCookie(headers.cookie ?? "", SESSION_COOKIE_NAME);
  if (cookie) return { kind: "cookie", value: cookie };
  throw new AppError("NO_AUTH", "No credential: send Authorization: Bearer <sk-svc- key or Firebase ID token>");
}

/** The named cookie's value; a value that is not valid percent-encoding is a malformed credential. */
function parseCookie(header: string, name: string): string | undefined {
  for (const part of header.split(";")) {
    const [k, ...rest] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      throw new AppError("INVALID_TOKEN", "Session cookie is malformed", { hint: "Sign in again." });
    }
  }
  return undefined;
}

/** How a request presents its credential, before anything is verified (the edge's cookie rules need it). */
export function credentialKind(headers: CredentialHeaders): "bearer" | "cookie" | "none" {
  if (headers.authorization?.trim()) return "bearer";
  return /(?:^|;)\s*__session=/.test(headers.cookie ?? "") ? "cookie" : "none";
}

/** A Bearer ID token or a session cookie, verified by auth/sessions.ts. */
function verifyFirebaseCredential(credential: Credential): Promise<VerifiedUser> {
  return credential.kind === "bearer" ? verifySignIn(credential.value) : verifySession(credential.value);
}

/** For console endpoints that work before a workspace exists (creating one). Rejects API keys. */
export async function verifyUser(headers: CredentialHeaders): Promise<VerifiedUser> {
  const credential = readCredential(headers);
  if (credential.kind === "bearer" && looksLikeApiKey(credential.value)) {
    throw new AppError("FORBIDDEN", "This endpoint needs a signed-in user, not an API key");
  }
  return verifyFirebaseCredential(credential);
}

/** The surface whose URL is the audience of OAuth access tokens (their grant's `resource`). */
export const OAUTH_AUDIENCE_SURFACE = "mcp";

export async function authenticate(headers: CredentialHeaders, surface?: string): Promise<Caller> {
  const credential = readCredential(headers);
  if (credential.kind === "bearer" && looksLikeApiKey(credential.value)) return authenticateApiKey(credential.value);
  if (credential.kind === "bearer" && looksLikeAccessToken(credential.value)) {
    // RFC 8707: a token is good only at the resource it was issued for (/api/mcp), not at any REST route.
    if (surface !== OAUTH_AUDIENCE_SURFACE) {
      throw new AppError("INVALID_TOKEN", "OAuth access tokens are accepted only at /api/mcp, the resource they were issued for", {
        hint: "Use an sk-svc- API key here.",
      });
    }
    return authenticateAccessToken(credential.value);
  }
  const user = await verifyFirebaseCredential(credential);
  return callerForUser(user);
}

export async function callerForUser(user: VerifiedUser): Promise<Caller> {
  const membership = await getMembership(user.uid);
  if (!membership) {
    throw new AppError("NO_WORKSPACE", "This user has no merchant workspace yet", {
      hint: "Open the console once (or POST /api/console/workspace) to create one.",
    });
  }
  return {
    merchantId: membership.merchantId,
    uid: user.uid,
    authMethod: user.authMethod,
    scopes: CONSOLE_USER_SCOPES,
    role: membership.role,
    isAdmin: user.isAdmin,
  };
}

async function authenticateApiKey(key: string): Promise<Caller> {
  if (!isWellFormedApiKey(key)) {
    throw new AppError("INVALID_API_KEY", "API key is malformed", { hint: "Keys look like sk-svc- followed by 64 hex characters." });
  }
  // Read on every request, never cached: a revocation takes effect on the very next call.
  const record = await findApiKeyByHash(hashApiKey(key));
  if (!record) throw new AppError("INVALID_API_KEY", "API key is not recognised", { hint: "Mint a key in the merchant console." });
  if (record.revokedAt) throw new AppError("REVOKED", "API key was revoked", { hint: "Mint a new key in the merchant console." });
  // A key acts for the person who minted it: leaving the workspace revokes their keys (store/workspaces.ts
  // removeMember), and a disabled minter's keys stop here.
  if (!(await userStanding(record.uid)).enabled) {
    throw new AppError("REVOKED", "API key no longer works: the person who minted it was disabled", {
      hint: "Mint a new key in the merchant console.",
    });
  }
  return {
    merchantId: record.merchantId,
    uid: record.uid,
    authMethod: "api-key",
    scopes: record.scopes,
    keyId: record.keyId,
    keyPrefix: record.prefix,
    isAdmin: false,
    background: touchApiKey(record).catch(() => undefined),
  };
}


export function requireScope(caller: Caller, scope: Scope | null, what: string): void {
  if (scope && !caller.scopes.includes(scope)) {
    throw new AppError("INSUFFICIENT_SCOPE", `${what} needs the scope ${scope}, which this credential does not carry`, {
      hint: `Mint a key with the ${scope} scope in the merchant console.`,
      details: { requiredScope: scope, grantedScopes: [...caller.scopes] },
    });
  }
}
