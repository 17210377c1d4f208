// The gs1Resolver function's handler (functions/src/index.ts): Hosting rewrites each primary key's path
// (/01/**, /414/**, /00/** ...) and /.well-known/gs1resolver here (firebase.json). No express app: the
// request is one read (gs1/resolver.ts) and, for a resolution, one scan written (gs1/scans.ts), so a cold
// start loads only this folder, the scan recording, the store and core. 512 MiB, as the redirect: the
// place database of scans is held in memory. A merchant's own host reaches the same answer through the
// redirect function (redirect/customHost.ts), with that host's scope.
import type { IncomingMessage, ServerResponse } from "node:http";
import { logError } from "../core/log";
import { scanCountedHeader } from "../scans/record";
import { resolve } from "./resolver";
import { recordResolution } from "./scans";
import { ownHostScope, sharedScope, type ResolverScope } from "./service";

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

export { ownHostScope };

/**
 * Answers a resolver request for `scope`'s host. `siteNotFound` answers a root word that is no compressed
 * URI (the host's own 404 page); without it, the shared site's 404 page.
 */
export async function answerResolverRequest(req: IncomingMessage, res: ServerResponse, scope: ResolverScope, siteNotFound?: (res: ServerResponse) => Promise<void> | void): Promise<void> {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl || req.url || "/";
  const q = url.indexOf("?");
  const method = req.method ?? "GET";
  try {
    const answer = await resolve(
      {
        method,
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? "" : url.slice(q + 1),
        headers: { accept: header(req, "accept"), acceptLanguage: header(req, "accept-language") },
      },
      scope,
    );
    if (answer.siteNotFound && siteNotFound) return await siteNotFound(res);
    // Counted before the answer, like a /qr/ scan: nothing runs after the response.
    const counted = answer.resolved ? { "X-Scan-Counted": scanCountedHeader(await recordResolution(req, answer.resolved)) } : {};
    res.removeHeader("X-Powered-By");
    res.writeHead(answer.status, { ...answer.headers, ...counted });
    // The body as written, never re-encoded: application/linkset+json gets no "; charset=utf-8" added.
    if (answer.body === undefined || method.toUpperCase() === "HEAD") res.end();
    else res.end(answer.body);
  } catch (error) {
    logError("resolver.failed", "The resolver failed to answer", error, { path: url.slice(0, 200), host: scope.host });
    if (!res.headersSent) {
      res
        .writeHead(500, { "Access-Control-Allow-Origin": "*", "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" })
        .end(JSON.stringify({ error: "Internal Server Error", code: "INTERNAL", message: "The resolver failed", hint: "Retry in a moment.", status: 500 }));
    }
  }
}

/** The shared resolver host's handler. */
export async function resolverApp(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await answerResolverRequest(req, res, sharedScope());
}
