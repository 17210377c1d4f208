// Issue 20's findings on the OAuth authorization server, each as a test that failed before the change:
// grants outliving the account, errors redirected to any registered URI, consent from another browser,
// token endpoint limits per address and replayed codes revoking for anyone, the API CSP replaced,
// OAuth tokens taken by the bulk endpoint, and registered clients kept for ever.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import * as oauth from "oauth4webapi";
import { appUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { firestore } from "../helpers/merchants";
import { authorizeUrl, codeFor, consent, exchange, oauthFailure, refresh, REDIRECT_URI, serveClientMetadata, session, startAuthorization, tokensFor } from "../helpers/oauth";
import { rpc } from "../helpers/rpc";
import { auth } from "../../functions/src/core/firebase";
import { sha256Hex } from "../../functions/src/oauth/secrets";
import { RATE_LIMITS, subjectId, windowKey, type RateLimitName, type RateSubject } from "../../functions/src/core/rateLimit";
import { nextWholeSecond } from "../helpers/clock";


/**
 * Spends a limit's window for `subject` in this window and the next (a test may straddle the boundary), as
 * another instance would: its own share document (store/rateLimits.ts) holding the whole budget.
 */
async function exhaust(name: RateLimitName, subject: RateSubject): Promise<void> {
  const { max, windowSeconds } = RATE_LIMITS[name];
  const window = Math.floor(Date.now() / (windowSeconds * 1000));
  for (const w of [window, window + 1]) {
    const key = windowKey(name, subjectId(subject), w);
    await firestore().collection("rateLimits").doc(`${key}~test-instance`).set({ key, count: max, expiresAt: new Date((w + 2) * windowSeconds * 1000) });
  }
}

async function signInAgain(email: string): Promise<string> {
  const res = await fetch(`http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: "password-123", returnSecureToken: true }),
  });
  return ((await res.json()) as { idToken: string }).idToken;
}

describe("OAuth hardening", function () {
  this.timeout(90_000);

  describe("grants follow the account", () => {
    it("an access token and its refresh token stop when the person is disabled", async () => {
      const s = await session();
      const first = await tokensFor(s);
      const second = await refresh(s, first.refresh_token!); // the token endpoint asks Auth on every refresh
      await auth().updateUser(s.merchant.uid, { disabled: true });
      const call = await rpc("tools/list", {}, second.access_token);
      assert.equal(call.status, 401);
      assert.equal(call.body.error.data.code, "INVALID_TOKEN");
      assert.match(call.body.error.message, /disabled or deleted/);
      assert.deepEqual(await oauthFailure(refresh(s, second.refresh_token!)), { error: "invalid_grant", status: 400 });
    });

    it("an access token and its refresh token stop when the person is deleted", async () => {
      const s = await session();
      const tokens = await tokensFor(s);
      await auth().deleteUser(s.merchant.uid);
      assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 401);
      assert.deepEqual(await oauthFailure(refresh(s, tokens.refresh_token!)), { error: "invalid_grant", status: 400 });
    });

    it("signing out everywhere ends the grants made before it, not the ones made after", async () => {
      const s = await session();
      const before = await tokensFor(s);
      await nextWholeSecond(); // tokensValidAfterTime has one-second resolution, as ID tokens' iat
      await auth().revokeRefreshTokens(s.merchant.uid);
      const call = await rpc("tools/list", {}, before.access_token);
      assert.equal(call.status, 401);
      assert.match(call.body.error.message, /signed out everywhere/);
      assert.deepEqual(await oauthFailure(refresh(s, before.refresh_token!)), { error: "invalid_grant", status: 400 });

      await nextWholeSecond();
      s.merchant.idToken = await signInAgain(s.merchant.email);
      const after = await tokensFor(s);
      assert.equal((await rpc("tools/list", {}, after.access_token)).status, 200);
      assert.ok((await refresh(s, after.refresh_token!)).access_token);
    });
  });

  it("shows every authorize error before consent to the person and redirects nowhere; a denial still goes back", async () => {
    const s = await session();
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ response_type: "token" }, /unsupported_response_type/],
      [{ code_challenge: "" }, /PKCE is required/],
      [{ code_challenge_method: "plain" }, /S256/],
      [{ scope: "everything" }, /invalid_scope/],
      [{ resource: "https://evil.example/collect" }, /invalid_target/],
    ];
    for (const [extra, message] of cases) {
      const res = await s.net.fetch(String(authorizeUrl(s, challenge, extra)), { redirect: "manual" });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.headers.get("location"), null, JSON.stringify(extra));
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await res.text(), message);
    }
    const { redirect } = await codeFor(s, { approve: false });
    assert.equal(redirect.origin + redirect.pathname, REDIRECT_URI);
    assert.equal(redirect.searchParams.get("error"), "access_denied");
    assert.equal(redirect.searchParams.get("state"), "st-123");
  });

  describe("consent", () => {
    it("says where the app's name comes from: its metadata document's host, or an anonymous registration", async () => {
      const s = await session();
      const registered = await consent(s.net, authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())), s.merchant, { approve: false });
      assert.equal(registered.describe.client.documentHost, null);
      assert.equal(registered.describe.client.registration, "registered");

      const doc = await serveClientMetadata((clientId) => ({ client_id: clientId, client_name: "Claims To Be Famous", redirect_uris: [REDIRECT_URI] }));
      try {
        const url = authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), { client_id: doc.clientId });
        const { describe } = await consent(s.net, url, s.merchant, { approve: false });
        assert.equal(describe.client.name, "Claims To Be Famous");
        assert.equal(describe.client.documentHost, new URL(doc.clientId).host);
      } finally {
        await doc.close();
      }
    });

    it("takes the decision only from the browser that started the request; two tabs of one browser both work", async () => {
      const s = await session();
      const url = () => oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()).then((c) => authorizeUrl(s, c));
      const mine = await startAuthorization(s.net, await url());
      assert.match(mine.cookie, /^__session=[A-Za-z0-9_-]{43}$/);
      const theirs = await startAuthorization(newClient(), await url());
      assert.notEqual(theirs.cookie, mine.cookie);
      const api = `${appUrl()}/oauth/requests/${mine.consentUrl.searchParams.get("request")}`;
      const decide = (cookie?: string) =>
        s.net.fetch(api, {
          method: "POST",
          headers: { Authorization: `Bearer ${s.merchant.idToken}`, "Content-Type": "application/json", ...(cookie ? { Cookie: cookie } : {}) },
          body: JSON.stringify({ approve: true }),
        });
      for (const cookie of [undefined, theirs.cookie]) {
        const res = await decide(cookie);
        assert.equal(res.status, 403);
        assert.equal(((await res.json()) as any).error, "access_denied");
      }
      const look = await s.net.fetch(api, { headers: { Authorization: `Bearer ${s.merchant.idToken}`, Cookie: theirs.cookie } });
      assert.equal(look.status, 403);

      // A second tab: the browser sends its cookie back and keeps the same id, so the first request still works.
      const second = await s.net.fetch(String(await url()), { redirect: "manual", headers: { Cookie: mine.cookie } });
      assert.equal(second.status, 302);
      assert.equal(second.headers.getSetCookie()[0].split(";")[0], mine.cookie);
      const approved = await decide(mine.cookie);
      assert.equal(approved.status, 200);
      assert.ok(new URL(((await approved.json()) as any).redirect).searchParams.get("code"));
    });
  });

  describe("token endpoint", () => {
    it("a spent code replayed under another client_id revokes nothing; replayed by its own client it revokes the grant", async () => {
      const s = await session();
      const other = await session();
      const { verifier, redirect } = await codeFor(s);
      const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
      const tokens = await oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier));
      const foreign = oauth.authorizationCodeGrantRequest(other.as, other.client, oauth.None(), params, REDIRECT_URI, verifier, other.options);
      assert.deepEqual(await oauthFailure(foreign.then((res) => oauth.processAuthorizationCodeResponse(other.as, other.client, res))), { error: "invalid_grant", status: 400 });
      assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 200, "the grant survives a replay by someone else");
      assert.deepEqual(await oauthFailure(oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier))), { error: "invalid_grant", status: 400 });
      assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 401, "a replay by the client itself revokes");
    });

    it("limits per client and per grant; one address may send more than the old 120", async () => {
      const s = await session();
      const post = (body: Record<string, string>) =>
        s.net.fetch(`${appUrl()}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() });
      const junk = { grant_type: "authorization_code", client_id: s.client.client_id, code: "x".repeat(43), code_verifier: "v".repeat(43), redirect_uri: REDIRECT_URI };
      const statuses: number[] = [];
      for (let batch = 0; batch < 13; batch++) statuses.push(...(await Promise.all(Array.from({ length: 10 }, () => post(junk).then((r) => r.status)))));
      assert.deepEqual([...new Set(statuses)], [400], "130 token requests from one address, none limited");

      // Per grant: a grant at its limit cannot refresh; another grant of the same client still can.
      const a = await tokensFor(s);
      const b = await tokensFor(s);
      await exhaust("oauthTokenGrant", { keyId: /^svc_rt_(grant_[0-9a-f]{24})\./.exec(a.refresh_token!)![1] });
      assert.deepEqual(await oauthFailure(refresh(s, a.refresh_token!)), { error: "temporarily_unavailable", status: 429 });
      const bNext = await refresh(s, b.refresh_token!);
      assert.ok(bNext.access_token);

      // Junk tokens naming a grant do not spend it: 70 forged refreshes and revocations of b's grant (over
      // its 60), and b still refreshes.
      const bGrant = /^svc_rt_(grant_[0-9a-f]{24})\./.exec(b.refresh_token!)![1];
      const forged = `svc_rt_${bGrant}.${"A".repeat(43)}`;
      const forgedAnswers = await Promise.all(
        Array.from({ length: 70 }, (_, i) =>
          i % 2
            ? post({ grant_type: "refresh_token", client_id: s.client.client_id, refresh_token: forged }).then((r) => r.status)
            : s.net.fetch(`${appUrl()}/oauth/revoke`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: forged, client_id: s.client.client_id }).toString() }).then((r) => r.status),
        ),
      );
      assert.ok(forgedAnswers.every((status) => status === 400 || status === 200), JSON.stringify([...new Set(forgedAnswers)]));
      assert.ok((await refresh(s, bNext.refresh_token!)).access_token, "the real grant's budget is untouched");

      // Per client: junk codes naming a client do not spend its budget; a real code of a client at its limit waits.
      // A client that has redeemed nothing yet: an instance may hold quota leased for one that has.
      const c = await session();
      const { verifier, redirect } = await codeFor(c);
      const params = oauth.validateAuthResponse(c.as, c.client, redirect, "st-123");
      await exhaust("oauthTokenClient", { clientId: c.client.client_id });
      assert.equal((await post({ ...junk, client_id: c.client.client_id })).status, 400);
      const limited = await exchange(c, params, verifier);
      assert.equal(limited.headers.get("retry-after") !== null, true, "Retry-After on a 429");
      assert.deepEqual(await oauthFailure(oauth.processAuthorizationCodeResponse(c.as, c.client, limited)), { error: "temporarily_unavailable", status: 429 });
    });
  });

  it("keeps the strict API CSP on the OAuth app's answers; its error page allows only its own style", async () => {
    for (const [path, init] of [
      ["/.well-known/oauth-authorization-server", {}],
      ["/oauth/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=x" }],
    ] as const) {
      const res = await fetch(`${appUrl()}${path}`, init as RequestInit);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(res.headers.get("x-frame-options"), "DENY");
    }
    const page = await fetch(`${appUrl()}/oauth/authorize?client_id=nobody`);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'; style-src 'sha256-[^']+'/);
  });

  it("accepts OAuth access tokens at /api/mcp only, their audience", async () => {
    const s = await session();
    const tokens = await tokensFor(s);
    const bulk = await fetch(`${appUrl()}/api/bulk-qr-codes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ codes: [{ url: "https://example.com/a" }] }),
    });
    assert.equal(bulk.status, 401);
    const body = (await bulk.json()) as any;
    assert.equal(body.code, "INVALID_TOKEN");
    assert.match(body.message, /only at \/api\/mcp/);
    assert.equal((await rpc("tools/list", {}, tokens.access_token)).status, 200);
  });

  it("forgets registered clients unused for 90 days", async () => {
    const s = await session();
    const ref = firestore().collection("oauthClients").doc(sha256Hex(s.client.client_id));
    const { purgeAt, lastUsedAt } = (await ref.get()).data()!;
    assert.ok(lastUsedAt, "use is recorded");
    assert.ok(Math.abs(purgeAt.toMillis() - (Date.now() + 90 * 24 * 3600_000)) < 120_000, "purged 90 days after the last use");
    const ttl = JSON.parse(readFileSync(path.resolve(__dirname, "../../firestore.indexes.json"), "utf8")).fieldOverrides;
    assert.ok(ttl.some((o: any) => o.collectionGroup === "oauthClients" && o.fieldPath === "purgeAt" && o.ttl), "a TTL policy removes them");
    await ref.update({ purgeAt: new Date(Date.now() - 1000) }); // the TTL sweep may lag: reads honour purgeAt
    const res = await s.net.fetch(String(authorizeUrl(s, "c".repeat(43))), { redirect: "manual" });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Unknown client_id/);
  });
});
