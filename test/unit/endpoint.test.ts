// The shared edge (functions/src/http/endpoint.ts) on a local express app: the order of its checks, 405
// with Allow, strict query schemas, the JSON content type, the body size limit, and the spec it exposes.
// The credential is checked with no credential sent, which fails before any call to Firebase.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { createRestApp } from "../../functions/src/http/rest";
import { endpoint, mountEndpoints } from "../../functions/src/http/endpoint";

const Params = z.object({ id: z.string().regex(/^[a-z]{3}$/) }).strict();
const Query = z.object({ n: z.coerce.number().int().optional() }).strict();
const Body = z.object({ name: z.string().max(20) }).strict();
const Answer = z.object({ id: z.string(), n: z.number().optional(), name: z.string() });

const echo = endpoint({
  method: "POST",
  path: "/things/:id",
  summary: "Echo a thing",
  credential: "none",
  params: Params,
  query: Query,
  body: Body,
  response: Answer,
  maxBodyBytes: 64,
  handle: ({ params, query, body }) => ({ id: params.id, n: query.n, name: body.name }),
});

const routes = [
  echo,
  endpoint({ method: "GET", path: "/things/:id", summary: "Read a thing", credential: "none", params: Params, handle: ({ params }) => ({ id: params.id }) }),
  endpoint({
    method: "POST",
    path: "/keyed/:id",
    summary: "A keyed route",
    credential: "caller",
    params: Params,
    body: Body,
    handle: ({ caller }) => ({ merchantId: caller.merchantId }),
  }),
  endpoint({
    method: "GET",
    path: "/own",
    summary: "Own addresses only",
    credential: "caller",
    ownAddressOnly: true,
    handle: ({ caller }) => ({ merchantId: caller.merchantId }),
  }),
];

describe("endpoint()", () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    const app = createRestApp((a) => mountEndpoints(a, "test", routes));
    server = http.createServer(app).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const send = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const res = await fetch(`${base}${path}`, {
      ...rest,
      ...(json !== undefined ? { body: JSON.stringify(json), headers: { "content-type": "application/json", ...(rest.headers as object) } } : {}),
    });
    return { res, body: (await res.json()) as { code?: string; [k: string]: unknown } };
  };

  it("runs the handler with parsed params, query and body", async () => {
    const { res, body } = await send("/things/abc?n=3", { method: "POST", json: { name: "x" } });
    assert.equal(res.status, 200);
    assert.deepEqual(body, { id: "abc", n: 3, name: "x" });
  });

  it("checks in order: own address, credential, params, query, body", async () => {
    // A foreign Host is refused before the (missing) credential is looked at.
    const foreign = await send("/own", { headers: { host: "attacker.example" } });
    assert.equal(foreign.res.status, 403);
    assert.equal(foreign.body.code, "ORIGIN_NOT_ALLOWED");
    // The credential comes before bad params and a bad body.
    const keyed = await send("/keyed/TOOLONG", { method: "POST", body: "not json", headers: { "content-type": "text/plain" } });
    assert.equal(keyed.res.status, 401);
    assert.equal(keyed.body.code, "NO_AUTH");
    // Params before query, query before body.
    assert.equal((await send("/things/BAD?zzz=1", { method: "POST", body: "x" })).body.code, "VALIDATION_FAILED");
    assert.equal((await send("/things/abc?zzz=1", { method: "POST", body: "x" })).body.code, "UNKNOWN_QUERY_PARAMETER");
    assert.equal((await send("/things/abc", { method: "POST", json: { name: 7 } })).body.code, "VALIDATION_FAILED");
  });

  it("answers 405 with Allow for another method of a known path", async () => {
    const { res, body } = await send("/things/abc", { method: "DELETE" });
    assert.equal(res.status, 405);
    assert.equal(body.code, "METHOD_NOT_ALLOWED");
    assert.equal(res.headers.get("allow"), "POST, GET, HEAD");
  });

  it("refuses an unknown query parameter and a bad value of a known one", async () => {
    const unknown = await send("/things/abc?n=1&extra=2", { method: "POST", json: { name: "x" } });
    assert.equal(unknown.res.status, 400);
    assert.equal(unknown.body.code, "UNKNOWN_QUERY_PARAMETER");
    assert.equal((await send("/things/abc?n=1.5", { method: "POST", json: { name: "x" } })).body.code, "UNKNOWN_QUERY_PARAMETER");
  });

  it("takes only a JSON content type for a body (application/json or +json)", async () => {
    const plain = await send("/things/abc", { method: "POST", body: '{"name":"x"}', headers: { "content-type": "text/plain" } });
    assert.equal(plain.res.status, 415);
    assert.equal(plain.body.code, "UNSUPPORTED_MEDIA_TYPE");
    const problem = await send("/things/abc", { method: "POST", body: '{"name":"x"}', headers: { "content-type": "application/merge-patch+json; charset=utf-8" } });
    assert.equal(problem.res.status, 200);
    const malformed = await send("/things/abc", { method: "POST", body: "{", headers: { "content-type": "application/json" } });
    assert.equal(malformed.body.code, "MALFORMED_JSON");
  });

  it("refuses a body over the route's maxBodyBytes with 413", async () => {
    const { res, body } = await send("/things/abc", { method: "POST", json: { name: "x".repeat(100) } });
    assert.equal(res.status, 413);
    assert.equal(body.code, "PAYLOAD_TOO_LARGE");
    assert.deepEqual(body.details, { maxBytes: 64 });
  });

  it("exposes its declaration for readers", () => {
    assert.equal(echo.spec.summary, "Echo a thing");
    assert.equal(echo.spec.method, "POST");
    assert.equal(echo.spec.credential, "none");
    assert.equal(echo.spec.response, Answer);
    assert.equal(echo.spec.body, Body);
    assert.equal(echo.maxBodyBytes, 64);
    assert.equal(echo.hasBody, true);
  });

  it("types the handler's context by credential mode", () => {
    // Compile-time checks (npm run typecheck): each line below must fail to compile.
    const wrong = [
      // @ts-expect-error: a route without a credential has no caller
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "none", handle: ({ caller }) => caller.merchantId }),
      // @ts-expect-error: an API-key caller has no verified user
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "caller", handle: ({ user }) => user.uid }),
      // @ts-expect-error: a signed-in user without a workspace is not a caller
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "user", handle: ({ caller }) => caller.merchantId }),
      // @ts-expect-error: the answer must match the response schema
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "none", response: Answer, handle: () => ({ id: 1 }) }),
      // @ts-expect-error: every route says what it does
      endpoint({ method: "GET", path: "/x", credential: "none", handle: () => ({}) }),
    ];
    const right = [
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "member", handle: ({ caller, user }) => [caller.merchantId, user.uid] }),
      endpoint({ method: "GET", path: "/x", summary: "x", credential: "admin", handle: ({ user }) => user.uid }),
    ];
    assert.equal(wrong.length + right.length, 7);
  });
});
