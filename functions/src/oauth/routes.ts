// OAuth's routes on the shared edge (http/endpoint.ts): registration, token and revocation for clients, and
// the consent page's own API (internal: the page is ours, not a third-party integration). Their errors
// leave as OAuth error bodies through the surface's error style (oauth/errors.ts OAUTH_ERRORS).
// The HTML authorization page and the well-known documents stay in app.ts.
import type { Request, Response } from "express";
import { logOAuthFailed } from "../core/log";
import { endpoint, enforceSubjectLimit, type Endpoint } from "../http/endpoint";
import { clientAddressOf } from "../core/clientAddress";
import { rawBodyOf } from "../http/rest";
import { BROWSER_ID, decide, describeRequest } from "./authorize";
import { RegistrationRequestSchema, registerClient } from "./clients";
import { asOAuthError, oauthErrorResponse, REGISTRATION_PATH } from "./errors";
import {
  DecisionResponseSchema,
  DecisionSchema,
  RegistrationResponseSchema,
  RequestDescriptionSchema,
  RequestParams,
  RevocationRequestSchema,
  TokenRequestSchema,
  TokenResponseSchema,
} from "./schemas";
import { exchange, revoke, type Limit } from "./token";

export const SURFACE = "oauth";

/**
 * The browser binding of pending requests. Firebase Hosting forwards only a cookie named `__session` to
 * functions; this one is scoped to /oauth, so it never meets the console's session cookie (path /) there
 * and browsers send it first. Its value is a random browser id, reused across requests so that two tabs
 * authorizing at once both work.
 */
export const BINDING_COOKIE = "__session";

export function browserIdsOf(req: Request): string[] {
  return (req.headers.cookie ?? "")
    .split(";")
    .map((part) => part.trim().split("="))
    .filter(([name, value]) => name === BINDING_COOKIE && value !== undefined && BROWSER_ID.test(value))
    .map(([, value]) => value);
}

const NO_STORE = { "Cache-Control": "no-store" };

const limitFor = (req: Request, res: Response): Limit => (name, subject) => enforceSubjectLimit(res, req, name, subject, SURFACE);

/** Token and revocation refusals are security events: the OAuth error, the client_id and grant type as sent. */
function logRefusal(req: Request, _res: Response, error: unknown): void {
  const { status, body } = oauthErrorResponse(asOAuthError(error, req.path));
  if (status === 429 || status >= 500) return; // logged as rate.limited / request.failed
  const form = new URLSearchParams(rawBodyOf(req)?.toString("utf8") ?? "");
  logOAuthFailed({
    surface: SURFACE,
    path: req.path,
    client: clientAddressOf(req),
    error: body.error,
    description: body.error_description,
    status,
    clientId: form.get("client_id")?.slice(0, 200) || undefined,
    grantType: form.get("grant_type")?.slice(0, 40) || undefined,
  });
}

export const oauthRoutes: Endpoint[] = [
  endpoint({
    method: "POST",
    path: REGISTRATION_PATH,
    summary: "Register a public OAuth client (RFC 7591 dynamic client registration)",
    credential: "none",
    addressLimit: "oauthRegister",
    body: RegistrationRequestSchema,
    response: RegistrationResponseSchema,
    headers: NO_STORE,
    doc: {
      operationId: "registerOAuthClient",
      description:
        "Registers a public client (no secret; PKCE is required at the token endpoint) and returns its client_id. " +
        "Redirect URIs must be https, or http on a loopback address for native clients. Clients that publish a metadata document may use its URL as client_id instead.",
      success: [201],
      styledErrors: { 400: ["invalid_client_metadata", "invalid_redirect_uri"] },
      example: {
        body: { client_name: "Example agent", redirect_uris: ["https://agent.example.com/oauth/callback"] },
        response: {
          client_id: "svc-client-4kq8Zr2vX9mT1pLw",
          client_id_issued_at: 1795000000,
          client_name: "Example agent",
          redirect_uris: ["https://agent.example.com/oauth/callback"],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        },
      },
    },
    async handle({ body, res }) {
      res.status(201);
      return registerClient(body);
    },
  }),
  endpoint({
    method: "POST",
    path: "/oauth/token",
    summary: "Redeem an authorization code (with its PKCE verifier) or a refresh token for tokens",
    credential: "none",
    addressLimit: "oauthTokenAddress",
    body: TokenRequestSchema,
    bodyFormat: "form",
    response: TokenResponseSchema,
    headers: { ...NO_STORE, Pragma: "no-cache" },
    doc: {
      operationId: "exchangeOAuthToken",
      description:
        "`grant_type=authorization_code` redeems a code from the authorization page once, with the PKCE `code_verifier` and the same `redirect_uri`; " +
        "`grant_type=refresh_token` rotates the refresh token (a refresh token used twice revokes its grant). The access token is a Bearer token for /api/mcp.",
      example: {
        body: {
          grant_type: "authorization_code",
          client_id: "svc-client-4kq8Zr2vX9mT1pLw",
          code: "Qm9vbGVhbi1jb2RlLWV4YW1wbGUtb25seS0xMjM0NTY",
          code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
          redirect_uri: "https://agent.example.com/oauth/callback",
          resource: "https://svc.example.com/api/mcp",
        },
        response: {
          access_token: "svc_at_grant_5f2c0e9a41b7d3c8e6a09f14.kX3vN8qLz0Rb2YwT5mJc7HdP1sUe9GoA4iVfK6nQyBw",
          token_type: "Bearer",
          expires_in: 3600,
          refresh_token: "svc_rt_grant_5f2c0e9a41b7d3c8e6a09f14.Zp7Lr2Wd9Xc4Vb1Nm6Qs3Tf8Hg5Jk0Ya2Ue7Io4Pl1",
          scope: "merchant:read qr:write",
        },
      },
      styledErrors: {
        400: ["invalid_request", "invalid_grant", "invalid_scope", "invalid_target", "unsupported_grant_type"],
        401: ["invalid_client"],
      },
    },
    onError: logRefusal,
    handle: ({ body, req, res }) => exchange(body, limitFor(req, res)),
  }),
  endpoint({
    method: "POST",
    path: "/oauth/revoke",
    summary: "Revoke an access or refresh token and its grant (RFC 7009)",
    credential: "none",
    addressLimit: "oauthTokenAddress",
    body: RevocationRequestSchema,
    bodyFormat: "form",
    headers: NO_STORE,
    doc: {
      operationId: "revokeOAuthToken",
      description: "Revokes the token and the whole grant it belongs to. An unknown or expired token is answered 200 too (RFC 7009 section 2.2), so a client can always forget its tokens.",
      empty: true,
      styledErrors: { 400: ["invalid_request", "unsupported_token_type"], 401: ["invalid_client", "unauthorized_client"] },
      example: { body: { token: "svc_rt_example", client_id: "svc-client-4kq8Zr2vX9mT1pLw" } },
    },
    onError: logRefusal,
    async handle({ body, req, res }) {
      await revoke(body, limitFor(req, res));
      res.status(200).end();
    },
  }),
  // The consent page's API: the person's Firebase ID token, never a key or an OAuth token; the __session
  // cookie on /oauth is the browser binding, not a console session.
  endpoint({
    method: "GET",
    path: "/oauth/requests/:id",
    summary: "Describe a pending authorization request to the person deciding it",
    internal: true,
    credential: "member",
    bearerOnly: true,
    params: RequestParams,
    response: RequestDescriptionSchema,
    headers: NO_STORE,
    handle: ({ params, caller, req }) => describeRequest(params.id, caller, browserIdsOf(req)),
  }),
  endpoint({
    method: "POST",
    path: "/oauth/requests/:id",
    summary: "Record the person's decision on a pending authorization request",
    internal: true,
    credential: "member",
    bearerOnly: true,
    addressLimit: "oauthAuthorize",
    params: RequestParams,
    body: DecisionSchema,
    response: DecisionResponseSchema,
    headers: NO_STORE,
    handle: ({ params, body, caller, req }) => decide(params.id, caller, browserIdsOf(req), body),
  }),
];
