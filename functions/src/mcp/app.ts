// HTTP surface of the tool server: POST carries JSON-RPC, GET returns the manifest. Transport concerns stay
// here (addresses, headers, body bytes); protocol.ts knows no HTTP.
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { MCP_MAX_BODY_BYTES } from "../core/limits";
import { captureRawBody, createRestApp, parseJsonBody } from "../http/rest";
import { refuseForeignAddress } from "../http/originGuard";
import { credentialKind, type Caller } from "../auth/caller";
import { authenticateRequest, enforceAddressLimit, enforceRateLimit } from "../http/endpoint";
import { McpDispatcher, rpcError } from "./protocol";
import { isModernVersion } from "./era2026";
import { checkStandardHeaders, headerValue } from "./httpHeaders";
import { mcpManifest } from "./manifest";
import { mcpChallenge } from "../oauth/metadata";

export async function handleMcpPost(req: Request, res: Response): Promise<void> {
  // DNS rebinding: 403 before anything else; the JSON-RPC error has no id (none was read).
  const refused = refuseForeignAddress(req.headers);
  if (refused) {
    res.status(refused.httpStatus).json(rpcError(undefined, refused));
    return;
  }
  const protocolVersionHeader = headerValue(req.headers, "mcp-protocol-version");
  // Requests without a credential are metered per client address before any work is done for them.
  const anonymous = credentialKind(req.headers) === "none";
  if (anonymous) {
    try {
      await enforceAddressLimit(res, req, "mcpUnauthenticated", "mcp");
    } catch (error) {
      res.status(429).json(rpcError(isModernVersion(protocolVersionHeader) ? undefined : null, error));
      return;
    }
  }
  let body: unknown;
  try {
    body = parseJsonBody(req, MCP_MAX_BODY_BYTES);
  } catch (error) {
    const err = error as AppError;
    res.status(err.httpStatus).json(rpcError(isModernVersion(protocolVersionHeader) ? undefined : null, err));
    return;
  }
  let caller: Caller | undefined;
  const dispatcher = new McpDispatcher(
    async () => {
      try {
        caller = (await authenticateRequest(req, "caller", "mcp")).caller!;
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
  );
  const outcome = await dispatcher.handleBody(body, {
    protocolVersionHeader,
    checkModernMessage: (message) => checkStandardHeaders(req.headers, message),
  });
  // Every keyed response carries the caller's standing, even when no tools/call was counted.
  if (caller && !res.hasHeader("X-RateLimit-Limit")) await enforceRateLimit(res, req, "toolCalls", { caller }, "mcp", false).catch(() => undefined);
  const challenge = mcpChallenge(outcome.status, outcome.body);
  if (challenge) res.set("WWW-Authenticate", challenge);
  if (outcome.body === undefined) {
    res.status(outcome.status).end();
    return;
  }
  res.status(outcome.status).json(outcome.body);
}

function handleMcpGet(req: Request, res: Response): void {
  // An MCP client probing for a server-to-client stream would otherwise poll this JSON once a second.
  if ((req.headers.accept ?? "").includes("text/event-stream")) {
    res.status(405).set("Allow", "POST").json(rpcError(null, new AppError("METHOD_NOT_ALLOWED", "This server offers no SSE stream; use POST")));
    return;
  }
  res.set({ "Cache-Control": "public, max-age=300", Vary: "Accept" }).json(mcpManifest());
}

export const mcpApp = createRestApp((app) => {
  app.post("/api/mcp", captureRawBody(MCP_MAX_BODY_BYTES), handleMcpPost);
  app.get("/api/mcp", handleMcpGet);
  app.all("/api/mcp", (_req: Request, res: Response) => {
    res.status(405).set("Allow", "GET, POST").json(rpcError(null, new AppError("METHOD_NOT_ALLOWED", "Use POST for JSON-RPC or GET for the manifest")));
  });
  // Reached directly (functions URL) rather than through the Hosting rewrite: serve the same endpoint at /.
  app.post("/", captureRawBody(MCP_MAX_BODY_BYTES), handleMcpPost);
  app.get("/", handleMcpGet);
});
