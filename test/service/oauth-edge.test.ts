// Issue 25: OAuth's register, token, revoke and consent routes on the shared edge. What that brings besides
// the same answers on the wire: 405 with Allow for a wrong method (still an OAuth error body), a failed
// consent sign-in logged as auth.failed, token endpoint refusals as oauth.failed, and grant revocations
// (a replayed refresh token among them) as oauth.grant_revoked with their reason.
import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { logLinesWith } from "../helpers/logs";
import { oauthFailure, refresh, session, startAuthorization, authorizeUrl, tokensFor } from "../helpers/oauth";
import { newClient } from "../helpers/clients";
import * as oauth from "oauth4webapi";
import { eventually } from "../helpers/poll";

describe("OAuth on the shared edge", function () {
  this.timeout(90_000);

  it("answers a wrong method with 405, Allow and an OAuth error body", async () => {
    const cases: Array<[string, string, string]> = [
      ["GET", "/oauth/token", "POST"],
      ["PUT", "/oauth/register", "POST"],
      ["GET", "/oauth/revoke", "POST"],
      ["DELETE", "/oauth/requests/req_00000000000000000000000000000000", "GET, HEAD, POST"],
      ["POST", "/oauth/authorize", "GET, HEAD"],
      ["POST", "/.well-known/oauth-authorization-server", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await fetch(`${appUrl()}${path}`, { method });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), allow, `${method} ${path}`);
      assert.equal(res.headers.get("cache-control"), "no-store", `${method} ${path}`);
      const body = (await res.json()) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request", `${method} ${path}`);
      assert.match(body.error_description, /Method not allowed/);
    }
  });

  it("logs a failed sign-in on the consent API as auth.failed, never the token", async () => {
    const s = await session();
    const { consentUrl, cookie } = await startAuthorization(s.net, authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())));
    const requestId = consentUrl.searchParams.get("request")!;
    const bogus = `not-a-token-${requestId.slice(4, 20)}`;
    const res = await s.net.fetch(`${appUrl()}/oauth/requests/${requestId}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${bogus}`, Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ approve: true }),
    });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as any).error, "invalid_request");
    const lines = await logLinesWith(["auth.failed", `/oauth/requests/${requestId}`]);
    assert.equal(lines.length, 1, "one auth.failed event for the request");
    assert.match(lines[0], /"surface":\s*"oauth"/);
    assert.match(lines[0], /INVALID_TOKEN/);
    assert.ok(!lines[0].includes(bogus), "the credential is not in the log");
  });

  it("logs a replayed refresh token's revocation as oauth.grant_revoked, and the refusal as oauth.failed", async () => {
    const s = await session();
    const first = await tokensFor(s);
    const grantId = /^svc_rt_(grant_[0-9a-f]{24})\./.exec(first.refresh_token!)![1];
    await refresh(s, first.refresh_token!);
    assert.deepEqual(await oauthFailure(refresh(s, first.refresh_token!)), { error: "invalid_grant", status: 400 });

    const revoked = await logLinesWith(["oauth.grant_revoked", grantId]);
    assert.equal(revoked.length, 1, "the revocation is logged once");
    assert.match(revoked[0], /refresh token reused/);
    assert.match(revoked[0], new RegExp(`"clientId":\\s*"${s.client.client_id}"`));
    const refused = await logLinesWith(["oauth.failed", s.client.client_id, "invalid_grant"]);
    assert.ok(refused.some((line) => /"grantType":\s*"refresh_token"/.test(line) && /was already used/.test(line)));
    const secret = first.refresh_token!.split(".")[1];
    assert.ok(![...revoked, ...refused].some((line) => line.includes(secret)), "no token in the log");

    // A second replay is refused and logged too, and revokes nothing more: still one revocation event.
    const refusals = () => logLinesWith(["oauth.failed", s.client.client_id, "invalid_grant"]);
    const refusedBefore = (await refusals()).length;
    assert.deepEqual(await oauthFailure(refresh(s, first.refresh_token!)), { error: "invalid_grant", status: 400 });
    await eventually(async () => (await refusals()).length, (n) => n === refusedBefore + 1, { what: "the second replay's refusal logged" });
    assert.equal((await logLinesWith(["oauth.grant_revoked", grantId])).length, 1);
  });

  it("logs a client's revocation (RFC 7009) as oauth.grant_revoked", async () => {
    const s = await session();
    const tokens = await tokensFor(s);
    const grantId = /^svc_at_(grant_[0-9a-f]{24})\./.exec(tokens.access_token)![1];
    const res = await newClient().fetch(`${appUrl()}/oauth/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.access_token, client_id: s.client.client_id }).toString(),
    });
    assert.equal(res.status, 200);
    const lines = await logLinesWith(["oauth.grant_revoked", grantId]);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /revoked by the client \(access token\)/);
  });
});
