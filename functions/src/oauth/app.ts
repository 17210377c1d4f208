// HTTP surface of the OAuth authorization server on the app host: discovery documents, registration,
// the authorization endpoint, the consent page's API, token and revocation. Every error leaves as an OAuth
// error body (oauth/errors.ts) or, where the person is looking at a browser, as a short HTML page.
import type { Request, Response } from "express";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { AppError } from "../core/errors";
import { parseOrThrow } from "../core/validation";
import { logServerError } from "../core/log";
import { getConfig } from "../core/config";
import { captureRawBody, createRestApp, isJsonContentType, pageCsp, parseJsonBody, rawBodyOf } from "../http/rest";
import { clientOf, limitSubjectOf } from "../http/clientAddress";
import { callerForUser, verifyUser } from "../auth/caller";
import { escapeHtml } from "../listings/html";
import { registerClient } from "./clients";
import { BROWSER_ID, decide, describeRequest, startAuthorization } from "./authorize";
import { oauthError, oauthErrorResponse } from "./errors";
import { authorizationServerMetadata, oauthUrls, PENDING_REQUEST_TTL_MS, protectedResourceMetadata } from "./metadata";
import { enforceOAuthLimit } from "./rateLimit";
import { newSecret } from "./secrets";
import { exchange, formParams, revoke } from "./token";
import { DecisionSchema } from "./schemas";

type Handler = (req: Request, res: Response) => Promise<void>;

function sendOAuthError(res: Response, error: unknown): void {
  const { status, body, err } = oauthErrorResponse(error);
  if (err.requestId) logServerError({ surface: "oauth", requestId: err.requestId, code: err.code }, error);
  if (typeof err.details?.retryAfter === "number") res.set("Retry-After", String(err.details.retryAfter));
  res.status(status).set("Cache-Control", "no-store").json(body);
}

const oauthRoute = (handler: Handler): Handler => async (req, res) => {
  try {
    await handler(req, res);
  } catch (error) {
    sendOAuthError(res, error);
  }
};

function formBody(req: Request): Map<string, string> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw oauthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded");
  const raw = rawBodyOf(req);
  if (raw && raw.length > REST_MAX_BODY_BYTES) throw oauthError("invalid_request", "Request body is too large");
  return formParams(raw ? raw.toString("utf8") : new URLSearchParams(req.body as Record<string, string>).toString());
}

const ERROR_PAGE_STYLE = "body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}";

function errorPage(res: Response, status: number, message: string): void {
  res
    .status(status)
    .set("Content-Security-Policy", pageCsp(ERROR_PAGE_STYLE))
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>Authorization stopped</title><style>${ERROR_PAGE_STYLE}</style></head><body><main><h1>Authorization stopped</h1>` +
        `<p id="oauth-error">${escapeHtml(message)}</p><p>Return to the app and try connecting again.</p></main></body></html>`,
    );
}

/**
 * The browser binding of pending requests. Firebase Hosting forwards only a cookie named `__session` to
 * functions; this one is scoped to /oauth, so it never meets the console's session cookie (path /) there
 * and browsers send it first. Its value is a random browser id, reused across requests so that two tabs
 * authorizing at once both work.
 */
const BINDING_COOKIE = "__session";

function browserIdsOf(req: Request): string[] {
  return (req.headers.cookie ?? "")
    .split(";")
    .map((part) => part.trim().split("="))
    .filter(([name, value]) => name === BINDING_COOKIE && value !== undefined && BROWSER_ID.test(value))
    .map(([, value]) => value);
}

function bindBrowser(req: Request, res: Response): string {
  const browserId = browserIdsOf(req)[0] ?? newSecret();
  res.cookie(BINDING_COOKIE, browserId, {
    path: "/oauth",
    httpOnly: true,
    secure: !getConfig().isEmulator,
    sameSite: "lax",
    maxAge: PENDING_REQUEST_TTL_MS,
  });
  return browserId;
}

const consentCaller = async (req: Request) => callerForUser(await verifyUser({ authorization: req.headers.authorization }));

export const oauthApp = createRestApp((app) => {
  app.use(captureRawBody(REST_MAX_BODY_BYTES));
  app.use((_req, res, next) => {
    // The strict API CSP and X-Frame-Options DENY come from createRestApp (no framing of anything here);
    // the authorization URL carries state and the consent page's URL a request id: send no Referer.
    res.set("Referrer-Policy", "no-referrer");
    next();
  });

  const prm = (req: Request, res: Response) => {
    // RFC 9728 section 3.1: the document for /api/mcp sits at the well-known prefix plus the resource's path.
    const suffix = req.path.slice("/.well-known/oauth-protected-resource".length);
    if (suffix !== "" && suffix !== new URL(oauthUrls().resource).pathname) {
      sendOAuthError(res, new AppError("NOT_FOUND", "No protected resource at this path"));
      return;
    }
    res.set("Cache-Control", "public, max-age=300").json(protectedResourceMetadata());
  };
  app.get("/.well-known/oauth-protected-resource", prm);
  app.get("/.well-known/oauth-protected-resource/*rest", prm);
  app.get("/.well-known/oauth-authorization-server", (_req: Request, res: Response) => {
    res.set("Cache-Control", "public, max-age=300").json(authorizationServerMetadata());
  });

  app.post(
    "/oauth/register",
    oauthRoute(async (req, res) => {
      await enforceOAuthLimit("register", limitSubjectOf(clientOf(req)));
      if (!isJsonContentType(req)) throw oauthError("invalid_client_metadata", "Send the client metadata as application/json");
      let body: unknown;
      try {
        body = parseJsonBody(req, REST_MAX_BODY_BYTES);
      } catch (error) {
        throw oauthError("invalid_client_metadata", (error as Error).message);
      }
      res.status(201).set("Cache-Control", "no-store").json(await registerClient(body));
    }),
  );

  app.get("/oauth/authorize", async (req: Request, res: Response) => {
    // private: Hosting drops Set-Cookie from a response it may cache.
    res.set("Cache-Control", "private, no-store");
    try {
      await enforceOAuthLimit("authorize", limitSubjectOf(clientOf(req)));
      const outcome = await startAuthorization(req.query as Record<string, unknown>, bindBrowser(req, res));
      if (outcome.kind === "redirect") res.redirect(302, outcome.location);
      else errorPage(res, outcome.status, outcome.message);
    } catch (error) {
      const { status, body, err } = oauthErrorResponse(error);
      if (err.requestId) logServerError({ surface: "oauth", requestId: err.requestId, code: err.code, path: "/oauth/authorize" }, error);
      errorPage(res, status, body.error_description);
    }
  });

  // The consent page's API: the person's Firebase ID token, never a key or an OAuth token.
  app.get(
    "/oauth/requests/:id",
    oauthRoute(async (req, res) => {
      const caller = await consentCaller(req);
      res.set("Cache-Control", "no-store").json(await describeRequest(String(req.params.id), caller, browserIdsOf(req)));
    }),
  );
  app.post(
    "/oauth/requests/:id",
    oauthRoute(async (req, res) => {
      await enforceOAuthLimit("authorize", limitSubjectOf(clientOf(req)));
      const caller = await consentCaller(req);
      if (!isJsonContentType(req)) throw oauthError("invalid_request", "Send the decision as application/json");
      const input = parseOrThrow(DecisionSchema, parseJsonBody(req, REST_MAX_BODY_BYTES), "decision");
      res.set("Cache-Control", "no-store").json(await decide(String(req.params.id), caller, browserIdsOf(req), input));
    }),
  );

  app.post(
    "/oauth/token",
    oauthRoute(async (req, res) => {
      await enforceOAuthLimit("tokenAddress", limitSubjectOf(clientOf(req)));
      const tokens = await exchange(formBody(req));
      res.set({ "Cache-Control": "no-store", Pragma: "no-cache" }).json(tokens);
    }),
  );

  app.post(
    "/oauth/revoke",
    oauthRoute(async (req, res) => {
      await enforceOAuthLimit("tokenAddress", limitSubjectOf(clientOf(req)));
      await revoke(formBody(req));
      res.status(200).set("Cache-Control", "no-store").end();
    }),
  );

  app.all("/oauth/*rest", (_req: Request, res: Response) => sendOAuthError(res, new AppError("NOT_FOUND", "No such OAuth endpoint")));
});
