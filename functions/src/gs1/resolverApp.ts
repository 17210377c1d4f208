// The gs1Resolver function's handler (functions/src/index.ts): Hosting rewrites each primary key's path
// (/01/**, /414/**, /00/** ...) and /.well-known/gs1resolver here (firebase.json). No express app: the
// request is one read (gs1/resolver.ts) and, for a resolution, one scan written (gs1/scans.ts), so a cold
// start loads only this folder, the scan recording, the store and core. 512 MiB, as the redirect: the
// place database of scans is held in memory.
import type { Request, Response } from "express";
import { logError } from "../core/log";
import { scanCountedHeader } from "../scans/record";
import { resolve } from "./resolver";
import { recordResolution } from "./scans";

const header = (req: Request, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

export async function resolverApp(req: Request, res: Response): Promise<void> {
  const url = req.originalUrl || req.url;
  const q = url.indexOf("?");
  try {
    const answer = await resolve({
      method: req.method,
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? "" : url.slice(q + 1),
      headers: { accept: header(req, "accept"), acceptLanguage: header(req, "accept-language") },
    });
    // Counted before the answer, like a /qr/ scan: nothing runs after the response.
    const counted = answer.resolved ? { "X-Scan-Counted": scanCountedHeader(await recordResolution(req, answer.resolved)) } : {};
    res.removeHeader("X-Powered-By");
    res.status(answer.status).set({ ...answer.headers, ...counted });
    if (answer.body === undefined || req.method.toUpperCase() === "HEAD") res.end();
    // end(), not send(): send() would add "; charset=utf-8" to application/linkset+json.
    else res.end(answer.body);
  } catch (error) {
    logError("resolver.failed", "The resolver failed to answer", error, { path: url.slice(0, 200) });
    if (!res.headersSent) {
      res.status(500).set({ "Access-Control-Allow-Origin": "*", "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" })
        .send(JSON.stringify({ error: "Internal Server Error", code: "INTERNAL", message: "The resolver failed", hint: "Retry in a moment.", status: 500 }));
    }
  }
}
