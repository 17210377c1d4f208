// A merchant's own host (docs/domains.md, "Serving"). The load balancer in front of merchants' hosts
// sends every request for them to the redirect function (http/loadBalancer.ts); the host comes from Host
// alone. A host that is the service's own is answered as before (redirect/app.ts). Any other host:
//   - held by a domain that is served (active, or invalid within its grace): `/qr/<id>` answers that
//     workspace's codes exactly as the service's own host does, and any other workspace's id gets the
//     same 404 page as an id that does not exist (nothing recorded, nobody but the host's merchant named);
//     `/` redirects to the workspace's rootUrl, or that 404 page; a GS1 Digital Link path (as Hosting
//     routes them to the resolver on the shared host): that workspace's GS1 items on this host
//     (docs/gs1-on-brand-hosts.md); any other path: a "page not found". Each 404 page is in the merchant's
//     name and page colours (one read of its workspace; the plain page when that read fails).
//   - not held, or not served: the platform's 404, for every path.
// The host's claim and a code's workspace are read side by side; a code this instance has served before
// needs no read for its workspace (which never changes).
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { Coalescer } from "../core/coalescer";
import { getConfig } from "../core/config";
import { withTimeout } from "../core/firebase";
import { QR_ID_PATTERN } from "../core/ids";
import { LruMap } from "../core/lru";
import { readLinks } from "../store/codes";
import { readHostClaims, readHostPages, type HostPages, type ServedHost } from "../store/hostServing";
import { countOps } from "../store/opCounter";
import { API_CSP, pageCsp } from "../http/rest";
import { loadBalancerHeaders, overrideHeaders, requestHost } from "../http/loadBalancer";
import { knownCode } from "./memory";
import { NOT_FOUND_STYLE, notFoundStyle, pageNotFoundPage, type PageBrand } from "./pages";
import { wellKnownAnswer, wellKnownFileOf } from "../domains/appLinks";
import { isResolverPath } from "../gs1/routes";

let resolverModule: typeof import("../gs1/resolverApp") | undefined;
const gs1Resolver = () => (resolverModule ??= require("../gs1/resolverApp") as typeof import("../gs1/resolverApp"));

/** How long a custom host's claim, or a code's workspace, may take to read before the answer is a 503. */
export const HOST_READ_DEADLINE_MS = 3_000;

/** Suffixes of the platform's own function hosts: a request reaching us with one is for the service's own host. */
const PLATFORM_SUFFIXES = [".run.app", ".cloudfunctions.net"];

/**
 * The merchant's host a request is for, or undefined when it is for the service's own host: one of its
 * configured URLs' hosts (with or without the port), ALLOWED_HOSTS, the hosts it refuses as domains
 * (config domains.ownHosts), a Cloud Run or Cloud Functions host, an address, `localhost`, or no Host.
 */
export function customHostOf(req: Pick<IncomingMessage, "headers">): string | undefined {
  const { name, withPort } = requestHost(req);
  if (!name || name === "localhost") return undefined;
  const config = getConfig();
  if (config.allowedHosts.includes(withPort) || config.allowedHosts.includes(name) || config.domains.ownHosts.includes(name)) return undefined;
  if (PLATFORM_SUFFIXES.some((suffix) => name.endsWith(suffix)) || isIP(name)) return undefined;
  return name;
}

/** Thrown when a claim or a code's workspace could not be read in time and nothing is remembered: a 503. */
export class HostUnavailable extends Error {}

const claimReads = new Coalescer<string, ServedHost | undefined>(async (hosts) => {
  const unique = [...new Set(hosts)];
  const claims = await withTimeout(readHostClaims(unique), HOST_READ_DEADLINE_MS, "host claim read");
  countOps({ reads: unique.length });
  const byHost = new Map(unique.map((host, i) => [host, claims[i]]));
  return hosts.map((host) => byHost.get(host));
}, 100);

/** The last claim read of each host (null: none), answering when a read fails; bounded like the code memories. */
const lastClaims = new LruMap<string, ServedHost | null>(1_000);

/**
 * The host's claim, read for every request (a detach or a delete applies to the very next one; reads of
 * one host at once share one), or the last one read when the read fails.
 */
async function claimOf(host: string): Promise<ServedHost | undefined> {
  try {
    const claim = await claimReads.submit(host);
    lastClaims.set(host, claim ?? null);
    return claim;
  } catch {
    const last = lastClaims.get(host);
    if (last === undefined) throw new HostUnavailable("host claim read failed");
    return last ?? undefined;
  }
}

/** The workspace a code belongs to (remembered, else read), undefined when no such code exists. */
async function workspaceOfCode(id: string): Promise<string | undefined> {
  const known = knownCode(id).known;
  if (known) return known.merchantId;
  try {
    const [link] = await withTimeout(readLinks([id]), HOST_READ_DEADLINE_MS, "link read");
    countOps({ reads: 1 });
    return link?.merchantId;
  } catch {
    throw new HostUnavailable("link read failed");
  }
}

export function platformNotFoundPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Page not found</title>
<style>${NOT_FOUND_STYLE}</style></head>
<body><h1>Page not found</h1><p>Nothing is served at this address.</p></body></html>`;
}

function sendPlatformNotFound(res: ServerResponse): void {
  res.removeHeader("X-Powered-By");
  res.writeHead(404, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(NOT_FOUND_STYLE) }).end(platformNotFoundPage());
}

export interface OwnHostAnswers {
  /** The service's own answer to the request (redirect/app.ts): the same answer, rule and count on either host; the scan records `host`. */
  serve(req: IncomingMessage, res: ServerResponse, host: string): void;
  /** The "this QR code is not active" page, in the merchant's name and colours when `brand` is given. */
  sendNotFound(res: ServerResponse, brand?: PageBrand): void;
}

/** The workspace's pages settings, or undefined when they cannot be read in time (its pages are then the plain ones). */
async function hostPagesOf(merchantId: string): Promise<HostPages | undefined> {
  try {
    const pages = await withTimeout(readHostPages(merchantId), HOST_READ_DEADLINE_MS, "workspace pages read");
    countOps({ reads: 1 });
    return pages;
  } catch {
    return undefined;
  }
}

const brandOf = (pages: HostPages | undefined): PageBrand | undefined => pages && { name: pages.name, ...(pages.pageColours ?? {}) };

/** 404 "page not found" on a served host, in its merchant's name and colours. */
async function sendMerchantNotFound(res: ServerResponse, merchantId: string): Promise<void> {
  const brand = brandOf(await hostPagesOf(merchantId));
  res.removeHeader("X-Powered-By");
  res.writeHead(404, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(notFoundStyle(brand)) }).end(pageNotFoundPage(brand));
}

const QR_PATH = /^\/qr\/([^/?#]*)\/?(?:[?#]|$)/;

function codeIdOf(url: string, method: string): string | undefined | null {
  const match = method === "GET" || method === "HEAD" || method === "POST" ? QR_PATH.exec(url) : null;
  if (!match) return null; // not a code's path
  try {
    const id = decodeURIComponent(match[1]);
    return QR_ID_PATTERN.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

async function sendWellKnown(req: IncomingMessage, res: ServerResponse, host: string, path: string, merchantId: string): Promise<void> {
  const answer = await withTimeout(wellKnownAnswer(host, path), HOST_READ_DEADLINE_MS, "app association file read").catch(() => {
    throw new HostUnavailable("app association file read failed");
  });
  countOps({ reads: 1 });
  if (!answer) return sendMerchantNotFound(res, merchantId);
  res.removeHeader("X-Powered-By");
  res
    .writeHead(answer.status, { "Content-Type": answer.contentType, "Cache-Control": "public, max-age=300", "Content-Security-Policy": API_CSP, "Content-Length": String(Buffer.byteLength(answer.body)) })
    .end(req.method === "HEAD" ? undefined : answer.body);
}

/** Answers a request for a merchant's host (see the top of this file). Rejects with HostUnavailable for a 503. */
export async function serveCustomHost(req: IncomingMessage, res: ServerResponse, host: string, own: OwnHostAnswers): Promise<void> {
  const url = req.url ?? "/";
  const method = req.method ?? "GET";
  const path = url.split(/[?#]/)[0];
  const id = codeIdOf(url, method);
  const [claim, workspace] = await Promise.all([claimOf(host), id ? workspaceOfCode(id) : undefined]);
  overrideHeaders(res, loadBalancerHeaders(path, claim?.serving === true));
  if (!claim?.serving) return sendPlatformNotFound(res);
  const { merchantId } = claim;
  if (id !== null) return id !== undefined && workspace === merchantId ? own.serve(req, res, host) : own.sendNotFound(res, brandOf(await hostPagesOf(merchantId)));
  // Loaded on the first GS1 request: hosts that only serve codes never pay for the resolver.
  if (isResolverPath(path)) {
    const gs1 = gs1Resolver();
    return gs1.answerResolverRequest(req, res, gs1.ownHostScope(host, merchantId), (r) => sendMerchantNotFound(r, merchantId));
  }
  if (method !== "GET" && method !== "HEAD") return sendMerchantNotFound(res, merchantId);
  // The merchant's app association files: 200 JSON, never a redirect (Apple and Android refuse one).
  if (wellKnownFileOf(path)) return sendWellKnown(req, res, host, path, merchantId);
  if (path !== "/") return sendMerchantNotFound(res, merchantId);
  // `/` must not be told "not found" for a read that failed while a rootUrl is set: a 503, tried again.
  const pages = await withTimeout(readHostPages(merchantId), HOST_READ_DEADLINE_MS, "root URL read").catch(() => {
    throw new HostUnavailable("root URL read failed");
  });
  countOps({ reads: 1 });
  if (!pages.rootUrl) return own.sendNotFound(res, brandOf(pages));
  res.removeHeader("X-Powered-By");
  res.writeHead(302, { Location: pages.rootUrl, "Cache-Control": "no-store", "Content-Security-Policy": API_CSP, "Content-Length": "0" }).end();
}
