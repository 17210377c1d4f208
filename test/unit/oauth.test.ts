import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { isAcceptableRedirectUri, isPublicAddress } from "../../functions/src/oauth/clients";
import { parseScopes } from "../../functions/src/oauth/authorize";
import { mcpChallenge } from "../../functions/src/oauth/metadata";
import { newGrantToken, parseGrantToken, pkceMatches } from "../../functions/src/oauth/secrets";
import { formParams } from "../../functions/src/oauth/token";

describe("OAuth units", () => {
  it("checks PKCE S256 as an independent client library computes it", async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    assert.equal(pkceMatches(verifier, challenge), true);
    assert.equal(pkceMatches(oauth.generateRandomCodeVerifier(), challenge), false);
    assert.equal(pkceMatches(verifier, "short"), false);
  });

  it("accepts https, loopback http and private-use redirect URIs only", () => {
    for (const ok of ["https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1:33418/cb", "http://localhost/cb", "http://[::1]:9/cb", "com.example.app:/cb"]) {
      assert.equal(isAcceptableRedirectUri(ok), true, ok);
    }
    for (const bad of ["http://evil.example/cb", "https://a.example/cb#frag", "javascript:alert(1)", "data:text/html,x", "not a url", "myapp:/cb"]) {
      assert.equal(isAcceptableRedirectUri(bad), false, bad);
    }
  });

  it("refuses non-public addresses for metadata document fetches", () => {
    for (const blocked of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1"]) {
      assert.equal(isPublicAddress(blocked), false, blocked);
    }
    for (const open of ["8.8.8.8", "142.250.1.1", "2001:4860:4860::8888"]) assert.equal(isPublicAddress(open), true, open);
  });

  it("parses scopes, tokens, form bodies and the MCP challenge", () => {
    assert.deepEqual(parseScopes(undefined), ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write"]);
    assert.deepEqual(parseScopes("qr:write unknown qr:write"), ["qr:write"]);
    assert.equal(parseScopes("unknown"), undefined);
    const token = newGrantToken("at", "grant_0123456789abcdef01234567");
    assert.deepEqual(parseGrantToken(token, "at"), { grantId: "grant_0123456789abcdef01234567" });
    assert.equal(parseGrantToken(token, "rt"), undefined);
    assert.throws(() => formParams("a=1&a=2"), /repeated/);
    assert.equal(mcpChallenge(200, {}), undefined);
    assert.match(mcpChallenge(401, { error: { data: { code: "NO_AUTH" } } })!, /^Bearer resource_metadata="http.*\/\.well-known\/oauth-protected-resource\/api\/mcp"$/);
    assert.match(mcpChallenge(401, { error: { data: { code: "INVALID_TOKEN" } } })!, /^Bearer error="invalid_token", resource_metadata=/);
  });
});
