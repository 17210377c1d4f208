// The authorization endpoint and the consent decision. GET /oauth/authorize checks the request; every error
// there is shown to the person, never redirected: anyone may register any https redirect URI, so sending
// errors back would make this an open redirector (RFC 9700 section 4.11.2). Only the person's decision goes
// back to the client (a code, or access_denied). A valid request is parked, bound to the browser that
// started it, and the browser sent to the consent page, which signs the person in and posts the decision
// with their ID token.
import type { Caller } from "../auth/caller";
import { ASK_BY_NAME_SCOPES, SCOPES, type Scope } from "../auth/scopes";
import { getWorkspace } from "../store/workspaces";
import { createPendingRequest, decidePendingRequest, getPendingRequest, type PendingRequest } from "../store/oauthGrants";
import { logOAuthForeignBrowser } from "../core/log";
import { OAUTH_REQUEST_ID_PATTERN } from "../core/ids";
import { resolveClient } from "./clients";
import { oauthError } from "./errors";
import { canonicalResource, CODE_TTL_MS, oauthUrls, PENDING_REQUEST_TTL_MS, scopesForResource } from "./metadata";
import { newGrantId, newSecret, randomId, sha256Hex } from "./secrets";

export type AuthorizeOutcome = { kind: "redirect"; location: string } | { kind: "error-page"; status: number; message: string };

/** The browser that started a request holds this id (a cookie, oauth/app.ts); the request keeps its hash. */
export const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;

const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) return undefined; // repeated parameters are invalid; treated as missing-or-bad
  return typeof value === "string" ? value : undefined;
}

function backToClient(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  url.searchParams.set("iss", oauthUrls().issuer); // RFC 9207
  return url.toString();
}

/**
 * Requested scopes, restricted to ours; an empty request means every scope the person may grant except
 * those an app must ask for by name (ASK_BY_NAME_SCOPES: webhooks).
 */
export function parseScopes(scope: string | undefined): Scope[] | undefined {
  if (scope === undefined || scope.trim() === "") return SCOPES.filter((s) => !ASK_BY_NAME_SCOPES.includes(s));
  const known = scope.split(/\s+/).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  return known.length ? [...new Set(known)] : undefined;
}

export async function startAuthorization(query: Record<string, unknown>, browserId: string): Promise<AuthorizeOutcome> {
  const clientId = single(query, "client_id");
  const redirectUri = single(query, "redirect_uri");
  const stop = (message: string): AuthorizeOutcome => ({ kind: "error-page", status: 400, message });
  if (!clientId) return stop("The request has no client_id.");
  let client;
  try {
    client = await resolveClient(clientId);
  } catch (error) {
    return stop(`This app could not be identified: ${(error as Error).message}`);
  }
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return stop("The redirect_uri does not exactly match one the app registered, so the request was stopped here.");
  }
  // Shown here rather than sent to the redirect URI (see the top of this file); the OAuth error code is
  // named so the app's developer can find it.
  if (single(query, "response_type") !== "code") return stop("The app's request is invalid (unsupported_response_type): response_type must be code.");
  const challenge = single(query, "code_challenge");
  if (!challenge || !CODE_CHALLENGE.test(challenge)) return stop("The app's request is invalid (invalid_request): PKCE is required, send code_challenge.");
  if (single(query, "code_challenge_method") !== "S256") return stop("The app's request is invalid (invalid_request): code_challenge_method must be S256.");
  const { resource: ourResource } = oauthUrls();
  const requested = single(query, "resource") ?? ourResource;
  const resource = canonicalResource(requested);
  if (resource !== ourResource) return stop(`The app's request is invalid (invalid_target): this server issues tokens only for ${ourResource}.`);
  const asked = parseScopes(single(query, "scope"));
  if (!asked) return stop(`The app's request is invalid (invalid_scope): unknown scope; use any of: ${SCOPES.join(" ")}.`);
  // A connection made at a read-only URL gets a read-only grant (its token works at every URL).
  const scopes = scopesForResource(requested, asked);

  const requestId = randomId("req_", 16);
  await createPendingRequest({
    requestId,
    clientId: client.clientId,
    clientName: client.clientName,
    clientKind: client.kind,
    redirectUri,
    state: single(query, "state") ?? null,
    codeChallenge: challenge,
    scopes,
    resource,
    expiresAt: new Date(Date.now() + PENDING_REQUEST_TTL_MS),
    browserHash: sha256Hex(browserId),
  });
  return { kind: "redirect", location: `${oauthUrls().consentPage}?request=${requestId}` };
}

const requestGone = () => oauthError("invalid_request", "This authorization request is unknown, expired or already decided; start again from the app", 404);

/** A pending request, if the browser asking is the one that started it (any of its binding cookies). */
async function pendingOrThrow(requestId: string, caller: Caller, browserIds: readonly string[]): Promise<PendingRequest> {
  const request = OAUTH_REQUEST_ID_PATTERN.test(requestId) ? await getPendingRequest(requestId) : undefined;
  if (!request) throw requestGone();
  if (!browserIds.some((id) => sha256Hex(id) === request.browserHash)) {
    logOAuthForeignBrowser({ requestId, clientId: request.clientId, uid: caller.uid });
    throw oauthError("access_denied", "This authorization request was started in another browser; start again from the app in this one", 403);
  }
  return request;
}

/** Where a client's identity comes from: the host serving its metadata document, or nowhere (DCR). */
function clientSource(request: PendingRequest): string | null {
  return request.clientKind === "metadata-document" ? new URL(request.clientId).host : null;
}

/** What the consent page shows: who asks, where the answer goes, for which workspace and scopes. */
export async function describeRequest(requestId: string, caller: Caller, browserIds: readonly string[]) {
  const request = await pendingOrThrow(requestId, caller, browserIds);
  const workspace = await getWorkspace(caller.merchantId);
  return {
    client: { id: request.clientId, name: request.clientName, registration: request.clientKind, verified: false, documentHost: clientSource(request) },
    redirectHost: new URL(request.redirectUri).host || request.redirectUri.split(":")[0],
    workspace: { merchantId: caller.merchantId, name: workspace?.name ?? caller.merchantId },
    scopes: request.scopes,
    resource: request.resource,
    expiresAt: request.expiresAt.toISOString(),
  };
}

/** Records the person's decision once and returns where to send the browser. */
export async function decide(
  requestId: string,
  caller: Caller,
  browserIds: readonly string[],
  input: { approve: boolean; scopes?: Scope[] },
): Promise<{ redirect: string }> {
  const request = await pendingOrThrow(requestId, caller, browserIds);
  if (!input.approve) {
    if (!(await decidePendingRequest(requestId, { approve: false }))) throw requestGone();
    return { redirect: backToClient(request.redirectUri, { error: "access_denied", error_description: "The user denied the request", state: request.state }) };
  }
  // The person may narrow what the app asked for, never widen it, and only to what they hold themselves.
  const chosen = input.scopes ?? request.scopes;
  const scopes = request.scopes.filter((s) => chosen.includes(s) && caller.scopes.includes(s));
  if (scopes.length === 0) throw oauthError("invalid_scope", "Choose at least one permission, or deny the request");
  const code = newSecret();
  const decided = await decidePendingRequest(requestId, {
    approve: true,
    grant: {
      grantId: newGrantId(),
      merchantId: caller.merchantId,
      uid: caller.uid,
      clientId: request.clientId,
      clientName: request.clientName,
      scopes,
      resource: request.resource,
    },
    codeHash: sha256Hex(code),
    codeExpiresAt: new Date(Date.now() + CODE_TTL_MS),
  });
  if (!decided) throw requestGone(); // decided concurrently in another tab
  return { redirect: backToClient(request.redirectUri, { code, state: request.state }) };
}
