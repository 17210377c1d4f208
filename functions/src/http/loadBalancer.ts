// The load balancer path (docs/domains.md, "Serving"). Merchants' hosts reach the redirect function
// through Google's external Application Load Balancer (a serverless NEG), not Firebase Hosting: Hosting
// is not made for thousands of customer domains. Nothing on that path adds the headers Hosting adds from
// firebase.json, so the function adds them itself, and reads the host from the one header the load
// balancer passes on as the client sent it and routed by: Host. X-Forwarded-Host is never read: on
// this path it is whatever the client wrote.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { isIP } from "node:net";

/**
 * Hosting's headers (firebase.json `headers`, the `**` rule and the `/qr/**` one), as the load balancer
 * path sends them. Two differences: Strict-Transport-Security goes only to a host this service serves
 * (never to a stranger's name that points here), and without includeSubDomains: a merchant's apex
 * (brand.com) must not pin every other host of that merchant to HTTPS. The Content-Security-Policy rules
 * of firebase.json are for static pages; every function answer carries its own.
 */
export const LOAD_BALANCER_HEADERS = {
  all: { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin", "X-Frame-Options": "DENY" },
  qr: { "Referrer-Policy": "same-origin" },
  served: { "Strict-Transport-Security": "max-age=63072000" },
} as const;

/** The headers an answer on the load balancer path gets for `path` (served: the host is a domain this service serves). */
export function loadBalancerHeaders(path: string, served: boolean): Record<string, string> {
  return { ...LOAD_BALANCER_HEADERS.all, ...(path.startsWith("/qr/") ? LOAD_BALANCER_HEADERS.qr : {}), ...(served ? LOAD_BALANCER_HEADERS.served : {}) };
}

/**
 * Makes `headers` win over whatever the answer's own writeHead names, as Hosting's headers win over a
 * function's: installed before the answer is written.
 */
export function overrideHeaders(res: ServerResponse, headers: Record<string, string>): void {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  const names = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const at = rest.findIndex((x) => typeof x === "object" && x !== null && !Array.isArray(x));
    const own = at >= 0 ? (rest[at] as OutgoingHttpHeaders) : {};
    const merged: OutgoingHttpHeaders = Object.fromEntries(Object.entries(own).filter(([n]) => !names.has(n.toLowerCase())));
    for (const name of res.getHeaderNames()) if (names.has(name)) res.removeHeader(name);
    Object.assign(merged, headers);
    return at >= 0 ? writeHead(status, ...rest.slice(0, at), merged, ...rest.slice(at + 1)) : writeHead(status, ...rest, merged);
  }) as ServerResponse["writeHead"];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The host a request asked for, from Host alone: lower-case, no port, no trailing dot. `name` is
 * undefined for an address literal or anything that is not a host name (no merchant's domain can be
 * either); `withPort` keeps the port as sent, for the service's own `host:port` list.
 */
export function requestHost(req: Pick<IncomingMessage, "headers">): { name: string | undefined; withPort: string } {
  const raw = (req.headers.host ?? "").trim().toLowerCase();
  const withPort = raw.replace(/\.(?=:\d+$|$)/, "");
  const bare = withPort.startsWith("[") ? withPort : withPort.replace(/:\d+$/, "");
  const name = !bare || isIP(bare) || bare.startsWith("[") || !HOST_NAME.test(bare) ? undefined : bare;
  return { name, withPort };
}
