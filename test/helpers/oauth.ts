// OAuth test helpers: an in-memory OAuthClientProvider for the official SDK client, a loopback server that
// publishes a client metadata document, and the person's part of the flow (the consent page's two API calls,
// made with their ID token) for tests that do not drive a browser.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { TestClient } from "./clients";
import type { TestUser } from "./merchants";

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

/** The browser and the person: follow the authorization URL, then approve or deny on the consent API. */
export async function consent(
  client: TestClient,
  authorizationUrl: URL | string,
  user: TestUser,
  decision: { approve: boolean; scopes?: string[] } = { approve: true },
): Promise<{ redirect: URL; describe: any }> {
  const first = await client.fetch(String(authorizationUrl), { redirect: "manual" });
  const location = first.headers.get("location");
  if (first.status !== 302 || !location) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const consentUrl = new URL(location);
  if (consentUrl.pathname !== "/oauth/consent") return { redirect: consentUrl, describe: undefined }; // an error sent back to the client
  const requestId = consentUrl.searchParams.get("request")!;
  const api = `${consentUrl.origin}/oauth/requests/${requestId}`;
  const auth = { Authorization: `Bearer ${user.idToken}` };
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
