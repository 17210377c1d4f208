// The client address for rate limiting. Google's front end appends the address it accepted the
// connection from to X-Forwarded-For; everything to the left of that is whatever the client sent and
// cannot be trusted. With `trustedHops` proxies that each append one entry, the client is the entry
// `trustedHops` from the right. With no usable entry, the socket address is used.
import { isIP } from "node:net";

export function clientIp(forwardedFor: string | string[] | undefined, socketAddress: string | undefined, trustedHops: number): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const entries = header
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (trustedHops > 0 && entries.length >= trustedHops) {
    const candidate = stripPort(entries[entries.length - trustedHops]);
    if (isIP(candidate)) return candidate;
  }
  return stripPort(socketAddress ?? "unknown");
}

function stripPort(value: string): string {
  const v = value.replace(/^::ffff:/, "");
  if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) return v.split(":")[0];
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  return bracketed ? bracketed[1] : v;
}

/**
 * The unit a limit applies to: the IPv4 address, or the /64 prefix of an IPv6 address (one subscriber
 * usually holds a whole /64 and could otherwise rotate addresses freely).
 */
export function rateLimitSubject(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head, tail = ""] = ip.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array(Math.max(0, missing)).fill("0"), ...tailGroups];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
