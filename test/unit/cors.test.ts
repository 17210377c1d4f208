// CORS is decided in functions/src/http/cors.ts for every surface; index.ts turns the platform's own CORS
// middleware off so nothing answers before it (the integration test checks the answers through Hosting).
import assert from "node:assert/strict";
import type { Request, Response } from "express";
import { CORS_POLICY, corsFor, type CorsSurface } from "../../functions/src/http/cors";

function answer(surface: CorsSurface, method: string, requestPath: string) {
  const headers: Record<string, string> = {};
  let status: number | undefined;
  let passed = false;
  const res = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    status(code: number) {
      status = code;
      return this;
    },
    end: () => undefined,
  };
  corsFor(surface)({ method, path: requestPath } as Request, res as unknown as Response, () => void (passed = true));
  return { headers, status, passed };
}

describe("CORS policy per surface", () => {
  it("answers preflight itself with * for the public APIs and passes the request on otherwise", () => {
    for (const surface of ["site", "mcp", "bulk", "sandbox", "images", "app-scans"] as const) {
      const preflight = answer(surface, "OPTIONS", "/anything");
      assert.deepEqual([preflight.status, preflight.passed, preflight.headers["access-control-allow-origin"]], [204, false, "*"], surface);
      assert.equal(preflight.headers["access-control-allow-credentials"], undefined);
      const post = answer(surface, "POST", "/anything");
      assert.deepEqual([post.status, post.passed, post.headers["access-control-allow-origin"]], [undefined, true, "*"], surface);
    }
  });

  it("opens nothing on the console and the pages", () => {
    for (const surface of ["console", "pages"] as const) {
      const preflight = answer(surface, "OPTIONS", "/api/console/codes");
      assert.deepEqual([preflight.status, preflight.passed, preflight.headers], [undefined, true, {}], surface);
    }
  });

  it("opens OAuth's discovery, registration, token and revocation endpoints only", () => {
    const open = ["/oauth/token", "/OAuth/Token/", "/oauth/register", "/oauth/revoke", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/api/mcp"];
    for (const p of open) assert.equal(answer("oauth", "OPTIONS", p).headers["access-control-allow-origin"], "*", p);
    for (const p of ["/oauth/authorize", "/oauth/requests/req_x", "/oauth/token/extra", "/oauth/consent"]) {
      const preflight = answer("oauth", "OPTIONS", p);
      assert.deepEqual([preflight.passed, preflight.headers], [true, {}], p);
    }
  });

  it("has a decision for every surface", () => {
    assert.deepEqual(Object.keys(CORS_POLICY).sort(), ["app-scans", "bulk", "console", "images", "mcp", "oauth", "pages", "sandbox", "site"]);
  });
});
