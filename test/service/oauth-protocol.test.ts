import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { appUrl, mcpUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { createMerchant, firestore } from "../helpers/merchants";
import { authorizeUrl, codeFor, exchange, oauthFailure, REDIRECT_URI, SCOPES, serveClientMetadata, session, startAuthorization, tokensFor } from "../helpers/oauth";
import { callTool, rpc } from "../helpers/rpc";
import { sha256Hex } from "../../functions/src/oauth/secrets";

describe("OAuth: discovery and protocol rules", function () {
  this.timeout(60_000);

  it("challenges every 401 from /api/mcp with resource_metadata and publishes both metadata documents", async () => {
    const missing = await rpc("tools/list", {});
    assert.equal(missing.status, 401);
    const prmUrl = `${appUrl()}/.well-known/oauth-protected-resource/api/mcp`;
    assert.equal(missing.headers.get("www-authenticate"), `Bearer resource_metadata="${prmUrl}"`);
    const bad = await rpc("tools/list", {}, `svc_at_grant_${"0".repeat(24)}.${"A".repeat(43)}`);
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get("www-authenticate"), `Bearer error="invalid_token", resource_metadata="${prmUrl}"`);
    const badKey = await rpc("tools/list", {}, `sk-svc-${"1".repeat(64)}`);
    assert.match(badKey.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token", resource_metadata=/);

    const prm = (await (await fetch(prmUrl)).json()) as any;
    assert.equal(prm.resource, mcpUrl());
    assert.deepEqual(prm.authorization_servers, [appUrl()]);
    assert.deepEqual(prm.scopes_supported, SCOPES);
    const as = (await (await fetch(`${appUrl()}/.well-known/oauth-authorization-server`)).json()) as any;
    assert.equal(as.issuer, appUrl());
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(as.scopes_supported, SCOPES);
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.equal(as.registration_endpoint, `${appUrl()}/oauth/register`);
    assert.equal(as.revocation_endpoint, `${appUrl()}/oauth/revoke`);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.equal((await fetch(`${appUrl()}/.well-known/oauth-protected-resource/elsewhere`)).status, 404);
    const manifest = (await (await fetch(mcpUrl())).json()) as any;
    assert.deepEqual(manifest.auth.oauth, { resourceMetadata: prmUrl, authorizationServer: appUrl() });
  });

  it("protects the consent page and the authorize endpoint against framing", async () => {
    for (const path of ["/oauth/consent", "/oauth/authorize?client_id=nobody"]) {
      const res = await fetch(`${appUrl()}${path}`);
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/, path);
    }
  });

  it("redeems a code once with its verifier and refuses a wrong code_verifier with invalid_grant", async () => {
    const s = await session();
    const { verifier, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const wrong = await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, oauth.generateRandomCodeVerifier())));
    assert.deepEqual(wrong, { error: "invalid_grant", status: 400 });
    const tokens = await oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier));
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, SCOPES.join(" "));
    assert.equal((await callTool("svc.ping", {}, tokens.access_token)).body.result.structuredContent.authMethod, "oauth");
  });

  it("refuses a reused code and revokes the tokens it had issued", async () => {
    const s = await session();
    const { verifier, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const tokens = await oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier));
    const again = await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier)));
    assert.deepEqual(again, { error: "invalid_grant", status: 400 });
    const after = await rpc("tools/list", {}, tokens.access_token);
    assert.equal(after.status, 401);
    assert.equal(after.body.error.data.code, "INVALID_TOKEN");
  });

  it("refuses a code older than 60 seconds", async () => {
    const s = await session();
    const { verifier, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const codeDoc = firestore().collection("oauthCodes").doc(sha256Hex(params.get("code")!));
    const { expiresAt } = (await codeDoc.get()).data()!;
    assert.ok(expiresAt.toMillis() - Date.now() <= 60_000);
    await codeDoc.update({ expiresAt: new Date(Date.now() - 1000) });
    assert.deepEqual(await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier))), { error: "invalid_grant", status: 400 });
  });

  it("stops at the authorize endpoint for an unregistered redirect URI, and refuses one at the token endpoint", async () => {
    const s = await session();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizeUrl(s, await oauth.calculatePKCECodeChallenge(verifier), { redirect_uri: "http://127.0.0.1:33418/other" });
    const res = await s.net.fetch(String(url), { redirect: "manual" });
    assert.equal(res.status, 400, "no redirect to an unregistered URI");
    assert.equal(res.headers.get("location"), null);
    assert.match(await res.text(), /redirect_uri does not exactly match/);

    const { verifier: v2, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const mismatch = await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, v2, "http://127.0.0.1:33418/other")));
    assert.deepEqual(mismatch, { error: "invalid_grant", status: 400 });
  });

  it("refuses a token for another resource (RFC 8707 invalid_target) at both endpoints", async () => {
    const s = await session();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizeUrl(s, await oauth.calculatePKCECodeChallenge(verifier), { resource: "https://other.example/mcp" });
    const res = await s.net.fetch(String(url), { redirect: "manual" });
    assert.equal(res.status, 400, "shown to the person, not sent to the redirect URI");
    assert.equal(res.headers.get("location"), null);
    assert.match(await res.text(), /invalid_target/);

    const { verifier: v2, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const other = await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, v2, REDIRECT_URI, "https://other.example/mcp")));
    assert.deepEqual(other, { error: "invalid_target", status: 400 });
  });

  it("refuses at the tool server an access token whose grant is bound to another resource", async () => {
    const s = await session();
    const tokens = await tokensFor(s);
    const grantId = /^svc_at_(grant_[0-9a-f]{24})\./.exec(tokens.access_token)![1];
    await firestore().collection("oauthGrants").doc(grantId).update({ resource: "https://other.example/mcp" });
    const res = await rpc("tools/list", {}, tokens.access_token);
    assert.equal(res.status, 401);
    assert.match(res.body.error.message, /another resource/);
  });

  it("lists grants under Connected apps with last use, and revokes them for the workspace only", async () => {
    const s = await session();
    const tokens = await tokensFor(s);
    assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 200);
    const consoleApi = (path: string, idToken: string, method = "GET") =>
      s.net.fetch(`${appUrl()}/api/console${path}`, { method, headers: { Authorization: `Bearer ${idToken}` } });
    const { apps } = (await (await consoleApi("/connected-apps", s.merchant.idToken)).json()) as any;
    assert.equal(apps.length, 1);
    assert.equal(apps[0].clientName, "Protocol test client");
    assert.deepEqual(apps[0].scopes, SCOPES);
    assert.ok(apps[0].lastUsedAt, "last use is recorded");
    const stranger = await createMerchant();
    assert.equal((await consoleApi(`/connected-apps/${apps[0].grantId}/revoke`, stranger.idToken, "POST")).status, 404);
    assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 200);
    const revoked = (await (await consoleApi(`/connected-apps/${apps[0].grantId}/revoke`, s.merchant.idToken, "POST")).json()) as any;
    assert.ok(revoked.revokedAt);
    assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 401);
  });

  it("requires PKCE S256", async () => {
    const s = await session();
    for (const extra of [{ code_challenge: "" }, { code_challenge_method: "plain" }] as Record<string, string>[]) {
      const url = authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), extra);
      const res = await s.net.fetch(String(url), { redirect: "manual" });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      assert.match(await res.text(), /invalid_request/);
    }
  });

  it("rotates refresh tokens, and reusing an old one revokes the whole grant", async () => {
    const s = await session();
    const first = await tokensFor(s);
    const second = await oauth.processRefreshTokenResponse(s.as, s.client, await oauth.refreshTokenGrantRequest(s.as, s.client, oauth.None(), first.refresh_token!, s.options));
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await rpc("tools/list", {}, second.access_token)).status, 200);
    const reuse = await oauthFailure(oauth.processRefreshTokenResponse(s.as, s.client, await oauth.refreshTokenGrantRequest(s.as, s.client, oauth.None(), first.refresh_token!, s.options)));
    assert.deepEqual(reuse, { error: "invalid_grant", status: 400 });
    const revoked = await oauthFailure(oauth.processRefreshTokenResponse(s.as, s.client, await oauth.refreshTokenGrantRequest(s.as, s.client, oauth.None(), second.refresh_token!, s.options)));
    assert.deepEqual(revoked, { error: "invalid_grant", status: 400 });
    assert.equal((await rpc("tools/list", {}, second.access_token)).status, 401);
  });

  it("revokes a grant through RFC 7009, effective on the next request", async () => {
    const s = await session();
    const tokens = await tokensFor(s);
    assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(s.as, s.client, oauth.None(), tokens.access_token, s.options));
    const after = await rpc("tools/list", {}, tokens.access_token);
    assert.equal(after.status, 401);
    assert.match(after.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    const refresh = await oauthFailure(oauth.processRefreshTokenResponse(s.as, s.client, await oauth.refreshTokenGrantRequest(s.as, s.client, oauth.None(), tokens.refresh_token!, s.options)));
    assert.equal(refresh.error, "invalid_grant");
    // Unknown tokens are answered 200 as well (RFC 7009 section 2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(s.as, s.client, oauth.None(), "not-a-token", s.options));
  });

  it("returns access_denied with state and iss when the person denies, and honours narrowed scopes", async () => {
    const s = await session();
    const { redirect } = await codeFor(s, { approve: false });
    assert.equal(redirect.searchParams.get("error"), "access_denied");
    assert.equal(redirect.searchParams.get("state"), "st-123");
    assert.equal(redirect.searchParams.get("iss"), appUrl());
    assert.throws(() => oauth.validateAuthResponse(s.as, s.client, redirect, "st-123"), oauth.AuthorizationResponseError);

    const narrowed = await codeFor(s, { approve: true, scopes: ["merchant:read"] });
    const params = oauth.validateAuthResponse(s.as, s.client, narrowed.redirect, "st-123");
    const tokens = await oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, narrowed.verifier));
    assert.equal(tokens.scope, "merchant:read");
    const refused = await callTool("svc.qr.create", { url: "https://example.com" }, tokens.access_token);
    assert.equal(refused.body.error.data.code, "INSUFFICIENT_SCOPE");
    assert.equal((await callTool("svc.ping", {}, tokens.access_token)).body.result.structuredContent.authMethod, "oauth");
  });

  it("takes one decision per authorization request, from a signed-in person only", async () => {
    const s = await session();
    const url = authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()));
    const { consentUrl, cookie } = await startAuthorization(s.net, url);
    const api = `${appUrl()}/oauth/requests/${consentUrl.searchParams.get("request")}`;
    const post = (body: unknown, auth?: string) =>
      s.net.fetch(api, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie, ...(auth ? { Authorization: `Bearer ${auth}` } : {}) }, body: JSON.stringify(body) });
    const anonymous = await post({ approve: true });
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as any).error, "invalid_request");
    assert.equal((await post({ approve: true }, s.merchant.apiKey)).status, 403, "an API key cannot approve");
    assert.equal((await post({ approve: false }, s.merchant.idToken)).status, 200);
    const again = await post({ approve: true }, s.merchant.idToken);
    assert.equal(again.status, 404);
    assert.equal(((await again.json()) as any).error, "invalid_request");
  });

  it("refuses client metadata documents that do not name themselves, are too large or missing", async () => {
    const net = newClient();
    const tryAuthorize = async (clientId: string) => {
      const url = new URL(`${appUrl()}/oauth/authorize`);
      const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: "x".repeat(43), code_challenge_method: "S256" };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await net.fetch(String(url), { redirect: "manual" });
      return { status: res.status, location: res.headers.get("location"), text: await res.text() };
    };
    const cases: Array<[(id: string) => Record<string, unknown>, RegExp]> = [
      [() => ({ client_id: "https://someone-else.example/client.json", redirect_uris: [REDIRECT_URI] }), /does not equal its URL/],
      [(id) => ({ client_id: id, redirect_uris: [REDIRECT_URI], client_name: "x".repeat(9000) }), /larger than 8192 bytes/],
      [(id) => ({ client_id: id, redirect_uris: [REDIRECT_URI], client_secret: "s" }), /client_secret/],
    ];
    for (const [document, message] of cases) {
      const doc = await serveClientMetadata(document);
      try {
        const res = await tryAuthorize(doc.clientId);
        assert.equal(res.status, 400);
        assert.equal(res.location, null);
        assert.match(res.text, message);
        const missing = await tryAuthorize(`${doc.origin}/missing.json`);
        assert.match(missing.text, /answered HTTP 404/);
      } finally {
        await doc.close();
      }
    }
  });

  it("validates registrations: public clients only, acceptable redirect URIs, rate limited per address", async () => {
    const net = newClient();
    const register = (body: unknown) =>
      net.fetch(`${appUrl()}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const insecure = await register({ redirect_uris: ["http://evil.example/cb"] });
    assert.equal(insecure.status, 400);
    assert.equal(((await insecure.json()) as any).error, "invalid_redirect_uri");
    const secret = await register({ redirect_uris: [REDIRECT_URI], client_secret: "x" });
    assert.equal(((await secret.json()) as any).error, "invalid_client_metadata");
    const unknownClient = await net.fetch(`${appUrl()}/oauth/authorize?client_id=svc-client-${"0".repeat(32)}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`, { redirect: "manual" });
    assert.equal(unknownClient.status, 400);
    let last: Response | undefined;
    for (let i = 0; i < 19; i++) last = await register({ redirect_uris: [REDIRECT_URI] });
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get("retry-after")) > 0);
    assert.equal(((await last!.json()) as any).error, "temporarily_unavailable");
  });
});
