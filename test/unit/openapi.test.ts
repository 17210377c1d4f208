// The generated contract (functions/src/contract/openapi.ts): a valid OpenAPI 3.1 document that Spectral's
// `oas` ruleset passes without an error or a warning, that lists every route the public apps mount (and the
// apps mount nothing else), and whose examples satisfy their schemas, both the document's and the zod ones.
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Document, Spectral } from "@stoplight/spectral-core";
import * as Parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import type { Express } from "express";
import { buildOpenApiDocument, openApiPath, operationIdOf } from "../../functions/src/contract/openapi";
import { publicSurfaces, siteApp } from "../../functions/src/contract/surfaces";
import type { Endpoint } from "../../functions/src/http/endpoint";
import { contractChecker } from "../helpers/contract";
import { sandboxApp } from "../../functions/src/sandbox/app";
import { bulkApp } from "../../functions/src/bulk/app";
import { imagesApp } from "../../functions/src/images/app";
import { consoleApp, consoleRoutes } from "../../functions/src/console/app";
import { appScansApp } from "../../functions/src/redirect/app";
import { oauthApp } from "../../functions/src/oauth/app";

const METHODS = ["get", "post", "delete"] as const;
const doc: any = buildOpenApiDocument(publicSurfaces());

/** Method and path of every route an express app registered (express 5: app.router.stack). */
function mountedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }).router.stack;
  return stack.flatMap((layer) => {
    if (!layer.route) return [];
    // mountEndpoints adds an `all` route per path (every method) for its 405: it answers no operation.
    if (Object.keys(layer.route.methods).length > 10) return [];
    return Object.keys(layer.route.methods)
      .filter((m) => m !== "head")
      .map((m) => `${m.toUpperCase()} ${layer.route!.path}`);
  });
}

const key = (e: Endpoint) => `${e.method} ${e.path}`;

describe("OpenAPI contract (generated)", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    assert.equal(doc.openapi, "3.1.0");
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
  });

  it("passes Spectral's oas ruleset (all rules) with no error and no warning", async function () {
    this.timeout(60_000);
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "all"]] });
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 1), Parsers.Json));
    const problems = results.filter((r) => r.severity <= 1).map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`);
    assert.deepEqual(problems, []);
  });

  it("documents every route each public app mounts, and each app mounts only its list", () => {
    const apps: Record<string, Express> = {
      Discovery: siteApp,
      Sandbox: sandboxApp,
      Bulk: bulkApp,
      Files: imagesApp,
      "App scans": appScansApp,
      OAuth: oauthApp,
    };
    // OAuth's bespoke routes (issue 25): the HTML authorization page and the discovery documents, which
    // are RFC 8414 / 9728 documents of their own and not API operations.
    const bespoke: Record<string, string[]> = {
      OAuth: [
        "GET /.well-known/oauth-protected-resource",
        "GET /.well-known/oauth-protected-resource/*rest",
        "GET /.well-known/oauth-authorization-server",
        "GET /oauth/authorize",
      ],
    };
    const surfaces = publicSurfaces();
    assert.deepEqual(surfaces.map((s) => s.tag).sort(), Object.keys(apps).sort(), "every public app has a surface");
    for (const surface of surfaces) {
      const own = bespoke[surface.tag] ?? [];
      assert.deepEqual(
        mountedRoutes(apps[surface.tag]).filter((r) => !own.includes(r)).sort(),
        surface.routes.map(key).sort(),
        `${surface.tag}: the app mounts exactly its route list`,
      );
      for (const route of surface.routes) {
        // Only OAuth's consent page API is internal among the public surfaces: the page is ours.
        if (route.spec.internal) {
          assert.equal(surface.tag, "OAuth", `${key(route)} is public`);
          assert.ok(route.path.startsWith("/oauth/requests/"), `${key(route)} is the consent page's`);
          assert.equal(doc.paths[openApiPath(route.path)], undefined, `${key(route)} is left out`);
          continue;
        }
        const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
        assert.ok(operation, `${key(route)} is in the document`);
        assert.equal(operation.operationId, operationIdOf(route.spec));
      }
    }
  });

  it("leaves the console's API out: every console route is internal", () => {
    assert.deepEqual(mountedRoutes(consoleApp).sort(), consoleRoutes.map(key).sort(), "the console mounts exactly its list");
    for (const route of consoleRoutes) assert.equal(route.spec.internal, true, `${key(route)} is internal`);
    for (const path of Object.keys(doc.paths)) assert.ok(!path.startsWith("/api/console"), path);
  });

  it("gives every operation a summary, a description, a tag, security and its error codes", () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        assert.ok(op.summary && op.description && op.tags?.length === 1, `${method} ${path}`);
        assert.ok(Array.isArray(op.security), `${method} ${path} security`);
        assert.ok(op.responses["500"], `${method} ${path} documents 500`);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400 || op.operationId === "getStatus") continue;
          // JsonError bodies name their `code`s; OAuth's RFC 6749 bodies their `error`s.
          const names = response.content["application/json"].schema.allOf[1].properties;
          const codes = op.tags[0] === "OAuth" ? names.error.enum : names.code.enum;
          assert.ok(codes.length > 0, `${method} ${path} ${status} names its codes`);
        }
      }
    }
    const bulk = doc.paths["/api/bulk-qr-codes"].post;
    assert.deepEqual(bulk.security, [{ apiKey: [] }, { firebaseIdToken: [] }, { sessionCookie: [] }]);
    assert.deepEqual(bulk["x-scopes"], ["qr:write"]);
    assert.ok(bulk.parameters.some((p: any) => p.in === "header" && p.name === "Idempotency-Key"), "bulk documents Idempotency-Key");
    assert.ok(bulk.responses["429"].headers["Retry-After"], "429 carries Retry-After");
    assert.ok(bulk.responses["200"].headers["X-RateLimit-Remaining"], "success carries X-RateLimit-*");
    assert.ok(bulk.responses["409"].content["application/json"].schema.allOf[1].properties.code.enum.includes("CONFLICT"));
    assert.deepEqual(Object.keys(doc.paths["/img/pdf/{merchantId}/{file}"].get.responses["200"].content), ["application/pdf"]);
    assert.deepEqual(Object.keys(doc.paths["/img/svg/{merchantId}/{file}"].get.responses["200"].content), ["image/svg+xml"]);
    assert.deepEqual(Object.keys(doc.paths["/img/png/{merchantId}/{file}"].get.responses["200"].content), ["image/png"]);
    const token = doc.paths["/oauth/token"].post;
    assert.deepEqual(Object.keys(token.requestBody.content), ["application/x-www-form-urlencoded"], "the token endpoint takes a form");
    assert.ok(token.responses["400"].content["application/json"].schema.allOf[1].properties.error.enum.includes("invalid_grant"));
    assert.ok(token.responses["429"].headers["Retry-After"], "OAuth's 429 carries Retry-After");
    assert.equal(doc.paths["/oauth/revoke"].post.responses["200"].content, undefined, "a revocation answers no body");
  });

  it("has examples that satisfy the document's schemas and the routes' own zod schemas", () => {
    const checker = contractChecker(doc);
    const check = (schema: object, value: unknown, what: string) => assert.equal(checker(schema, value), undefined, what);
    let examples = 0;
    for (const surface of publicSurfaces()) {
      for (const route of surface.routes) {
        if (route.spec.internal) continue;
        const op = doc.paths[openApiPath(route.path)][route.method.toLowerCase()];
        const example = route.spec.doc?.example;
        if (!example) continue;
        const what = key(route);
        for (const p of op.parameters ?? []) if (p.example !== undefined) {
          check(p.schema, p.example, `${what} ${p.name}`);
          examples++;
        }
        const body = op.requestBody && Object.values<any>(op.requestBody.content)[0];
        if (body?.examples) {
          check(body.schema, body.examples.example.value, `${what} body`);
          examples++;
        }
        const success = op.responses[String(route.spec.doc?.success?.[0] ?? 200)].content?.["application/json"];
        if (success?.examples) {
          check(success.schema, success.examples.example.value, `${what} response`);
          examples++;
        }
        // The zod schemas are the truth the edge enforces.
        if (example.body !== undefined) assert.ok(route.spec.body!.safeParse(example.body).success, `${what} body (zod)`);
        if (example.query !== undefined) assert.ok(route.spec.query!.safeParse(example.query).success, `${what} query (zod)`);
        if (example.params !== undefined) assert.ok(route.spec.params!.safeParse(example.params).success, `${what} params (zod)`);
        if (example.response !== undefined) assert.ok(route.spec.response!.safeParse(example.response).success, `${what} response (zod)`);
      }
    }
    assert.ok(examples >= 15, `examples checked: ${examples}`);
  });
});
