// Seeded fuzzing of every surface through the front end, as a client would reach it: the tool server,
// sandbox, bulk, app scans, console API, redirect, phone book pages, site API and OAuth authorization server. Each case must answer
// without a 5xx and in its surface's documented shape (docs/errors.md). The one exception is the
// platform's own answer to a body sent as JSON that does not parse (docs/decisions.md).
import assert from "node:assert/strict";
import { TEST_SCALE } from "../helpers/scale";
import { appUrl } from "../helpers/env";
import { createMerchant, signUp, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { callTool, rpc, toolResult } from "../helpers/rpc";
import { encodeComponent, hostileId, hostileUrl, int, pick, prng, randomValue, rawRequest, runCases, type Rand, type RawAnswer, type RawRequest } from "../helpers/fuzz";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { checkDigitOf } from "../../functions/src/gs1/keys";

const SEED = 20261122;

interface Case {
  surface: string;
  request: RawRequest;
  /** The body was sent as JSON but does not parse: the platform may answer with its own bare 400. */
  malformedJson?: boolean;
  expect: "json-rpc" | "json" | "html-or-json" | "oauth";
}

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

function jsonErrorProblem(answer: RawAnswer, body: any): string | undefined {
  if (!body || typeof body !== "object") return "error body is not JSON";
  for (const field of ["error", "code", "message", "hint"]) if (typeof body[field] !== "string") return `error body lacks ${field}`;
  if (body.status !== answer.status) return `error body status ${body.status} != ${answer.status}`;
  return undefined;
}

function rpcProblem(body: any): string | undefined {
  const one = (m: any) =>
    m && m.jsonrpc === "2.0" && (m.error ? typeof m.error.code === "number" && typeof m.error.message === "string" && typeof m.error.data?.code === "string" : "result" in m);
  if (Array.isArray(body) ? body.length > 0 && body.every(one) : one(body)) return undefined;
  return "not a JSON-RPC answer";
}

/**
 * Bodies the platform's JSON parser refuses before our code runs: text that does not parse, and (its
 * parser is strict) JSON that is not an object or an array.
 */
function platformRefusesBody(c: Case): boolean {
  if (c.malformedJson) return true;
  if (!String(c.request.headers?.["Content-Type"] ?? "").includes("json") || c.request.body === undefined) return false;
  const value = parse(String(c.request.body));
  return value === undefined || value === null || typeof value !== "object";
}

function check(c: Case, answer: RawAnswer): string | undefined {
  if (answer.status >= 500) return `${answer.status} ${c.request.method} ${c.request.path.slice(0, 80)} ${String(c.request.body ?? "").slice(0, 80)}: ${answer.text.slice(0, 120)}`;
  if (c.request.method === "HEAD") return undefined; // no body to judge
  const type = String(answer.headers["content-type"] ?? "");
  const body = parse(answer.text);
  if (platformRefusesBody(c) && answer.status === 400 && body === undefined) return undefined;
  if (answer.status === 204) return answer.text === "" ? undefined : "204 with a body";
  // A 202 may say what was accepted (the tracking API's receipts); if it does, in JSON.
  if (answer.status === 202) return answer.text === "" || (type.includes("json") && body !== undefined) ? undefined : `202 with a body that is not JSON: ${answer.text.slice(0, 80)}`;
  if ([301, 302, 303, 307, 308].includes(answer.status)) return answer.headers.location ? undefined : "redirect without Location";
  // The HTTP layer's own refusals of an oversized request line or headers carry no body.
  if ((answer.status === 431 || answer.status === 414) && answer.text === "") return undefined;
  if (c.expect === "oauth") {
    // RFC 7009: a revocation is answered 200 with an empty body, whatever the token was.
    if (c.request.path === "/oauth/revoke" && answer.status === 200) return answer.text === "" ? undefined : "revoke answered with a body";
    // RFC 6749/7591 error bodies; the authorization endpoint shows an HTML page to the person instead.
    if (type.includes("text/html")) return undefined;
    if (!type.includes("json") || body === undefined) return `oauth ${answer.status}: not JSON: ${answer.text.slice(0, 80)} (${c.request.method} ${c.request.path.slice(0, 60)} ${String(c.request.body ?? "").slice(0, 60)} ${JSON.stringify(c.request.headers)})`;
    if (answer.status >= 400 && typeof body.error !== "string") return `oauth ${answer.status}: no error code: ${answer.text.slice(0, 120)}`;
    return undefined;
  }
  if (c.expect === "json-rpc" && type.includes("json")) {
    // Answers from before the tool server (the front's refusal of a malformed path) are JsonErrors.
    return rpcProblem(body) && jsonErrorProblem(answer, body) ? `${c.surface}: ${rpcProblem(body)}: ${answer.text.slice(0, 120)}` : undefined;
  }
  if (type.includes("text/html")) return c.expect === "html-or-json" || answer.status === 404 ? undefined : `${c.surface}: unexpected HTML ${answer.status}`;
  if (!type.includes("json")) return `${c.surface}: content-type ${type}`;
  if (answer.status >= 400) {
    const problem = jsonErrorProblem(answer, body);
    return problem && `${c.surface} ${answer.status}: ${problem}: ${answer.text.slice(0, 120)}`;
  }
  return body === undefined ? `${c.surface}: unparseable 2xx` : undefined;
}

/** A path segment as a client would put it on the wire: ASCII kept raw (so `/`, `..`, `%` stay), the rest encoded. */
const segment = (rand: Rand) => {
  const id = hostileId(rand);
  return /^[\x21-\x7e]*$/.test(id) && rand() < 0.7 ? id.replace(/[?#]/g, encodeComponent) : encodeComponent(id);
};

const json = (value: unknown) => JSON.stringify(value);
const truncatedJson = (rand: Rand, value: unknown) => {
  const s = JSON.stringify(value) ?? "null";
  return s.slice(0, Math.max(1, int(rand, s.length)));
};

interface Fixtures {
  merchant: TestMerchant;
  scanner: { idToken: string };
  dynamicId: string;
  codeId: string;
  toolSchemas: Array<{ name: string; inputSchema: { properties?: Record<string, any> } }>;
  clients: string[];
}

function toolArguments(rand: Rand, schema: { properties?: Record<string, any> }, f: Fixtures): unknown {
  if (rand() < 0.1) return randomValue(rand);
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (rand() < 0.3) continue;
    const plausible = () => {
      if (prop.enum) return pick(rand, prop.enum);
      if (name === "codeId") return f.codeId;
      if (name === "uniqueQRCodeID") return f.dynamicId;
      if (prop.format === "uri" || /url/i.test(name)) return `https://example.com/${int(rand, 1000)}`;
      if (prop.type === "integer" || prop.type === "number") return int(rand, 30) + 1;
      if (prop.type === "boolean") return rand() < 0.5;
      if (prop.type === "array") return [];
      return `fuzz ${int(rand, 1000)}`;
    };
    args[name] = pick(rand, [plausible, plausible, () => hostileId(rand), () => hostileUrl(rand), () => randomValue(rand)])();
  }
  if (rand() < 0.1) args[hostileId(rand) || "extra"] = 1;
  return args;
}

function mcpCase(rand: Rand, f: Fixtures): Case {
  const headers: Record<string, string> = {};
  if (rand() < 0.85) headers.Authorization = `Bearer ${f.merchant.apiKey}`;
  else if (rand() < 0.5) headers.Cookie = `__session=${pick(rand, ["%E0%A4%A", "%", "x", "%zz", encodeURIComponent("é")])}`;
  if (rand() < 0.2) headers["Mcp-Protocol-Version"] = pick(rand, ["2025-03-26", "2026-07-28", "1999-01-01", "%", "x".repeat(300)]);
  const message = () => {
    const tool = pick(rand, f.toolSchemas);
    const m: Record<string, unknown> = { jsonrpc: "2.0", id: rand() < 0.9 ? int(rand, 1e6) : randomValue(rand) };
    m.method = rand() < 0.8 ? "tools/call" : pick(rand, ["tools/list", "ping", "initialize", "server/discover", hostileId(rand)]);
    m.params = rand() < 0.9 ? { name: rand() < 0.9 ? tool.name : hostileId(rand), arguments: toolArguments(rand, tool.inputSchema, f) } : randomValue(rand);
    return m;
  };
  const kind = int(rand, 10);
  let body: string;
  let malformedJson = false;
  let contentType = "application/json";
  if (kind === 0) body = json(Array.from({ length: pick(rand, [0, 1, 5, 20, 21, 40, 300]) }, message));
  else if (kind === 1) {
    body = truncatedJson(rand, message());
    malformedJson = true;
  } else if (kind === 2) {
    body = json(randomValue(rand));
    contentType = pick(rand, ["application/json", "text/plain", "application/x-www-form-urlencoded"]);
  } else body = json(message());
  headers["Content-Type"] = contentType;
  return { surface: "mcp", request: { method: "POST", path: "/api/mcp", headers, body }, malformedJson, expect: "json-rpc" };
}

function sandboxCase(rand: Rand, f: Fixtures): Case {
  const localAddress = pick(rand, f.clients);
  if (rand() < 0.15) return { surface: "sandbox", request: { method: pick(rand, ["GET", "PUT", "DELETE"]), path: `/api/generate-qr-code?${segment(rand)}=${segment(rand)}`, localAddress }, expect: "json" };
  const malformed = rand() < 0.1;
  const value = rand() < 0.8 ? { url: hostileUrl(rand), ...(rand() < 0.1 ? { extra: randomValue(rand) } : {}) } : randomValue(rand);
  return {
    surface: "sandbox",
    request: { method: "POST", path: "/api/generate-qr-code", headers: { "Content-Type": rand() < 0.9 ? "application/json" : "text/plain" }, body: malformed ? truncatedJson(rand, value) : json(value), localAddress },
    malformedJson: malformed,
    expect: "json",
  };
}

/** Page colours: #RRGGBB pairs (readable or not), other spellings, hostile values, a field too many. */
function pageColoursOf(rand: Rand): unknown {
  const colour = () => pick(rand, ["#000000", "#FFFFFF", "#777777", "#888888", "#1e3a8a", "red", "#FFF", "#GGGGGG", "", hostileId(rand), 7]);
  return rand() < 0.8 ? { foreground: colour(), background: colour() } : { foreground: colour(), background: colour(), [hostileId(rand)]: colour() };
}

/** A body for a domain's app association files: the documented shapes, with random or hostile values where their fields go. */
function appLinksBody(rand: Rand): unknown {
  const value = () => (rand() < 0.5 ? hostileId(rand) : randomValue(rand));
  const apple = { applinks: { ...(rand() < 0.2 ? { apps: rand() < 0.5 ? [] : [value()] } : {}), details: [{ [pick(rand, ["appID", "appIDs", hostileId(rand)])]: rand() < 0.5 ? "ABCDE12345.com.example.app" : value(), components: [{ [pick(rand, ["/", "?", "#", "exclude", hostileId(rand)])]: value() }] }] } };
  const google = [rand() < 0.2 ? { include: value() } : { relation: rand() < 0.5 ? ["delegate_permission/common.handle_all_urls"] : value(), target: { namespace: pick(rand, ["android_app", "web", hostileId(rand)]), package_name: value(), sha256_cert_fingerprints: [rand() < 0.3 ? Array(32).fill("AB").join(":") : value()], site: value() } }];
  return pick(rand, [{ appleAppSiteAssociation: apple }, { assetLinks: google }, { appleAppSiteAssociation: apple, assetLinks: google }, { appleAppSiteAssociation: value(), assetLinks: null }, randomValue(rand)]);
}

function bulkCase(rand: Rand, f: Fixtures): Case {
  const urls = Array.from({ length: pick(rand, [0, 1, 3, 50, 51, 500]) }, () => (rand() < 0.7 ? `https://example.com/${int(rand, 1e6)}` : hostileUrl(rand)));
  const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${rand() < 0.9 ? f.merchant.apiKey : hostileId(rand).replace(/[^\x21-\x7e]/g, "")}` };
  if (rand() < 0.3) headers["Idempotency-Key"] = pick(rand, ["k", "x".repeat(300), "a/b", "..", "%E0%A4%A", `key-${int(rand, 50)}`]);
  if (rand() < 0.5) {
    // The key's other REST routes: campaign rules, UTM templates, GS1 items and their figures, domains.
    const id = rand() < 0.3 ? f.codeId : hostileId(rand);
    const routes: Array<[string, string, unknown?]> = [
      ["POST", `/api/codes/${encodeComponent(id)}/rules`, rand() < 0.5 ? { rules: [{ when: randomValue(rand), then: { type: "redirect", url: hostileUrl(rand) } }] } : randomValue(rand)],
      ["POST", "/api/utm-templates", { name: pick(rand, ["poster", hostileId(rand), ""]), source: pick(rand, ["qr", hostileId(rand), "x".repeat(101)]), medium: pick(rand, ["print", hostileId(rand)]), ...(rand() < 0.3 ? { [hostileId(rand)]: 1 } : {}) }],
      ["DELETE", `/api/utm-templates/${encodeComponent(hostileId(rand))}`],
      ["GET", `/api/utm-templates?${segment(rand)}=${segment(rand)}`],
      ["POST", "/api/gs1/items", rand() < 0.5 ? { value: pick(rand, ["09506000134353", hostileId(rand), "1".repeat(14)]), links: [{ linkType: pick(rand, ["gs1:pip", hostileId(rand)]), href: hostileUrl(rand), title: hostileId(rand), isDefault: true }] } : randomValue(rand)],
      // RCNs, coupons and GTIN-8s of every kind (issue 60: refused with a sentence, never a 5xx).
      ["POST", "/api/gs1/items", { value: pick(rand, ["02012345678903", "20123457", "0412345678903", "9912345678901", "2000000000008", `0${int(rand, 10)}${"0".repeat(11)}1`]), links: [{ linkType: "gs1:pip", href: "https://example.com/p", title: "p", isDefault: true }] }],
      // An item on a domain's host: ids that are no active domain of the workspace, and hostile ones.
      ["POST", "/api/gs1/items", { value: "09506000134352", domainId: pick(rand, ["dom_aaaaaaaaaaaaaaaaaaaa", hostileId(rand), null, 42, ""]), links: [{ linkType: "gs1:pip", href: "https://example.com/p", title: "p", isDefault: true }] }],
      // DNS proofs of a company prefix (no check reaches DNS: the domain ids are no domain of the workspace).
      ["POST", "/api/gs1/prefixes", rand() < 0.6 ? { companyPrefix: pick(rand, ["0614141", "123", "1".repeat(13), hostileId(rand), ""]), domainId: pick(rand, ["dom_aaaaaaaaaaaaaaaaaaaa", hostileId(rand)]) } : randomValue(rand)],
      ["GET", `/api/gs1/items/${encodeComponent(hostileId(rand))}/analytics?days=${pick(rand, ["7", "0", "366", "x", "%E0%A4%A", "1e3"])}`],
      // Branded domains: host names of every kind, ids that are not this workspace's (no check reaches DNS).
      ["POST", "/api/domains", rand() < 0.7 ? { hostname: pick(rand, [`s${int(rand, 1e6)}.example.com`, hostileId(rand), "com", "127.0.0.1", "[::1]", "xn--zz.example", "bücher.example", "a".repeat(300), "domains.svc.test", ""]) } : randomValue(rand)],
      ["GET", pick(rand, [`/api/domains/${encodeComponent(hostileId(rand))}`, `/api/domains?${segment(rand)}=${segment(rand)}`, "/api/domains", "/api/domains/dom_aaaaaaaaaaaaaaaaaaaa"])],
      ["POST", `/api/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}/verify`, rand() < 0.5 ? {} : randomValue(rand)],
      ["DELETE", `/api/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}`],
      // A domain's app association files: documented shapes with hostile values in their fields.
      ["GET", `/api/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}/app-links`],
      ["POST", `/api/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}/app-links`, appLinksBody(rand)],
      // Where / on the workspace's hosts redirects, and the default domain: URLs and ids of every kind.
      ["POST", "/api/domains/root-url", rand() < 0.8 ? { rootUrl: rand() < 0.2 ? null : hostileUrl(rand) } : randomValue(rand)],
      ["POST", "/api/domains/default", rand() < 0.8 ? { domainId: pick(rand, [null, "dom_aaaaaaaaaaaaaaaaaaaa", hostileId(rand)]) } : randomValue(rand)],
      // The colours of the hosts' pages: colours of every kind, pairs that do not read together.
      ["POST", "/api/domains/page-colours", rand() < 0.8 ? { pageColours: rand() < 0.2 ? null : pageColoursOf(rand) } : randomValue(rand)],
    ];
    const [method, path, value] = pick(rand, routes);
    return { surface: "bulk", request: { method, path, headers, body: value === undefined ? undefined : json(rand() < 0.1 ? randomValue(rand) : value) }, expect: "json" };
  }
  const value = rand() < 0.85 ? { urls } : randomValue(rand);
  return { surface: "bulk", request: { method: "POST", path: "/api/bulk-qr-codes", headers, body: json(value) }, expect: "json" };
}

/**
 * Conversion tracking (docs/attribution.md) on the bulk function, and the redirect's discount page: drawn
 * after every other surface's cases, so the others' seeded cases stay what they were.
 */
function trackingCase(rand: Rand, f: Fixtures): Case {
  if (rand() < 0.2) return { surface: "redirect", request: { method: pick(rand, ["GET", "HEAD"]), path: `/qr/${rand() < 0.5 ? f.dynamicId : segment(rand)}/discount?${pick(rand, ["svc_sid", segment(rand)])}=${encodeComponent(clickIdLike(rand))}` }, expect: "html-or-json" };
  const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${rand() < 0.9 ? f.merchant.apiKey : hostileId(rand).replace(/[^\x21-\x7e]/g, "")}` };
  if (rand() < 0.3) headers["Idempotency-Key"] = pick(rand, ["k", "x".repeat(300), "a/b", `key-${int(rand, 50)}`]);
  const id = rand() < 0.3 ? f.codeId : hostileId(rand);
  const routes: Array<[string, string, unknown?]> = [
    ["POST", "/api/track/lead", rand() < 0.8 ? { clickId: clickIdLike(rand), eventName: pick(rand, ["sign_up", hostileId(rand), "", "x".repeat(101)]), ...(rand() < 0.4 ? { customerExternalId: hostileId(rand) } : {}) } : randomValue(rand)],
    ["POST", "/api/track/sale", rand() < 0.8 ? { ...(rand() < 0.7 ? { clickId: clickIdLike(rand) } : { customerExternalId: hostileId(rand) }), amount: pick(rand, [1999, 0, -1, 1.5, 1e13, "12", Number.MAX_SAFE_INTEGER, null]), currency: pick(rand, ["EUR", "JPY", "KWD", "eur", "XAU", "ZZZ", hostileId(rand)]), invoiceId: pick(rand, ["INV-1", hostileId(rand), "", "x".repeat(201)]) } : randomValue(rand)],
    ["POST", "/api/track/reversal", rand() < 0.8 ? { invoiceId: pick(rand, ["INV-1", hostileId(rand)]), amount: pick(rand, [undefined, 1, 0, -5, 1.5, "x"]), reason: pick(rand, ["refund", "cancel", hostileId(rand)]), reversalId: pick(rand, ["RF-1", hostileId(rand), ""]) } : randomValue(rand)],
    ["POST", "/api/track/settings", rand() < 0.8 ? { trackConversions: pick(rand, [true, false, "yes", null]), clickIdParam: pick(rand, [undefined, "ref", "svc_sid", hostileId(rand), "1a", ""]), windowDays: pick(rand, [undefined, 1, 90, 0, 91, 1.5]), firstPartyCookie: pick(rand, [undefined, true, 1]) } : randomValue(rand)],
    ["GET", `/api/track/settings?${segment(rand)}=${segment(rand)}`],
    ["POST", `/api/track/codes/${encodeComponent(id)}`, rand() < 0.8 ? { trackConversions: pick(rand, [true, false, null, "no"]) } : randomValue(rand)],
    ["GET", `/api/track/codes/${encodeComponent(id)}`],
    ["POST", `/api/track/discounts/${encodeComponent(id)}`, rand() < 0.8 ? pick(rand, [{ generate: pick(rand, [1, 0, 1001, -1, 2.5]) }, { codes: [pick(rand, ["SAVE-1", hostileId(rand), "", "ab"])] }, { codes: ["SAVE-1"], generate: 1 }, {}]) : randomValue(rand)],
    ["POST", "/api/track/redeem", rand() < 0.8 ? { discountCode: pick(rand, ["SAVE-1", hostileId(rand), ""]), amount: pick(rand, [100, -1, "1"]), currency: pick(rand, ["EUR", "xx"]), invoiceId: pick(rand, ["T-1", hostileId(rand)]) } : randomValue(rand)],
  ];
  const [method, path, value] = pick(rand, routes);
  return { surface: "bulk", request: { method, path, headers, body: value === undefined ? undefined : json(rand() < 0.1 ? randomValue(rand) : value) }, expect: "json" };
}

/** Something shaped like a click id (three dot-separated base64url parts), or not at all. */
function clickIdLike(rand: Rand): string {
  const part = () => Buffer.from(Array.from({ length: int(rand, 80) }, () => int(rand, 256))).toString("base64url");
  return pick(rand, [`${part()}.k0.${part()}`, `${part()}.${hostileId(rand)}.${part()}`, hostileId(rand), "", "x".repeat(400), `AQ.k0.${part()}`]);
}

/** Shopify's webhook (no credential: its signature is one) and the shop and figures routes, with hostile headers and bodies. */
function shopifyCase(rand: Rand, f: Fixtures): Case {
  if (rand() < 0.4) {
    const headers: Record<string, string> = { "Content-Type": "application/json", Authorization: `Bearer ${f.merchant.apiKey}` };
    const routes: Array<[string, string, unknown?]> = [
      ["POST", "/api/shopify/shops", rand() < 0.7 ? { shopDomain: pick(rand, ["a.myshopify.com", hostileId(rand), "x.example.com", "-a.myshopify.com", `${"a".repeat(70)}.myshopify.com`]), webhookSecret: pick(rand, ["s".repeat(32), hostileId(rand), "", "a b".repeat(10)]) } : randomValue(rand)],
      ["DELETE", `/api/shopify/shops/${encodeComponent(pick(rand, ["a.myshopify.com", hostileId(rand)]))}`],
      ["GET", `/api/conversions?${pick(rand, ["days=7", "days=0", "days=x", "horizon=5", "metric=clicks", `codeId=${encodeComponent(hostileId(rand))}`, `campaign=${encodeComponent(hostileId(rand))}`, `${segment(rand)}=1`])}`],
    ];
    const [method, p, value] = pick(rand, routes);
    return { surface: "shopify", request: { method, path: p, headers, body: value === undefined ? undefined : json(value) }, expect: "json" };
  }
  const headers: Record<string, string> = { "Content-Type": rand() < 0.9 ? "application/json" : "text/plain" };
  const maybe = (name: string, value: () => string) => { if (rand() < 0.8) headers[name] = value(); };
  maybe("X-Shopify-Topic", () => pick(rand, ["orders/paid", "refunds/create", "orders/cancelled", "orders/updated", hostileId(rand).replace(/[^\x21-\x7e]/g, "")]));
  maybe("X-Shopify-Shop-Domain", () => pick(rand, ["fuzz.myshopify.com", hostileId(rand).replace(/[^\x21-\x7e]/g, ""), "a".repeat(300)]));
  maybe("X-Shopify-Hmac-Sha256", () => pick(rand, ["XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=", "", "%%%", "a".repeat(200)]));
  maybe("X-Shopify-Webhook-Id", () => pick(rand, [String(int(rand, 1e9)), "x".repeat(300)]));
  const value = rand() < 0.6 ? { id: pick(rand, [8209829119461545, -1, "x", 1.5]), currency: pick(rand, ["USD", "usd", "XXX"]), total_price: pick(rand, ["369.97", "1e9", "-1"]), note_attributes: [{ name: "svc_sid", value: hostileId(rand) }] } : randomValue(rand);
  const malformed = rand() < 0.1;
  return { surface: "shopify", request: { method: "POST", path: "/api/shopify/webhooks", headers, body: malformed ? truncatedJson(rand, value) : json(value) }, malformedJson: malformed, expect: "json" };
}

function appScanCase(rand: Rand, f: Fixtures): Case {
  const id = rand() < 0.3 ? f.dynamicId : hostileId(rand);
  const value = rand() < 0.85 ? { uniqueQRCodeID: id } : randomValue(rand);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (rand() < 0.9) headers.Authorization = `Bearer ${f.scanner.idToken}`;
  else headers.Cookie = `__session=${pick(rand, ["%E0%A4%A", "%"])}`;
  return { surface: "app-scans", request: { method: "POST", path: "/api/scans", headers, body: json(value) }, expect: "json" };
}

function consoleCase(rand: Rand, f: Fixtures): Case {
  const id = segment(rand);
  const routes: Array<[string, string, unknown?]> = [
    ["GET", `/api/console/codes/${id}/analytics?days=${pick(rand, ["7", "0", "366", "x", "%E0%A4%A", "1e3"])}`],
    ["POST", `/api/console/codes/${id}`, { title: pick(rand, ["ok", hostileId(rand)]), destinationUrl: hostileUrl(rand) }],
    ["POST", `/api/console/keys/${id}/revoke`],
    ["DELETE", `/api/console/keys/${id}`],
    ["GET", `/api/console/drafts/${id}`],
    ["POST", "/api/console/publish", { kind: pick(rand, ["codes", "menus", "x"]), id: hostileId(rand) }],
    ["POST", `/api/console/listings/${id}/${pick(rand, ["approve", "reject", id])}`],
    ["POST", "/api/console/claims", { claimToken: hostileId(rand) }],
    ["POST", "/api/console/webhooks", { url: hostileUrl(rand), events: pick(rand, [["scan.created"], [hostileId(rand)], [], "scan.created"]) }],
    ["POST", `/api/console/webhooks/${id}/deliveries/${segment(rand)}/redeliver`, {}],
    ["GET", `/api/console/webhooks/${id}/deliveries?limit=${pick(rand, ["5", "0", "x", "1e3"])}`],
    ["POST", "/api/console/keys", { name: hostileId(rand), scopes: pick(rand, [["qr:write"], [hostileId(rand)], [], Array(50).fill("qr:write")]) }],
    ["POST", "/api/console/session", { idToken: hostileId(rand) }],
    // Branded domains (console/domainRoutes.ts): host names of every kind, ids that are not this workspace's.
    ["POST", "/api/console/domains", rand() < 0.7 ? { hostname: pick(rand, [`c${int(rand, 1e6)}.example.com`, hostileId(rand), "co.uk", "[::1]", "xn--zz.example", "a".repeat(300), ""]) } : randomValue(rand)],
    ["POST", `/api/console/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}/verify`, rand() < 0.5 ? {} : randomValue(rand)],
    [pick(rand, ["GET", "DELETE"]), `/api/console/domains/${encodeComponent(pick(rand, [hostileId(rand), "dom_aaaaaaaaaaaaaaaaaaaa"]))}`],
    ["POST", "/api/console/domains/root-url", rand() < 0.8 ? { rootUrl: rand() < 0.2 ? null : hostileUrl(rand) } : randomValue(rand)],
    ["POST", "/api/console/domains/default", rand() < 0.8 ? { domainId: pick(rand, [null, "dom_aaaaaaaaaaaaaaaaaaaa", hostileId(rand)]) } : randomValue(rand)],
    ["POST", "/api/console/domains/page-colours", rand() < 0.8 ? { pageColours: rand() < 0.2 ? null : pageColoursOf(rand) } : randomValue(rand)],
    ["GET", `/api/console/${id}`],
    [pick(rand, ["PUT", "PATCH", "GET"]), `/api/console/${pick(rand, ["keys", "codes", "me", "workspace"])}`],
    // Campaign rules, their sample-scan preview, and UTM templates (console/campaignRoutes.ts).
    ["GET", `/api/console/codes/${pick(rand, [id, f.codeId])}/campaign`],
    ["POST", `/api/console/codes/${pick(rand, [id, f.codeId])}/campaign`, rand() < 0.5 ? { rules: [{ when: randomValue(rand), then: { type: "split", variants: randomValue(rand) } }], endedPage: randomValue(rand) } : randomValue(rand)],
    [
      "POST",
      `/api/console/codes/${pick(rand, [id, f.codeId])}/campaign/preview`,
      { settings: { rules: [{ when: randomValue(rand), then: { type: "redirect", url: hostileUrl(rand) } }] }, scan: rand() < 0.5 ? randomValue(rand) : { device: hostileId(rand), country: hostileId(rand), localTime: pick(rand, ["2026-11-27T25:61", "x", "2026-02-30T10:00"]) } },
    ],
    ["POST", "/api/console/utm-templates", { name: pick(rand, ["poster", hostileId(rand)]), source: hostileId(rand), medium: pick(rand, ["print", "x".repeat(101)]) }],
    // Conversion tracking settings (console/conversionRoutes.ts), the REST route's body.
    ["POST", "/api/console/tracking/settings", rand() < 0.8 ? { trackConversions: pick(rand, [true, "yes", null]), clickIdParam: pick(rand, [undefined, "ref", hostileId(rand), ""]), windowDays: pick(rand, [undefined, 30, 0, 91, 1.5]), firstPartyCookie: pick(rand, [undefined, false, 1]) } : randomValue(rand)],
    ["DELETE", `/api/console/utm-templates/${encodeComponent(hostileId(rand))}`],
    ["GET", `/api/console/domains/${pick(rand, [id, "dom_aaaaaaaaaaaaaaaaaaaa"])}/app-links`],
    ["POST", `/api/console/domains/${pick(rand, [id, "dom_aaaaaaaaaaaaaaaaaaaa"])}/app-links`, appLinksBody(rand)],
  ];
  const [method, path, value] = pick(rand, routes);
  const headers: Record<string, string> = { Authorization: `Bearer ${f.merchant.idToken}` };
  const body = value === undefined ? undefined : rand() < 0.1 ? json(randomValue(rand)) : json(value);
  if (body !== undefined) headers["Content-Type"] = rand() < 0.9 ? "application/json" : "text/plain";
  return { surface: "console", request: { method, path, headers, body }, expect: "html-or-json" };
}

function redirectCase(rand: Rand, f: Fixtures): Case {
  if (rand() < 0.2) {
    // The password page's form POST (campaigns/password.ts): hostile forms, origins and content types.
    const headers: Record<string, string> = { "Content-Type": pick(rand, ["application/x-www-form-urlencoded", "application/json", "text/plain", "multipart/form-data"]) };
    const origin = pick(rand, [new URL(appUrl()).origin, "https://evil.example", "null", ""]);
    if (origin) headers.Origin = origin;
    const form = rand() < 0.7 ? `password=${encodeComponent(hostileId(rand))}${rand() < 0.3 ? `&${segment(rand)}=${segment(rand)}` : ""}` : pick(rand, ["x".repeat(5000), "%E0%A4%A", "password=a&password=b", json(randomValue(rand))]);
    return { surface: "redirect", request: { method: "POST", path: `/qr/${rand() < 0.5 ? f.dynamicId : segment(rand)}`, headers, body: form }, expect: "html-or-json" };
  }
  return { surface: "redirect", request: { method: pick(rand, ["GET", "GET", "HEAD"]), path: `/qr/${segment(rand)}${rand() < 0.1 ? `/${segment(rand)}` : ""}` }, expect: "html-or-json" };
}

function pagesCase(rand: Rand): Case {
  const path = rand() < 0.5 ? `/phone-book?q=${segment(rand)}${rand() < 0.2 ? `&q=${segment(rand)}` : ""}` : `/d/${segment(rand)}`;
  return { surface: "pages", request: { method: "GET", path }, expect: "html-or-json" };
}

/** The GS1 resolver: primary-key paths with hostile keys, qualifiers, queries and Accept headers. */
function gs1Case(rand: Rand): Case {
  const key = pick(rand, ["01", "01", "01", "414", "00", "8006", "253", segment(rand)]);
  const digits = Array.from({ length: pick(rand, [8, 12, 13, 14, 14, 18, int(rand, 40)]) }, () => String(int(rand, 10))).join("");
  const value = rand() < 0.7 ? digits : segment(rand);
  const qualifiers = Array.from({ length: int(rand, 3) }, () => `/${pick(rand, ["10", "21", "22", "235", "254", segment(rand)])}/${segment(rand)}`).join("");
  const query = rand() < 0.5 ? `?${pick(rand, ["linkType", "linkType", "17", "context", segment(rand)])}=${pick(rand, ["linkset", "all", "gs1:pip", "gs1:recallStatus", segment(rand)])}` : "";
  const path = rand() < 0.08 ? "/.well-known/gs1resolver" : `/${key}/${value}${qualifiers}${rand() < 0.2 ? "/" : ""}${query}`;
  const headers: Record<string, string> = {};
  // Header values as a client can send them (printable ASCII): hostile, but on the wire.
  const printable = () => hostileId(rand).replace(/[^\x20-\x7e]/g, "?");
  if (rand() < 0.4) headers.Accept = pick(rand, ["application/linkset+json", "application/json", "text/html", "*/*", printable()]);
  if (rand() < 0.4) headers["Accept-Language"] = pick(rand, ["en", "fr-CA,fr;q=0.8", "*", printable()]);
  // Oversized headers (review 4, L1): thousands of ranges, cut to the first 512 characters and 20 ranges.
  if (rand() < 0.1) headers[pick(rand, ["Accept", "Accept-Language"])] = Array.from({ length: 1_000 }, (_, i) => `x${i}-y;q=0.${(i % 9) + 1}`).join(",");
  return { surface: "gs1", request: { method: pick(rand, ["GET", "GET", "HEAD", "OPTIONS", "POST", "DELETE"]), path, headers }, expect: "html-or-json" };
}

/**
 * The public report naming an address: GS1 URIs on hosts of every kind (a brand's host is looked up by its
 * name: docs/gs1-on-brand-hosts.md), names no domain can have, ports, users, compressed-looking words.
 */
function reportCase(rand: Rand, f: Fixtures): Case {
  const host = pick(rand, [new URL(appUrl()).host, "id.brand.example", "__x__.example", "a..b.example", "xn--zz.example", "ID.BRAND.EXAMPLE", "id.brand.example:8443", "user:pw@id.brand.example", "127.0.0.1", "[::1]", `${"a".repeat(64)}.example`, `${segment(rand)}.example`]);
  const digits = Array.from({ length: pick(rand, [8, 13, 14, 14, int(rand, 30)]) }, () => String(int(rand, 10))).join("");
  // Half with a check digit that holds: only a GS1 Digital Link path gets as far as reading the host's claim.
  const body13 = Array.from({ length: 13 }, () => String(int(rand, 10))).join("");
  const gtin = rand() < 0.5 ? `${body13}${checkDigitOf(body13)}` : digits;
  const path = pick(rand, [`/01/${gtin}`, `/01/${gtin}`, `/01/${gtin}/10/${segment(rand)}`, `/${segment(rand)}`, `/${"A".repeat(10 + int(rand, 200))}`, `/414/${digits}`, `/qr/${segment(rand)}`]);
  const code = rand() < 0.8 ? `${pick(rand, ["https", "http", "HTTPS", "ftp"])}://${host}${path}` : pick(rand, [hostileUrl(rand), hostileId(rand), `gs1_${segment(rand)}`]);
  const body = rand() < 0.9 ? json({ code, reason: pick(rand, ["spam", "phishing", "scam", segment(rand)]), ...(rand() < 0.3 ? { details: hostileId(rand) } : {}) }) : json(randomValue(rand));
  return { surface: "reports", request: { method: "POST", path: "/api/reports", headers: { "Content-Type": "application/json" }, body, localAddress: pick(rand, f.clients) }, expect: "json" };
}

function siteCase(rand: Rand): Case {
  const path = pick(rand, [`/api/${segment(rand)}`, `/api?${segment(rand)}=1`, "/api/status.json", "/api/openapi.json", `/api/site.json?${segment(rand)}`]);
  return { surface: "site", request: { method: pick(rand, ["GET", "GET", "POST", "DELETE", "HEAD"]), path }, expect: "json" };
}

function oauthCase(rand: Rand, f: Fixtures): Case {
  const form = () =>
    new URLSearchParams(
      Object.fromEntries(
        Array.from({ length: int(rand, 6) }, () => [
          pick(rand, ["grant_type", "code", "code_verifier", "redirect_uri", "client_id", "refresh_token", "resource", "token", "scope", hostileId(rand)]),
          pick(rand, ["authorization_code", "refresh_token", hostileId(rand), hostileUrl(rand), "x".repeat(int(rand, 3000))]),
        ]),
      ),
    ).toString();
  const localAddress = pick(rand, f.clients);
  switch (int(rand, 6)) {
    case 0:
    case 1:
      return { surface: "oauth", request: { method: "POST", path: pick(rand, ["/oauth/token", "/oauth/revoke"]), headers: { "Content-Type": rand() < 0.85 ? "application/x-www-form-urlencoded" : "application/json" }, body: form(), localAddress }, expect: "oauth" };
    case 2: {
      const value = rand() < 0.7 ? { client_name: hostileId(rand), redirect_uris: Array.from({ length: int(rand, 4) }, () => hostileUrl(rand)), token_endpoint_auth_method: pick(rand, ["none", "client_secret_basic", hostileId(rand)]) } : randomValue(rand);
      return { surface: "oauth", request: { method: "POST", path: "/oauth/register", headers: { "Content-Type": "application/json" }, body: json(value), localAddress }, expect: "oauth" };
    }
    case 3:
      return { surface: "oauth", request: { method: "GET", path: `/oauth/authorize?${form()}&response_type=${segment(rand)}&code_challenge=${segment(rand)}`, localAddress }, expect: "oauth" };
    case 4: {
      const method = pick(rand, ["GET", "POST"]);
      const body = method === "POST" ? json(randomValue(rand)) : undefined;
      const headers: Record<string, string> = { Authorization: `Bearer ${f.merchant.idToken}`, ...(body ? { "Content-Type": "application/json" } : {}) };
      return { surface: "oauth", request: { method, path: `/oauth/requests/${segment(rand)}`, headers, body, localAddress }, expect: "oauth" };
    }
    default:
      return { surface: "oauth", request: { method: "GET", path: pick(rand, [`/.well-known/oauth-protected-resource/${segment(rand)}`, "/.well-known/oauth-authorization-server", `/oauth/${segment(rand)}`]), localAddress }, expect: "oauth" };
  }
}

/** JSON text of a list or object nested `depth` deep (built as text: JSON.stringify itself cannot go that deep). */
function deepJson(rand: Rand, depth: number): string {
  return rand() < 0.5 ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/**
 * Deeply nested JSON where each surface reads a value it checks against a list or a shape (campaign rule
 * conditions, a scan's device, a report's address, bulk URLs, OAuth redirect URIs, a tool's arguments): a
 * validation message that printed the value would throw RangeError at some depth, a 5xx.
 */
function nestingCase(rand: Rand, f: Fixtures): Case {
  const deep = deepJson(rand, pick(rand, [64, 1_000, 20_000, 100_000]));
  const rule = `{"rules":[{"when":{"${pick(rand, ["device", "os", "browser", "country"])}":[${deep}]},"then":{"type":"redirect","url":"https://example.com/"}}]}`;
  const key = { Authorization: `Bearer ${f.merchant.apiKey}`, "Content-Type": "application/json" };
  const session = { Authorization: `Bearer ${f.merchant.idToken}`, "Content-Type": "application/json" };
  const json = { "Content-Type": "application/json" };
  const localAddress = pick(rand, f.clients);
  const cases: Case[] = [
    { surface: "nesting", request: { method: "POST", path: `/api/console/codes/${f.codeId}/campaign`, headers: session, body: rule }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: `/api/console/codes/${f.codeId}/campaign/preview`, headers: session, body: `{"settings":${rule},"scan":{"device":${deep}}}` }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: `/api/codes/${f.codeId}/rules`, headers: key, body: rule }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: "/api/mcp", headers: { ...key, Accept: "application/json, text/event-stream" }, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc.qr.set_rules","arguments":{"codeId":"${f.codeId}","settings":${rule}}}}` }, expect: "json-rpc" },
    { surface: "nesting", request: { method: "POST", path: "/api/mcp", headers: { ...key, Accept: "application/json, text/event-stream" }, body: deep }, expect: "json-rpc" },
    { surface: "nesting", request: { method: "POST", path: "/api/reports", headers: json, body: `{"code":${deep},"reason":"spam"}`, localAddress }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: "/api/bulk-qr-codes", headers: key, body: `{"urls":[${deep}]}` }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: "/api/generate-qr-code", headers: json, body: `{"url":${deep}}`, localAddress }, expect: "json" },
    { surface: "nesting", request: { method: "POST", path: "/oauth/register", headers: json, body: `{"redirect_uris":[${deep}],"client_name":"x"}`, localAddress }, expect: "oauth" },
  ];
  return pick(rand, cases);
}

describe("fuzz: every surface", function () {
  this.timeout(600_000);
  let fixtures: Fixtures;

  before(async () => {
    const merchant = await createMerchant();
    // The fuzzer is one heavy client: lift its workspace's limits so cases reach validation, not 429.
    for (const limit of ["toolCalls", "bulk", "consoleWrites", "consoleReads", "consoleAnalytics", "tracking"]) await writeRateLimitOverride(merchant.merchantId, limit, 1_000_000);
    const code = toolResult(await callTool("svc.qr.create", { title: "fuzz", destinationUrl: "https://example.com/f", dynamic: true }, merchant.apiKey));
    const tools = (await rpc("tools/list", {}, merchant.apiKey)).body.result.tools;
    fixtures = {
      merchant,
      scanner: await signUp(),
      dynamicId: code.uniqueQRCodeID,
      codeId: code.codeId,
      toolSchemas: tools,
      clients: Array.from({ length: 40 }, () => newClient().address),
    };
  });

  // The full run (`npm run fuzz` or `npm run test:full`, TEST_SCALE=1) makes 7,200 cases; `npm test` makes
  // TEST_SCALE of each surface's (at least 20) from the same seed, still interleaved. FUZZ_SCALE still overrides.
  const scale = process.env.FUZZ_SCALE ? Number(process.env.FUZZ_SCALE) : TEST_SCALE;
  const plan: Array<[number, (r: Rand, f: Fixtures) => Case]> = (
    [
      [1500, mcpCase],
      [600, sandboxCase],
      [500, bulkCase],
      [500, appScanCase],
      [1000, consoleCase],
      [600, redirectCase],
      [500, pagesCase],
      [300, siteCase],
      [500, oauthCase],
      [400, gs1Case],
      [200, nestingCase],
      [200, trackingCase],
      [200, shopifyCase],
      [200, reportCase],
    ] as Array<[number, (r: Rand, f: Fixtures) => Case]>
  ).map(([n, make]) => [Math.max(20, Math.round(n * scale)), make]);
  const total = plan.reduce((sum, [n]) => sum + n, 0);

  it(`answers ${total.toLocaleString("en-US")} seeded cases over ${plan.length} kinds of case with no 5xx and every error in its documented shape`, async () => {
    const rand = prng(SEED);
    const cases = plan.flatMap(([n, make]) => Array.from({ length: n }, () => make(rand, fixtures)));
    // Interleave the surfaces so each runs under the others' load.
    const order = cases.map((c, i) => ({ c, k: prng(SEED + i)() })).sort((a, b) => a.k - b.k).map((x) => x.c);
    const started = Date.now();
    const statuses = new Map<string, number>();
    // Eight at a time: each concurrent request is a worker process in the functions emulator (see oauth-fuzz).
    const failures = await runCases(order, 8, async (c) => {
      const answer = await rawRequest(appUrl(), c.request);
      const key = `${c.surface} ${answer.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      return check(c, answer);
    });
    const seconds = (Date.now() - started) / 1000;
    const fiveXx = [...statuses].filter(([k]) => Number(k.split(" ")[1]) >= 500).reduce((n, [, v]) => n + v, 0);
    console.log(`      fuzz: ${order.length} cases, ${new Set(order.map((c) => c.surface)).size} surfaces, ${fiveXx} 5xx, ${seconds.toFixed(1)} s`);
    console.log(`      ${[...statuses].sort().map(([k, v]) => `${k}:${v}`).join("  ")}`);
    assert.equal(order.length, total);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures`);
  });
});
