// HTTP surface of the tool server: POST carries JSON-RPC, GET returns the manifest. Transport concerns stay
// here (addresses, headers, body bytes); protocol.ts knows no HTTP.
//
// POST is the hot path and is served without express (routing, res.json's ETag and charset handling cost
// more CPU than the whole JSON-RPC dispatch): the same security and CORS headers are set, then one
// writeHead and one end with a string body, which Node sends in a single write. Everything else (GET,
// OPTIONS, other methods) goes through the express app as before. docs/performance.md has the figures.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "../core/errors";
import { MCP_MAX_BODY_BYTES } from "../core/limits";
import { logError } from "../core/log";
import { captureRawBody, createRestApp, parseJsonBody, securityHeaders } from "../http/rest";
import { corsFor } from "../http/cors";
import { refuseForeignAddress } from "../http/originGuard";
import { credentialKind, type Caller } from "../auth/caller";
import { authenticateRequest, enforceAddressLimit, enforceRateLimit } from "../http/endpoint";
import { McpDispatcher, rpcError } from "./protocol";
import { TOOLSET_NAMES, viewOfPath, type ToolView } from "./registry";
import { isModernVersion } from "./era2026";
import { checkStandardHeaders, headerValue } from "./httpHeaders";
import { mcpManifest } from "./manifest";
import { serveDiscovery } from "./discovery";
import { mcpChallenge, oauthUrls } from "../oauth/metadata";

/** Sends a JSON body (or none) in one write. */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) }).end(text);
}

// The DNS-rebinding verdict depends only on these three headers, and a deployment sees few distinct
// combinations: remember them (bounded) instead of parsing URLs on every call.
const addressVerdicts = new Map<string, AppError | null>();
function refusedAddress(req: IncomingMessage): AppError | undefined {
  const { host, origin } = req.headers;
  const key = `${String(req.headers["x-forwarded-host"])}\n${String(host)}\n${String(origin)}`;
  let verdict = addressVerdicts.get(key);
  if (verdict === undefined) {
    verdict = refuseForeignAddress(req.headers) ?? null;
    if (addressVerdicts.size >= 256) addressVerdicts.clear();
    addressVerdicts.set(key, verdict);
  }
  return verdict ?? undefined;
}

/** The path below the tool server's own that a request names (`""` for `/api/mcp`, or `/` on the function's own URL). */
function endpointPath(url: string | undefined): string | undefined {
  const end = url?.indexOf("?") ?? -1;
  const path = end === -1 ? (url ?? "") : url!.slice(0, end);
  if (path === "/") return "";
  return path.toLowerCase().startsWith("/api/mcp") ? path.slice("/api/mcp".length) : undefined;
}

/** The endpoint a path names: `/api/mcp` and the toolset URLs below it. */
function viewOfUrl(url: string | undefined): ToolView | undefined {
  const rest = endpointPath(url);
  return rest === undefined ? undefined : viewOfPath(rest);
}

export async function handleMcpPost(req: Request, res: Response): Promise<void> {
  // DNS rebinding: 403 before anything else; the JSON-RPC error has no id (none was read).
  const refused = refusedAddress(req);
  if (refused) {
    sendJson(res, refused.httpStatus, rpcError(undefined, refused));
    return;
  }
  const protocolVersionHeader = headerValue(req.headers, "mcp-protocol-version");
  const view = viewOfUrl(req.url);
  if (!view) {
    const error = new AppError("NOT_FOUND", "No tool server at this path", { hint: `Toolsets: ${TOOLSET_NAMES.join(", ")} or all, as /api/mcp/x/<toolset>[,<toolset>][/readonly].` });
    sendJson(res, 404, rpcError(isModernVersion(protocolVersionHeader) ? undefined : null, error));
    return;
  }
  // Requests without a credential are metered per client address before any work is done for them.
  const anonymous = credentialKind(req.headers) === "none";
  if (anonymous) {
    try {
      await enforceAddressLimit(res, req, "mcpUnauthenticated", "mcp");
    } catch (error) {
      sendJson(res, 429, rpcError(isModernVersion(protocolVersionHeader) ? undefined : null, error));
      return;
    }
  }
  let body: unknown;
  try {
    body = parseJsonBody(req, MCP_MAX_BODY_BYTES);
  } catch (error) {
    const err = error as AppError;
    sendJson(res, err.httpStatus, rpcError(isModernVersion(protocolVersionHeader) ? undefined : null, err));
    return;
  }
  let caller: Caller | undefined;
  const dispatcher = new McpDispatcher(
    async () => {
      try {
        caller = (await authenticateRequest(req, "caller", "mcp")).caller;
        return caller;
      } catch (error) {
        // A credential that fails counts against its address, as no credential does; over the limit, 429.
        if (!anonymous && error instanceof AppError && (error.httpStatus === 401 || error.httpStatus === 403)) {
          await enforceAddressLimit(res, req, "mcpUnauthenticated", "mcp");
        }
        throw error;
      }
    },
    (verified) => enforceRateLimit(res, req, "toolCalls", { caller: verified }, "mcp"),
    view,
  );
  const outcome = await dispatcher.handleBody(body, {
    protocolVersionHeader,
    checkModernMessage: (message) => checkStandardHeaders(req.headers, message, protocolVersionHeader),
  });
  // Every keyed response carries the caller's standing, even when no tools/call was counted.
  if (caller && !res.hasHeader("X-RateLimit-Limit")) await enforceRateLimit(res, req, "toolCalls", { caller }, "mcp", false).catch(() => undefined);
  // A 401 at a toolset or read-only URL names that URL's own metadata (RFC 9728 section 3.3).
  if (outcome.status === 401) {
    const challenge = mcpChallenge(outcome.status, outcome.body, `${oauthUrls().resource.replace(/\/$/, "")}${endpointPath(req.url)}`);
    if (challenge) res.setHeader("WWW-Authenticate", challenge);
  }
  sendJson(res, outcome.status, outcome.body);
}

function handleMcpGet(req: Request, res: Response): void {
  // An MCP client probing for a server-to-client stream would otherwise poll this JSON once a second.
  if ((req.headers.accept ?? "").includes("text/event-stream")) {
    res.status(405).set("Allow", "POST").json(rpcError(null, new AppError("METHOD_NOT_ALLOWED", "This server offers no SSE stream; use POST")));
    return;
  }
  res.set({ "Cache-Control": "public, max-age=300", Vary: "Accept" }).json(mcpManifest());
}

const expressApp = createRestApp((app) => {
  // Discovery before connecting (docs/mcp.md, "Discovery"): the AI Catalog and the server card.
  app.get(["/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json"], serveDiscovery("catalog"));
  // The path this service first served the catalog at: moved for good, so clients and caches learn the new one.
  app.get("/.well-known/mcp", (_req: Request, res: Response) => {
    res.set({ "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=3600" }).redirect(308, "/.well-known/mcp/catalog.json");
  });
  app.get(["/api/mcp/server-card", "/.well-known/mcp/server-card"], serveDiscovery("card"));
  app.post(["/api/mcp", "/api/mcp/*rest"], captureRawBody(MCP_MAX_BODY_BYTES), handleMcpPost);
  app.get(["/api/mcp", "/api/mcp/readonly", "/api/mcp/x/*rest"], handleMcpGet);
  app.all(["/api/mcp", "/api/mcp/readonly", "/api/mcp/x/*rest"], (_req: Request, res: Response) => {
    res.status(405).set("Allow", "GET, POST").json(rpcError(null, new AppError("METHOD_NOT_ALLOWED", "Use POST for JSON-RPC or GET for the manifest")));
  });
  // Reached directly (functions URL) rather than through the Hosting rewrite: serve the same endpoint at /.
  app.post("/", captureRawBody(MCP_MAX_BODY_BYTES), handleMcpPost);
  app.get("/", handleMcpGet);
}, { cors: "mcp" });

/** The paths express would route to handleMcpPost (its matching ignores case and one trailing slash). */
function isMcpPath(url: string | undefined): boolean {
  const end = url?.indexOf("?") ?? -1;
  const path = (end === -1 ? (url ?? "") : url!.slice(0, end)).toLowerCase();
  return path === "/" || path === "/api/mcp" || path === "/api/mcp/" || path === "/api/mcp/readonly" || path.startsWith("/api/mcp/readonly/") || path.startsWith("/api/mcp/x/");
}

const noop: NextFunction = () => undefined;
const captureBody = captureRawBody(MCP_MAX_BODY_BYTES);
const mcpCors = corsFor("mcp");

/** The tool server's request handler (Cloud Functions, or any node:http server). */
export function mcpApp(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "POST" || !isMcpPath(req.url)) {
    expressApp(req as Request, res as Response);
    return;
  }
  const request = req as Request;
  const response = res as Response;
  // What express would have provided: its `path` (for log lines) and the app's header middleware.
  if (request.path === undefined) Object.defineProperty(request, "path", { value: (req.url ?? "/").split("?")[0] });
  securityHeaders(request, response, noop);
  mcpCors(request, response, noop);
  captureBody(request, response, () => {
    handleMcpPost(request, response).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, rpcError(null, error)); // rpcError logs it
      else {
        logError("mcp.internal_error", "tool server internal error", error);
        res.destroy();
      }
    });
  });
}
