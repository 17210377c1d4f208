// The outbound-fetch guard shared by every fetch of a URL someone else chose (OAuth client metadata
// documents, webhook targets): which addresses count as public, and a lookup that refuses the rest at
// connection time.
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** Name resolution (tests stub it; the default is the system resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

// Addresses the service never connects to outside the local stack on a caller's behalf (SSRF): the IANA IPv4 and
// IPv6 special-purpose registries (loopback, private, link-local, shared, documentation, benchmarking,
// translation (IPv4-translated ::ffff:0:0:0/96 of RFC 2765 included), 6to4, Teredo, ORCHID, AS112, discard, SRv6, unique-local) plus multicast and reserved space.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24],
  ["192.168.0.0", 16], ["192.175.48.0", 24], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const) BLOCKED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 96], ["::ffff:0:0:0", 96], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["100:0:0:1::", 64], ["2001::", 23], ["2001:db8::", 32],
  ["2002::", 16], ["2620:4f:8000::", 48], ["3fff::", 20], ["5f00::", 16], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
] as const) BLOCKED.addSubnet(net, prefix, "ipv6");
// IPv4-mapped IPv6 (::ffff:0:0/96) in any spelling. Its own list: in BLOCKED this rule would match every IPv4
// address, since a BlockList checks IPv4 addresses against mapped IPv6 rules.
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet("::ffff:0:0", 96, "ipv6");

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (!family) return false;
  if (family === 6 && IPV4_MAPPED.check(address, "ipv6")) return false;
  return !BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * A lookup for the connection that refuses any name with a non-public answer, so the check holds for the
 * address actually used (no rebinding between check and connect). Its error names neither the answer nor
 * the reason: the caller reports every network failure alike.
 */
export function publicOnlyLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return callback(new Error("refused"), "", 0);
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      () => callback(new Error("unresolved"), "", 0),
    );
  };
}
