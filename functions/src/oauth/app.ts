// HTTP surface of the OAuth authorization server on the app host. Registration, token, revocation and the
// consent page's API are declared on the shared edge (oauth/routes.ts); this file adds what stays bespoke:
// the discovery documents and the HTML authorization endpoint. Every error leaves as an OAuth error body
// (oauth/errors.ts OAUTH_ERRORS) or, where the person is looking at a browser, as a short HTML page.
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { logServerError } from "../core/log";
import { getConfig } from "../core/config";
import { createRestApp, methodNotAllowed, pageCsp, sendJsonError } from "../http/rest";
import { enforceAddressLimit, mountEndpoints } from "../http/endpoint";
import { escapeHtml } from "../listings/html";
import { startAuthorization } from "./authorize";
import { OAUTH_ERRORS, oauthErrorResponse } from "./errors";
import { authorizationServerMetadata, canonicalResource, oauthUrls, PENDING_REQUEST_TTL_MS, protectedResourceMetadata } from "./metadata";
import { BINDING_COOKIE, browserIdsOf, oauthRoutes, SURFACE } from "./routes";
import { newSecret } from "./secrets";

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

const sendOAuthError = (req: Request, res: Response, error: unknown) => sendJsonError(res, error, req.path, OAUTH_ERRORS);

export const oauthApp = createRestApp(
  (app) => {
    app.use((_req, res, next) => {
      // The strict API CSP and X-Frame-Options DENY come from createRestApp (no framing of anything here);
      // the authorization URL carries state and the consent page's URL a request id: send no Referer.
      res.set("Referrer-Policy", "no-referrer");
      next();
    });

    const prm = (req: Request, res: Response) => {
      // RFC 9728 section 3.1: the document for /api/mcp sits at the well-known prefix plus the resource's
      // path; so does each toolset or read-only URL's, naming that URL as its resource (section 3.3).
      const suffix = req.path.slice("/.well-known/oauth-protected-resource".length);
      const resource = suffix === "" ? oauthUrls().resource : `${new URL(oauthUrls().resource).origin}${suffix}`;
      if (!canonicalResource(resource)) {
        sendOAuthError(req, res, new AppError("NOT_FOUND", "No protected resource at this path"));
        return;
      }
      res.set("Cache-Control", "public, max-age=300").json(protectedResourceMetadata(resource));
    };
    app.get("/.well-known/oauth-protected-resource", prm);
    app.get("/.well-known/oauth-protected-resource/*rest", prm);
    app.get("/.well-known/oauth-authorization-server", (_req: Request, res: Response) => {
      res.set("Cache-Control", "public, max-age=300").json(authorizationServerMetadata());
    });

    app.get("/oauth/authorize", async (req: Request, res: Response) => {
      // private: Hosting drops Set-Cookie from a response it may cache.
      res.set("Cache-Control", "private, no-store");
      try {
        await enforceAddressLimit(res, req, "oauthAuthorize", SURFACE);
        const outcome = await startAuthorization(req.query as Record<string, unknown>, bindBrowser(req, res));
        if (outcome.kind === "redirect") res.redirect(302, outcome.location);
        else errorPage(res, outcome.status, outcome.message);
      } catch (error) {
        const { status, body, err } = oauthErrorResponse(error);
        if (err.requestId) logServerError({ surface: SURFACE, requestId: err.requestId, code: err.code, path: "/oauth/authorize" }, error);
        errorPage(res, status, body.error_description);
      }
    });

    // Documents and the authorization page are read, never sent to.
    app.all(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/*rest", "/.well-known/oauth-authorization-server", "/oauth/authorize"], () =>
      methodNotAllowed("GET, HEAD"),
    );

    mountEndpoints(app, SURFACE, oauthRoutes);
    app.all("/oauth/*rest", (req: Request, res: Response) => sendOAuthError(req, res, new AppError("NOT_FOUND", "No such OAuth endpoint")));
  },
  { cors: "oauth", errors: OAUTH_ERRORS },
);
