import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import { fetchMetadataDocument, isAcceptableRedirectUri, isPublicAddress, type FetchGuards } from "../../functions/src/oauth/clients";
import { parseScopes } from "../../functions/src/oauth/authorize";
import { mcpChallenge } from "../../functions/src/oauth/metadata";
import { newGrantToken, pkceMatches } from "../../functions/src/oauth/secrets";
import { parseGrantToken } from "../../functions/src/auth/oauthAccess";
import { parseFormBody } from "../../functions/src/http/rest";
import { asOAuthError, oauthErrorResponse } from "../../functions/src/oauth/errors";
import { AppError } from "../../functions/src/core/errors";
import type { Request } from "express";

const formRequest = (text: string) => ({ rawBody: Buffer.from(text), headers: {} }) as unknown as Request;

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

  it("refuses the whole IANA special-purpose registries, IPv4-mapped addresses in any spelling included", () => {
    const special = [
      "::", "::127.0.0.1", "64:ff9b::808:808", "64:ff9b:1::1", "100::1", "100:0:0:1::1", "2001::1", "2001:2::1", "2001:20::1",
      "2001:db8::1", "2002:c000:204::1", "2620:4f:8000::1", "3fff::1", "5f00::1", "fc00::1", "fec0::1", "ff02::1",
      "0:0:0:0:0:ffff:7f00:1", "::ffff:8.8.8.8", "::FFFF:a00:1", "::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "0:0:0:0:ffff:0:808:808",
      "192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1", "192.31.196.1", "192.52.193.1", "192.175.48.1", "240.0.0.1", "255.255.255.255",
    ];
    for (const address of special) assert.equal(isPublicAddress(address), false, address);
    for (const open of ["2606:4700:4700::1111", "2a00:1450:4001::200e", "1.1.1.1"]) assert.equal(isPublicAddress(open), true, open);
  });

  describe("metadata document fetch guards (stubbed resolver; nothing leaves loopback)", () => {
    const outside = (resolve: FetchGuards["resolve"]): FetchGuards => ({ local: false, resolve, deadlineMs: 2000 });
    const refusal = (e: unknown) => (e as Error).message;

    it("takes port 443 only, before resolving anything", async () => {
      let asked = 0;
      const guards = outside(async () => (asked++, [{ address: "8.8.8.8", family: 4 }]));
      await assert.rejects(fetchMetadataDocument("https://client.example:8443/client.json", guards), /must be served on port 443/);
      await assert.rejects(fetchMetadataDocument("http://client.example/client.json", guards), /must be served over https/);
      assert.equal(asked, 0);
    });

    it("refuses names that resolve to special-purpose addresses, with the same words as names that do not resolve", async () => {
      const messages = new Set<string>();
      for (const answer of [[{ address: "10.0.0.5", family: 4 }], [{ address: "8.8.8.8", family: 4 }, { address: "fd12::1", family: 6 }], []]) {
        messages.add(await fetchMetadataDocument("https://client.example/client.json", outside(async () => answer)).then(() => "fetched", refusal));
      }
      const nxdomain = async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND client.example"), { code: "ENOTFOUND" });
      };
      messages.add(await fetchMetadataDocument("https://client.example/client.json", outside(nxdomain)).then(() => "fetched", refusal));
      assert.deepEqual([...messages], ["Client metadata document could not be fetched"]);
    });

    it("stops a document that drips in slowly at one overall deadline", async () => {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write("{");
        const drip = setInterval(() => res.write(" "), 50); // never idle, never done
        res.on("close", () => clearInterval(drip));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const started = Date.now();
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`;
        await assert.rejects(fetchMetadataDocument(url, { local: true, resolve: async () => [], deadlineMs: 400 }), /took longer than 400 ms/);
        assert.ok(Date.now() - started < 2000);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });

  it("parses scopes, tokens, form bodies and the MCP challenge", () => {
    // No scope asked: everything but the webhook scopes, which an app must ask for by name.
    assert.deepEqual(parseScopes(undefined), ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write"]);
    assert.deepEqual(parseScopes(""), parseScopes(undefined));
    assert.deepEqual(parseScopes("qr:write webhooks:read"), ["qr:write", "webhooks:read"]);
    assert.deepEqual(parseScopes("qr:write unknown qr:write"), ["qr:write"]);
    assert.equal(parseScopes("unknown"), undefined);
    const token = newGrantToken("at", "grant_0123456789abcdef01234567");
    assert.deepEqual(parseGrantToken(token, "at"), { grantId: "grant_0123456789abcdef01234567" });
    assert.equal(parseGrantToken(token, "rt"), undefined);
    assert.equal(mcpChallenge(200, {}), undefined);
    assert.match(mcpChallenge(401, { error: { data: { code: "NO_AUTH" } } })!, /^Bearer resource_metadata="http.*\/\.well-known\/oauth-protected-resource\/api\/mcp"$/);
    assert.match(mcpChallenge(401, { error: { data: { code: "INVALID_TOKEN" } } })!, /^Bearer error="invalid_token", resource_metadata=/);
  });

  it("reads a form body once per parameter: repeats refused, empty values absent, __proto__ a plain parameter", () => {
    assert.throws(() => parseFormBody(formRequest("a=1&a=2"), 1000), (e: AppError) => e.code === "VALIDATION_FAILED" && /repeated/.test(e.message));
    const parsed = parseFormBody(formRequest("grant_type=refresh_token&scope=&__proto__=x"), 1000);
    assert.deepEqual(Object.entries(parsed), [["grant_type", "refresh_token"], ["__proto__", "x"]]);
    assert.equal(Object.getPrototypeOf(parsed), null);
    assert.throws(() => parseFormBody(formRequest("a=" + "x".repeat(100)), 50), (e: AppError) => e.code === "PAYLOAD_TOO_LARGE");
  });

  it("names the edge's input errors as each OAuth endpoint's RFC does, with status 400", () => {
    const unsupported = new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
    assert.deepEqual(pick(asOAuthError(unsupported, "/oauth/register")), { status: 400, error: "invalid_client_metadata" });
    assert.deepEqual(pick(asOAuthError(unsupported, "/OAuth/Register/")), { status: 400, error: "invalid_client_metadata" });
    assert.deepEqual(pick(asOAuthError(unsupported, "/oauth/token")), { status: 400, error: "invalid_request" });
    const badUri = new AppError("VALIDATION_FAILED", "Invalid request body", { details: { issues: [{ path: "redirect_uris.0", message: "x", code: "custom" }] } });
    assert.deepEqual(pick(asOAuthError(badUri, "/oauth/register")), { status: 400, error: "invalid_redirect_uri" });
    const notAllowed = new AppError("METHOD_NOT_ALLOWED", "Method not allowed", { details: { allow: "POST" } });
    assert.deepEqual(pick(asOAuthError(notAllowed, "/oauth/token")), { status: 405, error: "invalid_request" });
    assert.deepEqual(pick(asOAuthError(new AppError("RATE_LIMITED", "slow down"), "/oauth/token")), { status: 429, error: "temporarily_unavailable" });
  });
});

function pick(err: AppError) {
  const { status, body } = oauthErrorResponse(err);
  return { status, error: body.error };
}
