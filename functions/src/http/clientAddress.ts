// The client's address, as Google's infrastructure saw it. Every hop that handles a request appends the
// address it accepted the connection from to X-Forwarded-For, and everything left of the first appended
// entry is whatever the client sent. Walking from the right and skipping the hops that belong to trusted
// proxy ranges (as Express's `trust proxy` with address ranges does), the first other entry is the
// client, on both production paths:
//   function URL called directly:  <client-supplied...>, <client>
//   through Firebase Hosting:      <client-supplied...>, <client>, <Hosting edge hop in a trusted range>
// A client cannot choose its address: its own entries sit left of the one Google appended for it, and
// it cannot connect from a Google front-end proxy range. docs/decisions.md gives the evidence.
import { BlockList, isIP } from "node:net";
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";

export type TrustedRanges = BlockList;

/** Builds the trusted set from CIDR ranges or single addresses ("35.191.0.0/16, 2600:1900::/28"). */
export function trustedRanges(list: string): TrustedRanges {
  const ranges = new BlockList();
  for (const item of list.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [address, prefix] = item.split("/");
    const family = isIP(address);
    if (!family) throw new Error(`TRUSTED_PROXY_RANGES: "${item}" is not an address or CIDR range`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) ranges.addAddress(address, type);
    else ranges.addSubnet(address, Number(prefix), type);
  }
  return ranges;
}

function isTrusted(ranges: TrustedRanges, address: string): boolean {
  return ranges.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

export function clientAddress(forwardedFor: string | string[] | undefined, socketAddress: string | undefined, trusted: TrustedRanges): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const entries = header.split(",").map((e) => stripPort(e.trim()));
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (!isIP(entry)) break; // not something a proxy appended: we are into client-written text
    if (!isTrusted(trusted, entry)) return entry;
  }
  // No appended entry (a local caller that skipped every proxy): the peer itself.
  return stripPort(socketAddress ?? "") || "unknown";
}

/** The client address of a request reaching a function (through Hosting or at its own URL). */
export function clientAddressOf(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string } }): string {
  const configured = getConfig().trustedProxyRanges;
  if (parsed?.source !== configured) parsed = { source: configured, ranges: trustedRanges(configured) };
  return clientAddress(req.headers["x-forwarded-for"], req.socket.remoteAddress, parsed.ranges);
}

let parsed: { source: string; ranges: TrustedRanges } | undefined;

function stripPort(value: string): string {
  const v = value.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+)/, "");
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
