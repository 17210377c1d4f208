import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { baseUrl } from "../helpers/env";
import { contractChecker } from "../helpers/contract";

async function get(path: string, init?: RequestInit) {
  const res = await fetch(`${baseUrl()}${path}`, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { res, body };
}

function assertJsonError(body: any, status: number, code: string) {
  assert.equal(typeof body.error, "string");
  assert.equal(body.code, code);
  assert.equal(typeof body.message, "string");
  assert.ok(body.message.length > 0);
  assert.equal(typeof body.hint, "string");
  assert.equal(body.status, status);
}

describe("site metadata API (through Hosting)", () => {
  it("GET /api returns the discovery catalog with open CORS", async () => {
    const { res, body } = await get("/api");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("cache-control") ?? "", /max-age=\d+/);
    const links = body.links;
    for (const key of ["site", "status", "openapi", "mcp", "mcpManifest", "sandboxGenerator", "bulkGenerator", "docs", "phoneBook"]) {
      assert.ok(new URL(links[key]), `links.${key} is a URL`);
    }
    assert.equal(links.site, `${baseUrl()}/api/site.json`);
    assert.equal(links.mcp, `${baseUrl()}/api/mcp`);
    assert.ok(!/\/v\d+\//.test(JSON.stringify(links)), "no version segment in any path");
  });

  it("answers a CORS preflight", async () => {
    const res = await fetch(`${baseUrl()}/api`, {
      method: "OPTIONS",
      headers: { Origin: "https://example.com", "Access-Control-Request-Method": "GET" },
    });
    assert.equal(res.status, 204);
    // The app answers (http/cors.ts), the same in production and in the emulator: "*", not the origin.
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /GET/);
  });

  it("GET /api with an unknown query parameter is a 400 JsonError", async () => {
    const { res, body } = await get("/api?foo=1");
    assert.equal(res.status, 400);
    assertJsonError(body, 400, "UNKNOWN_QUERY_PARAMETER");
    assert.equal(body.path, "/api");
    assert.match(body.message, /foo/);
  });

  it("POST /api is a 405 JsonError with Allow", async () => {
    const { res, body } = await get("/api", { method: "POST" });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    assertJsonError(body, 405, "METHOD_NOT_ALLOWED");
  });

  it("unknown paths under /api are a 404 JsonError", async () => {
    for (const path of ["/api/nope", "/api/v1/site.json", "/api/site.json/extra"]) {
      const { res, body } = await get(path);
      assert.equal(res.status, 404, path);
      assertJsonError(body, 404, "NOT_FOUND");
      assert.equal(body.path, path);
    }
  });

  it("GET /api/site.json returns public metadata", async () => {
    const { res, body } = await get("/api/site.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(body.name, "svc");
    assert.equal(body.version, "1.0.0");
    assert.equal(body.urls.site, baseUrl());
    assert.match(body.contact.email, /@/);
  });

  it("GET /api/status.json reports Firestore reachable", async () => {
    const before = Date.now();
    const { res, body } = await get("/api/status.json");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(body.status, "ok");
    assert.equal(body.checks.firestore.ok, true);
    const time = Date.parse(body.time);
    assert.ok(Math.abs(time - before) < 60_000, "server time is current");
  });

  describe("OpenAPI document", () => {
    let doc: any;
    before(async () => {
      const catalog = await get("/api");
      const res = await fetch(catalog.body.links.openapi);
      assert.equal(res.status, 200);
      doc = await res.json();
    });

    it("is a valid OpenAPI 3.1.0 document, version 1.0.0", async () => {
      assert.equal(doc.openapi, "3.1.0");
      assert.equal(doc.info.version, "1.0.0");
      const result = await new Validator().validate(doc);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assert.deepEqual(
        ["/api", "/api/site.json", "/api/status.json", "/api/openapi.json"].map((p) => doc.paths[p].get.operationId),
        ["getApiCatalog", "getSiteMetadata", "getStatus", "getOpenApiDocument"],
      );
    });

    it("describes every real response", async () => {
      const check = contractChecker(doc);
      const cases: Array<[string, string, number]> = [
        ["/api", "/api", 200],
        ["/api", "/api?x=1", 400],
        ["/api/site.json", "/api/site.json", 200],
        ["/api/status.json", "/api/status.json", 200],
      ];
      for (const [path, url, status] of cases) {
        const { res, body } = await get(url);
        assert.equal(res.status, status, url);
        const schema = doc.paths[path].get.responses[String(status)].content["application/json"].schema;
        assert.equal(check(schema, body), undefined, url);
      }
    });
  });
});

describe("public site pages (Hosting)", () => {
  it("serves the home page, the reference page linked as docs, and a 404 page", async () => {
    const catalog: any = await (await fetch(`${baseUrl()}/api`)).json();
    const docs = await fetch(catalog.links.docs);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /svc reference/);
    assert.equal((await fetch(`${baseUrl()}/`)).status, 200);
    const missing = await fetch(`${baseUrl()}/no-such-page`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Page not found/);
  });
});
