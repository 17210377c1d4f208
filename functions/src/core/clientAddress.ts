// The client's address, as Google's infrastructure saw it. Every hop that handles a request appends the
// address it accepted the connection from to X-Forwarded-For, and everything left of the first appended
// entry is whatever the client sent. The two production paths:
//   function URL called directly:  <client-supplied...>, <client>
//   through Firebase Hosting:      <client-supplied...>, <client>, <Hosting hop>
//   through the load balancer:     <client-supplied...>, <client>, <load balancer address>
//     (merchants' own hosts: docs/domains.md, "Serving"; the address is the one their A records name)
// Walking from the right, exactly ONE Google-owned, non-customer entry is skipped, and only when it is the
// rightmost (Hosting's hop), or the load balancer's own address in that place; then any number of the operator's declared proxies (a CDN in front of Hosting).
// The walk never goes further left past a Google address: a Google-run fetcher (Apps Script, Scheduler, an
// uptime check) that lets its user write X-Forwarded-For is itself the client, marked as a proxy, and
// cannot choose an address left of it. HOSTING_HOP_RANGES, measured on a deployment (the smoke check prints
// the hop it saw), narrows which addresses count as Hosting's hop. docs/decisions.md, "The client address".
import { SHARED_PROXY_SUBJECT } from "./constants";
import { isIP } from "node:net";
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "./config";
import { logClientIsProxy } from "./log";
import { AddressMatcher, googleAll, googleNotCloud, isAddress } from "./addressRanges";

interface AddressSet {
  has(address: string): boolean;
}

export interface ClientAddressRules {
  /** What may be skipped as Hosting's hop: the rightmost entry only, at most once. */
  hostingHop: AddressSet;
  /** The load balancer's own addresses, skipped like Hosting's hop: the rightmost entry only, at most once. */
  loadBalancer?: AddressSet;
  /** The operator's own proxies in front (declared ranges), skipped in any number left of Hosting's hop. */
  declaredProxies: AddressSet;
  /** Addresses that are proxies or servers, never one visitor: Google's (customer space included) and the trusted hops. */
  proxies: AddressSet;
  /** The declared geo header proxy (GEO_HEADER_PROXY_RANGES), a subset of the trusted hops; absent when none is. */
  geoHeaderProxies?: AddressSet;
}

export interface ResolvedClient {
  /** The client's address, or the socket peer's when no proxy appended one. */
  address: string;
  /**
   * True when the address is still a Google or known proxy address (the walk found no visitor): it stands
   * for many people, so limits must use one generous shared bucket (limitSubjectOf), not this address's.
   */
  viaProxy: boolean;
  /** Trusted hops walked past, nearest first (Google's and declared proxies' addresses only). */
  hops: string[];
  /** True when one of those hops is the declared geo header proxy: only then are its geo headers the platform's. */
  throughGeoHeaderProxy: boolean;
}

/** The rules for a deployment: Google's ranges plus the configured extras (validated by core/config). */
export function clientAddressRules(extra: { trustedProxyRanges: string[]; geoHeaderProxyRanges: string[]; hostingHopRanges?: string[]; loadBalancerAddresses?: string[] }): ClientAddressRules {
  const declared = new AddressMatcher([...extra.trustedProxyRanges, ...extra.geoHeaderProxyRanges]);
  const google = googleNotCloud();
  const measured = extra.hostingHopRanges?.length ? new AddressMatcher(extra.hostingHopRanges) : undefined;
  const googleOrCustomer = googleAll();
  // Exact addresses, never ranges: the load balancer's forwarding rules (which may lie in customer space).
  const balancer = new Set((extra.loadBalancerAddresses ?? []).map((a) => a.toLowerCase()));
  return {
    hostingHop: { has: (address) => google.has(address) && (measured?.has(address) ?? true) },
    loadBalancer: { has: (address) => balancer.has(address.toLowerCase()) },
    declaredProxies: declared,
    proxies: { has: (address) => googleOrCustomer.has(address) || declared.has(address) || balancer.has(address.toLowerCase()) },
    geoHeaderProxies: extra.geoHeaderProxyRanges.length ? new AddressMatcher(extra.geoHeaderProxyRanges) : undefined,
  };
}

export function resolveClient(forwardedFor: string | string[] | undefined, socketAddress: string | undefined, rules: ClientAddressRules): ResolvedClient {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const entries = header.split(",");
  const hops: string[] = [];
  const resolved = (address: string, viaProxy: boolean): ResolvedClient => ({
    address,
    viaProxy,
    hops,
    throughGeoHeaderProxy: hops.some((hop) => rules.geoHeaderProxies?.has(hop) === true),
  });
  let i = entries.length - 1;
  const rightmost = stripPort(entries[i].trim());
  if (isAddress(rightmost) && (rules.hostingHop.has(rightmost) || rules.loadBalancer?.has(rightmost) === true)) {
    hops.push(rightmost); // Hosting's hop or the load balancer's address: the one entry skipped
    i--;
  }
  for (; i >= 0; i--) {
    const entry = stripPort(entries[i].trim());
    if (!isAddress(entry)) break; // not something a proxy appended: we are into client-written text
    if (!rules.declaredProxies.has(entry)) return resolved(entry, rules.proxies.has(entry));
    hops.push(entry);
  }
  // Only trusted hops were appended: the farthest one is all we know of the client, and it is a proxy.
  if (hops.length) return resolved(hops.pop()!, true);
  // Nothing usable was appended (a local caller that skipped every proxy): the peer itself.
  const peer = stripPort(socketAddress ?? "") || "unknown";
  return resolved(peer, rules.proxies.has(peer));
}

/** The resolved client of a request reaching a function (through Hosting or at its own URL). */
export function clientOf(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string }; path?: string }): ResolvedClient {
  const config = getConfig();
  if (rulesFor?.config !== config) rulesFor = { config, rules: clientAddressRules({ ...config, loadBalancerAddresses: config.domains.apexAddresses }) };
  const client = resolveClient(req.headers["x-forwarded-for"], req.socket.remoteAddress, rulesFor.rules);
  if (client.viaProxy) reportProxyClient(client, req.path);
  return client;
}

/** The client address of a request (see clientOf for whether it is a proxy's). */
export function clientAddressOf(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string }; path?: string }): string {
  return clientOf(req).address;
}

let rulesFor: { config: object; rules: ClientAddressRules } | undefined;

// One log entry per proxy address per instance every 10 minutes: enough to alert on, not one per request.
const PROXY_REPORT_INTERVAL_MS = 600_000;
const lastReported = new Map<string, number>();

function reportProxyClient(client: ResolvedClient, path: string | undefined): void {
  const now = Date.now();
  if (now - (lastReported.get(client.address) ?? -Infinity) < PROXY_REPORT_INTERVAL_MS) return;
  if (lastReported.size >= 1000) lastReported.clear();
  lastReported.set(client.address, now);
  logClientIsProxy({ client: client.address, hops: client.hops, path });
}

function stripPort(value: string): string {
  if (!value.includes(":")) return value; // a plain IPv4 address (or not an address at all)
  const v = value.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+)/, "");
  if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) return v.split(":")[0];
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  return bracketed ? bracketed[1] : v;
}

/** Prefix of the buckets that clients resolved to a proxy address share (see limitSubjectOf). */
export { SHARED_PROXY_SUBJECT };

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

/** The /24 of an IPv4 address or the /48 of an IPv6 one: the split of the shared proxy bucket. */
export function proxyBucketPrefix(ip: string): string {
  if (isIP(ip) === 4) return `${ip.split(".").slice(0, 3).join(".")}.0/24`;
  if (isIP(ip) !== 6) return "other";
  return `${rateLimitSubject(ip).split(":").slice(0, 3).join(":")}::/48`;
}

/**
 * The bucket a per-address limit should charge: the client's own (rateLimitSubject), or, for a client
 * resolved to a proxy address, a bucket shared by that address's /24 (IPv4) or /48 (IPv6) under
 * SHARED_PROXY_SUBJECT, which callers give a generous limit of its own: one busy Google VM or fetcher
 * spends its own network's share, not everyone's.
 */
export function limitSubjectOf(client: Pick<ResolvedClient, "address" | "viaProxy">): string {
  return client.viaProxy ? `${SHARED_PROXY_SUBJECT}:${proxyBucketPrefix(client.address)}` : rateLimitSubject(client.address);
}
