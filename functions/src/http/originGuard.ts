// DNS-rebinding protection (MCP Streamable HTTP, "Security"): a web page whose name was re-pointed at the
// service's address can make a browser send it requests, but the browser still names the page's host in
// `Host` and its origin in `Origin`. A request must therefore address one of the service's own hosts, and
// a present `Origin` must be one of the service's origins. Allow lists: config.allowedHosts/allowedOrigins.
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";

export interface AddressPolicy {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(",")[0]?.trim() || undefined;
}

/** host[:port] → [hostname, port]; undefined when it is not a host. */
function splitHost(host: string): { hostname: string; port: string } | undefined {
  try {
    const url = new URL(`http://${host}`);
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash || host.includes("/")) return undefined;
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return undefined;
  }
}

/** An entry with a port matches exactly; an entry without one matches its host on any port. */
export function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  const wanted = splitHost(host);
  if (!wanted) return false;
  return allowedHosts.some((entry) => {
    const allowed = splitHost(entry);
    return allowed !== undefined && allowed.hostname === wanted.hostname && (allowed.port === "" || allowed.port === wanted.port);
  });
}

function normalOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === "null" ? undefined : url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The refusal (403, ORIGIN_NOT_ALLOWED) for a request from outside the service's own addresses, or
 * undefined. The addressed host is `X-Forwarded-Host` when a proxy in front set it (Firebase Hosting does,
 * and hands the function its own host in `Host`), else `Host`. A script could set `X-Forwarded-Host`
 * itself, but not `Origin`, which browsers send on every POST: that is why both are checked.
 */
export function refuseForeignAddress(headers: IncomingHttpHeaders, policy: AddressPolicy = getConfig()): AppError | undefined {
  const host = first(headers["x-forwarded-host"]) ?? first(headers.host);
  if (!host || !hostAllowed(host, policy.allowedHosts)) {
    return new AppError("ORIGIN_NOT_ALLOWED", `Host ${JSON.stringify((host ?? "").slice(0, 200))} is not an address of this service`, {
      hint: "Call the service at its published address (ALLOWED_HOSTS lists more).",
    });
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const normal = normalOrigin(origin);
    if (!normal || !policy.allowedOrigins.includes(normal)) {
      return new AppError("ORIGIN_NOT_ALLOWED", `Origin ${JSON.stringify(origin.slice(0, 200))} may not call this service`, {
        hint: "Browser clients must run on an allowed origin (ALLOWED_ORIGINS lists more).",
      });
    }
  }
  return undefined;
}
