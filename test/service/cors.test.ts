// Issue 25: CORS decided in one place (functions/src/http/cors.ts), answered by the apps themselves through
// Hosting. Public APIs answer any origin with "*" (never a reflected origin, never credentials); the console,
// the HTML pages, the OAuth authorization page and the consent page's API answer no other origin; OAuth's
// discovery, registration, token and revocation endpoints are open for browser-based MCP clients.
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";

const ORIGIN = "https://client.example";

const preflight = (url: string, method = "POST") =>
  fetch(url, { method: "OPTIONS", headers: { Origin: ORIGIN, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization, content-type" } });

describe("CORS per surface (through Hosting)", () => {
  const open: Array<[string, string]> = [
    ["site", `${baseUrl()}/api/site.json`],
    ["mcp", `${appUrl()}/api/mcp`],
    ["bulk", `${appUrl()}/api/bulk-qr-codes`],
    ["sandbox", `${appUrl()}/api/generate-qr-code`],
    ["app scans", `${appUrl()}/api/scans`],
    ["images", `${appUrl()}/img/svg/abcdefghijkl.svg`],
    ["oauth token", `${appUrl()}/oauth/token`],
    ["oauth registration", `${appUrl()}/oauth/register`],
    ["oauth revocation", `${appUrl()}/oauth/revoke`],
    ["oauth metadata", `${appUrl()}/.well-known/oauth-authorization-server`],
    ["protected resource metadata", `${appUrl()}/.well-known/oauth-protected-resource/api/mcp`],
  ];
  for (const [surface, url] of open) {
    it(`${surface}: preflight answered "*" with the headers a bearer client sends, no credentials`, async () => {
      const res = await preflight(url);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.equal(res.headers.get("access-control-allow-credentials"), null);
      assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bPOST\b/);
      assert.match(res.headers.get("access-control-allow-headers") ?? "", /\bAuthorization\b.*\bContent-Type\b/);
      assert.equal(res.headers.get("access-control-max-age"), "3600");
    });
  }

  const closed: Array<[string, string]> = [
    ["console", `${appUrl()}/api/console/codes`],
    ["phone book page", `${baseUrl()}/phone-book`],
    ["oauth authorization page", `${appUrl()}/oauth/authorize`],
    ["oauth consent API", `${appUrl()}/oauth/requests/req_00000000000000000000000000000000`],
  ];
  for (const [surface, url] of closed) {
    it(`${surface}: no other origin is allowed, preflight or not`, async () => {
      const res = await preflight(url);
      assert.notEqual(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      const get = await fetch(url, { headers: { Origin: ORIGIN } });
      assert.equal(get.headers.get("access-control-allow-origin"), null);
    });
  }

  it("a cross-origin token request gets its OAuth error readable (\"*\") with the rate-limit headers exposed", async () => {
    const res = await fetch(`${appUrl()}/oauth/token`, {
      method: "POST",
      headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&client_id=nobody&refresh_token=junk",
    });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /Retry-After/);
    assert.equal(((await res.json()) as any).error, "invalid_grant");
  });
});
