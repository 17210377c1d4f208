// Cross-origin access, decided here for every surface and answered by the apps themselves (the functions'
// own `cors` option is off everywhere, index.ts: it answered preflight before these rules ran, and in the
// emulator it reflected any origin). Public APIs are open to every origin without credentials (`*`, never
// Allow-Credentials: they take bearer keys, not cookies); the console and the HTML pages are same-origin
// only. OAuth: the endpoints a browser-based MCP client calls itself (discovery documents, registration,
// token, revocation) are open like the public APIs; the authorization page is a navigation and the consent
// page's API is called from our own origin with the person's ID token, so neither answers other origins
// (docs/decisions.md, "CORS").
import type { NextFunction, Request, Response } from "express";

type Policy = "open" | "same-origin";

const OAUTH_OPEN_PATHS = /^\/(?:\.well-known\/oauth-(?:authorization-server|protected-resource)(?:\/.*)?|oauth\/(?:register|token|revoke)\/?)$/i;

export const CORS_POLICY = {
  site: "open",
  mcp: "open",
  bulk: "open",
  sandbox: "open",
  images: "open",
  "app-scans": "open",
  console: "same-origin",
  pages: "same-origin",
  oauth: (path: string): Policy => (OAUTH_OPEN_PATHS.test(path) ? "open" : "same-origin"),
} as const satisfies Record<string, Policy | ((path: string) => Policy)>;

export type CorsSurface = keyof typeof CORS_POLICY;

export const CORS_ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Accept";

function answerOpen(req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
  res.setHeader("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset");
  res.setHeader("Access-Control-Max-Age", "3600");
  if (req.method === "OPTIONS") {
    res.status(204).end();
    return;
  }
  next();
}

const passThrough = (_req: Request, _res: Response, next: NextFunction): void => next();

/** The middleware answering cross-origin requests for one surface (preflight included). */
export function corsFor(surface: CorsSurface): (req: Request, res: Response, next: NextFunction) => void {
  const policy: Policy | ((path: string) => Policy) = CORS_POLICY[surface];
  if (typeof policy === "function") return (req, res, next) => (policy(req.path) === "open" ? answerOpen(req, res, next) : next());
  return policy === "open" ? answerOpen : passThrough;
}
