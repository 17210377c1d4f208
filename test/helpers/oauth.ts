// OAuth test helpers: an in-memory OAuthClientProvider for the official SDK client, a loopback server that
// publishes a client metadata document, and the person's part of the flow (the consent page's two API calls,
// made with their ID token) for tests that do not drive a browser.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { appUrl, mcpUrl } from "./env";
import { newClient, type TestClient } from "./clients";
import { createMerchant, type TestMerchant, type TestUser } from "./merchants";

export const REDIRECT_URI = "http://127.0.0.1:33418/callback";

export class MemoryOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;

  constructor(
    readonly clientMetadata: OAuthClientMetadata = { client_name: "svc SDK test client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" },
    preset?: OAuthClientInformationMixed,
  ) {
    this.info = preset;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * The browser's first step: GET the authorization URL, which parks the request and answers 302 to the consent
 * page with the browser binding cookie; returns the consent page URL and the Cookie header to send back.
 */
export async function startAuthorization(client: TestClient, authorizationUrl: URL | string): Promise<{ consentUrl: URL; cookie: string }> {
  const first = await client.fetch(String(authorizationUrl), { redirect: "manual" });
  const location = first.headers.get("location");
  if (first.status !== 302 || !location) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const consentUrl = new URL(location, String(authorizationUrl));
  if (consentUrl.pathname !== "/oauth/consent") throw new Error(`authorize redirected to ${consentUrl}, not the consent page`);
  const cookie = first.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { consentUrl, cookie };
}

/** The browser and the person: follow the authorization URL, then approve or deny on the consent API. */
export async function consent(
  client: TestClient,
  authorizationUrl: URL | string,
  user: TestUser,
  decision: { approve: boolean; scopes?: string[] } = { approve: true },
): Promise<{ redirect: URL; describe: any }> {
  const { consentUrl, cookie } = await startAuthorization(client, authorizationUrl);
  const requestId = consentUrl.searchParams.get("request")!;
  const api = `${consentUrl.origin}/oauth/requests/${requestId}`;
  const auth = { Authorization: `Bearer ${user.idToken}`, Cookie: cookie };
  const describe = await (await client.fetch(api, { headers: auth })).json();
  const res = await client.fetch(api, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify(decision) });
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`decision answered ${res.status}: ${JSON.stringify(body)}`);
  return { redirect: new URL(body.redirect), describe };
}

/**
 * Serves one client metadata document from loopback, as a client publishing its client_id URL would, and
 * a callback page at `<origin>/callback` for tests whose browser comes back there.
 */
export async function serveClientMetadata(
  document: (clientId: string) => Record<string, unknown>,
): Promise<{ clientId: string; origin: string; fetches: () => number; close: () => Promise<void> }> {
  let count = 0;
  let clientId = "";
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith("/callback")) {
      res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>callback</title><p>Back in the app.</p>");
      return;
    }
    if (req.url !== "/oauth/client.json") {
      res.writeHead(404).end();
      return;
    }
    count++;
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "max-age=300" }).end(JSON.stringify(document(clientId)));
  });
  server.keepAliveTimeout = 100; // a browser's idle connection must not hold close() open
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  clientId = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client.json`;
  return { clientId, origin: new URL(clientId).origin, fetches: () => count, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

// oauth4webapi as the client: a registered client and a merchant, and the steps of the code flow.
export const SCOPES = ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write", "webhooks:read", "webhooks:write", "domains:read", "domains:write", "conversions:write"];

export interface Session {
  net: TestClient;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  merchant: TestMerchant;
  options: oauth.TokenEndpointRequestOptions;
}

export async function session(): Promise<Session> {
  const net = newClient();
  const options = { [oauth.customFetch]: net.fetch as typeof fetch, [oauth.allowInsecureRequests]: true };
  const issuer = new URL(appUrl());
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }));
  const reg = await net.fetch(as.registration_endpoint!, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Protocol test client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
  });
  assert.equal(reg.status, 201);
  const { client_id } = (await reg.json()) as { client_id: string };
  return { net, as, client: { client_id, token_endpoint_auth_method: "none" }, merchant: await createMerchant(), options };
}

export function authorizeUrl(s: Session, challenge: string, extra: Record<string, string> = {}): URL {
  const url = new URL(s.as.authorization_endpoint!);
  const params = { response_type: "code", client_id: s.client.client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: "S256", state: "st-123", resource: mcpUrl(), scope: SCOPES.join(" "), ...extra };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

/** Authorization up to the redirect back to the client, checked with oauth4webapi (state and RFC 9207 iss). */
export async function codeFor(s: Session, decision?: { approve: boolean; scopes?: string[] }, extra?: Record<string, string>) {
  const verifier = oauth.generateRandomCodeVerifier();
  const { redirect } = await consent(s.net, authorizeUrl(s, await oauth.calculatePKCECodeChallenge(verifier), extra), s.merchant, decision);
  return { verifier, redirect };
}

export const exchange = (s: Session, params: URLSearchParams, verifier: string, redirectUri = REDIRECT_URI, resource = mcpUrl()) =>
  oauth.authorizationCodeGrantRequest(s.as, s.client, oauth.None(), params, redirectUri, verifier, { ...s.options, additionalParameters: { resource } });

export async function tokensFor(s: Session) {
  const { verifier, redirect } = await codeFor(s);
  const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
  return oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier));
}

/** The OAuth error a token endpoint response carries, via oauth4webapi's own parsing. */
export async function oauthFailure(response: Promise<unknown>): Promise<{ error: string; status: number }> {
  try {
    await response;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) return { error: e.error, status: e.status };
    throw e;
  }
  throw new Error("expected an OAuth error response");
}

export const refresh = (s: Session, refreshToken: string) =>
  oauth.refreshTokenGrantRequest(s.as, s.client, oauth.None(), refreshToken, s.options).then((res) => oauth.processRefreshTokenResponse(s.as, s.client, res));
