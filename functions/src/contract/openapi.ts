// The public contract, generated: an OpenAPI 3.1 document built from the route lists every public surface
// mounts (given by contract/surfaces.ts, which also serves the document). Each operation comes from its
// endpoint declaration: parameters and body from the zod schemas, the success from `response` (or
// `doc.binary`), the credential's security schemes, and the error responses its checks imply (credential,
// scope, limit, schemas) plus the codes it names.
import { z } from "zod";
import { getConfig, SITE_API_VERSION } from "../core/config";
import { ERROR_TABLE, type ErrorCode } from "../core/errors";
import type { Endpoint, RouteSpec } from "../http/endpoint";
import { SESSION_COOKIE_NAME } from "../auth/caller";
import { JsonErrorSchema, type OpenApiDocument } from "../site/schemas";

/** One public surface as the document describes it (the list: contract/surfaces.ts). */
export interface Surface {
  /** The OpenAPI tag of its operations. */
  tag: string;
  description: string;
  /** The host it answers on: the public site's (BASE_URL) or the app's (APP_URL). */
  host: "site" | "app";
  routes: readonly Endpoint[];
  /** A surface whose errors are not JsonError bodies (OAuth's RFC 6749 bodies): their schema, by name. */
  errorBody?: { name: string; schema: z.ZodType };
}

type Json = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType, io: "input" | "output"): Json => {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  delete json.$schema; // the document's jsonSchemaDialect covers it
  delete json.id;
  return json;
};

/** `/img/svg/:merchantId/:file` and `/img/*imagePath` as OpenAPI writes them. */
export const openApiPath = (path: string) => path.replace(/[:*]([A-Za-z_]\w*)/g, "{$1}");

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The error codes an operation can answer, by status: what its declaration implies, then what it names. */
export function errorCodesOf(spec: RouteSpec): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>();
  const add = (...more: ErrorCode[]) => more.forEach((c) => codes.add(c));
  if (spec.ownAddressOnly) add("ORIGIN_NOT_ALLOWED");
  switch (spec.credential) {
    case "caller":
      add("NO_AUTH", "INVALID_API_KEY", "INVALID_TOKEN", "REVOKED", "NO_WORKSPACE", "ORIGIN_NOT_ALLOWED");
      break;
    case "member":
      add("NO_AUTH", "INVALID_TOKEN", "FORBIDDEN", "NO_WORKSPACE", "ORIGIN_NOT_ALLOWED");
      break;
    case "user":
    case "admin":
      add("NO_AUTH", "INVALID_TOKEN", "FORBIDDEN", "ORIGIN_NOT_ALLOWED");
      break;
  }
  // A change authenticated by session cookie must be JSON (endpoint.ts, requireCookieSafety).
  if (spec.credential !== "none" && spec.method !== "GET") add("UNSUPPORTED_MEDIA_TYPE");
  if (spec.scope) add("INSUFFICIENT_SCOPE");
  if (spec.limit || spec.addressLimit) add("RATE_LIMITED");
  if (spec.params) add("VALIDATION_FAILED");
  if (spec.query) add("UNKNOWN_QUERY_PARAMETER");
  if (spec.body) add("MALFORMED_JSON", "VALIDATION_FAILED", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE");
  add(...(spec.doc?.errors ?? []), "INTERNAL");
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    if (spec.doc?.alsoAnswers?.[status]) continue; // that status answers the success schema instead
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

const ref = (kind: "schemas" | "headers" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

const RATE_HEADERS = {
  "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
  "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
  "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"),
};

const reportsLimit = (spec: RouteSpec) => Boolean(spec.limit || spec.addressLimit || spec.standing || spec.doc?.rateLimitHeaders);

/** Which schemes an operation takes. Scopes are not OAuth scopes of these schemes: the description and `x-scopes` name them. */
function securityOf(spec: RouteSpec): Array<Record<string, string[]>> {
  switch (spec.credential) {
    case "none":
      return [];
    case "caller":
      return [{ apiKey: [] }, { firebaseIdToken: [] }, { sessionCookie: [] }];
    default:
      return [{ firebaseIdToken: [] }, { sessionCookie: [] }];
  }
}

function parametersOf(spec: RouteSpec): Json[] {
  const example = spec.doc?.example;
  const fromSchema = (schema: z.ZodType | undefined, where: "path" | "query", values: unknown): Json[] => {
    if (!schema) return [];
    const json = jsonSchema(schema, "input") as { properties?: Record<string, Json>; required?: string[] };
    const given = (values ?? {}) as Record<string, unknown>;
    return Object.entries(json.properties ?? {}).map(([name, property]) => {
      // An express wildcard (`*imagePath`) arrives as an array of segments; on the wire it is one string.
      const wildcard = where === "path" && spec.path.includes(`*${name}`);
      const { description, ...rest } = property;
      const schemaOf = wildcard ? { type: "string", description: "One or more path segments joined by /" } : rest;
      const value = wildcard && Array.isArray(given[name]) ? (given[name] as string[]).join("/") : given[name];
      return {
        name,
        in: where,
        required: where === "path" || (json.required ?? []).includes(name),
        ...(description ? { description } : { description: `The ${name} ${where === "path" ? "path segment" : "query parameter"}` }),
        schema: schemaOf,
        ...(value !== undefined ? { example: value } : {}),
      };
    });
  };
  const headers = (spec.doc?.requestHeaders ?? []).map((h) => ({
    name: h.name,
    in: "header",
    required: h.required ?? false,
    description: h.description,
    schema: { type: "string", minLength: 1, ...(h.maxLength ? { maxLength: h.maxLength } : {}) },
    ...(example?.headers?.[h.name] ? { example: example.headers[h.name] } : {}),
  }));
  return [...fromSchema(spec.params, "path", example?.params), ...fromSchema(spec.query, "query", example?.query), ...headers];
}

interface Built {
  operation: Json;
  schemas: Record<string, Json>;
}

function operationOf(spec: RouteSpec, surface: Surface): Built {
  const doc = spec.doc;
  if (!doc) throw new Error(`${spec.method} ${spec.path} is public but has no doc (contract/openapi.ts)`);
  const id = operationIdOf(spec);
  const schemas: Record<string, Json> = {};
  const named = (schema: z.ZodType, suffix: string, io: "input" | "output") => {
    const title = (schema.meta() as { title?: string } | undefined)?.title;
    const name = title ?? `${capitalize(id)}${suffix}`;
    schemas[name] = jsonSchema(schema, io);
    return ref("schemas", name);
  };
  const examples = (value: unknown, summary: string) => (value === undefined ? {} : { examples: { example: { summary, value } } });

  const successHeaders = { ...(reportsLimit(spec) ? RATE_HEADERS : {}) } as Json;
  for (const [name, description] of Object.entries(doc.responseHeaders ?? {})) successHeaders[name] = { description, schema: { type: "string" } };
  const successContent = spec.response
    ? { "application/json": { schema: named(spec.response, "Response", "output"), ...examples(doc.example?.response, "A typical answer") } }
    : doc.binary
      ? { [doc.binary]: { schema: { type: "string", contentMediaType: doc.binary } } }
      : undefined;
  if (!successContent && !doc.empty) throw new Error(`${spec.method} ${spec.path}: give a response schema, doc.binary or doc.empty`);
  const responses: Json = {};
  for (const status of doc.success ?? [200]) {
    responses[String(status)] = { description: status === 201 ? "Created" : status === 202 ? "Accepted: the work goes on in the background" : "Success", ...(Object.keys(successHeaders).length ? { headers: successHeaders } : {}), ...(successContent ? { content: successContent } : {}) };
  }
  for (const [status, description] of Object.entries(doc.alsoAnswers ?? {})) responses[status] = { description, content: successContent };
  const limitedHeaders = { "Retry-After": ref("headers", "Retry-After"), ...RATE_HEADERS };
  if (surface.errorBody) {
    // RFC 6749 section 5.2 bodies: the route lists its error names by status; a limit answers 429 and an
    // unexpected failure 500 in the same style (oauth/errors.ts).
    const styled: Record<number, readonly string[]> = { ...(doc.styledErrors ?? {}) };
    if (spec.limit || spec.addressLimit) styled[429] = ["temporarily_unavailable"];
    styled[500] = ["server_error"];
    schemas[surface.errorBody.name] = jsonSchema(surface.errorBody.schema, "output");
    for (const [status, names] of Object.entries(styled)) {
      responses[status] = {
        description: `Error: ${names.join(", ")}`,
        ...(status === "429" ? { headers: limitedHeaders } : {}),
        content: { "application/json": { schema: { allOf: [ref("schemas", surface.errorBody.name), { properties: { error: { enum: [...names] } } }] } } },
      };
    }
  } else {
    for (const [status, codes] of errorCodesOf(spec)) {
      responses[String(status)] = {
        description: `Error: ${codes.join(", ")} (docs/errors.md)`,
        ...(status === 429 ? { headers: limitedHeaders } : {}),
        content: { "application/json": { schema: { allOf: [ref("schemas", "JsonError"), { properties: { code: { enum: codes } } }] } } },
      };
    }
  }
  const bodyType = spec.bodyFormat === "form" ? "application/x-www-form-urlencoded" : "application/json";

  const parameters = parametersOf(spec);
  const operation: Json = {
    operationId: id,
    tags: [surface.tag],
    summary: spec.summary,
    description: spec.scope ? `${doc.description}\n\nNeeds the \`${spec.scope}\` scope.` : doc.description,
    security: securityOf(spec),
    ...(spec.scope ? { "x-scopes": [spec.scope] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { [bodyType]: { schema: named(spec.body, "Request", "input"), ...examples(doc.example?.body, "A typical request") } },
          },
        }
      : {}),
    responses,
  };
  return { operation, schemas };
}

/** The operationId a route declares, or one made from its method and path. */
export function operationIdOf(spec: RouteSpec): string {
  if (spec.doc?.operationId) return spec.doc.operationId;
  const words = spec.path.split(/[^A-Za-z0-9]+/).filter((w) => w && !/^(api|img)$/.test(w));
  return spec.method.toLowerCase() + words.map(capitalize).join("");
}

const SECURITY_SCHEMES = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "sk-svc- API key",
    description: "An API key minted in the console (Settings, API keys): `Authorization: Bearer sk-svc-...`. Keys carry scopes; the operation names the one it needs.",
  },
  firebaseIdToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A Firebase Authentication ID token of a signed-in user: `Authorization: Bearer <ID token>`.",
  },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE_NAME,
    description: "The console's session cookie. A change (POST, DELETE) it authenticates must carry the service's own Origin and Content-Type: application/json.",
  },
};

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

/** The document for the given surfaces (all the public ones: publicSurfaces() in contract/surfaces.ts). */
export function buildOpenApiDocument(surfaces: readonly Surface[]): OpenApiDocument {
  const c = getConfig();
  const paths: Record<string, Record<string, Json>> = {};
  const schemas: Record<string, Json> = { JsonError: jsonSchema(JsonErrorSchema, "output") };
  for (const surface of surfaces) {
    for (const route of surface.routes) {
      if (route.spec.internal) continue;
      const { operation, schemas: used } = operationOf(route.spec, surface);
      const path = openApiPath(route.spec.path);
      const item = (paths[path] ??= {});
      // Routes of the app host answer there when it is not the site's host (one host in the emulator).
      if (surface.host === "app" && c.appUrl !== c.baseUrl) item.servers = [{ url: c.appUrl, description: "The app host" }] as unknown as Json;
      item[route.spec.method.toLowerCase()] = operation;
      Object.assign(schemas, used);
    }
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "svc merchant QR code API",
      version: SITE_API_VERSION,
      description:
        "The HTTP API of svc: discovery and status, the keyless sandbox, bulk creation with an API key, app scans, and the image, SVG and print files of a code. " +
        "Every error is a JsonError whose `code` is stable (docs/errors.md); the OAuth endpoints answer RFC 6749 error bodies instead. Rate-limited operations report their standing in X-RateLimit-* headers and answer 429 with Retry-After when over it. " +
        "Generated from the service's route declarations.",
      contact: { name: "svc support", url: c.docsUrl, email: c.contactEmail },
      license: { name: "Proprietary", url: c.docsUrl },
    },
    servers: [{ url: c.baseUrl, description: "This deployment" }],
    tags: [...surfaces].sort((a, b) => a.tag.localeCompare(b.tag)).map((s) => ({ name: s.tag, description: s.description })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: {
        "X-RateLimit-Limit": integerHeader("Calls allowed in the current window"),
        "X-RateLimit-Remaining": integerHeader("Calls left in the current window"),
        "X-RateLimit-Reset": integerHeader("When the window resets, in Unix epoch seconds"),
        "Retry-After": integerHeader("Seconds to wait before trying again"),
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
