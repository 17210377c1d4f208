// Proxied records: a sub-domain whose CNAME is proxied by its DNS host (Cloudflare's orange cloud) answers
// with the proxy's own addresses and no CNAME, so requests would reach the proxy, not the service, and the
// proxy's certificate, not ours, would be served. The rule (docs/domains.md): a name that answers with no
// CNAME and with an address in a known proxy's published ranges is "proxied".
import { AddressMatcher } from "../core/addressRanges";

/** Cloudflare's published ranges (https://www.cloudflare.com/ips/), the one proxy DNS hosts offer at scale. */
export const PROXY_RANGES = [
  "173.245.48.0/20", "103.21.244.0/22", "103.22.200.0/22", "103.31.4.0/22", "141.101.64.0/18", "108.162.192.0/18",
  "190.93.240.0/20", "188.114.96.0/20", "197.234.240.0/22", "198.41.128.0/17", "162.158.0.0/15", "104.16.0.0/13",
  "104.24.0.0/14", "172.64.0.0/13", "131.0.72.0/22",
  "2400:cb00::/32", "2606:4700::/32", "2803:f800::/32", "2405:b500::/32", "2405:8100::/32", "2a06:98c0::/29", "2c0f:f248::/32",
] as const;

let matcher: AddressMatcher | undefined;

export function isProxyAddress(address: string): boolean {
  matcher ??= new AddressMatcher(PROXY_RANGES);
  return matcher.has(address);
}
