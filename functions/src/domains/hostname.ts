// A branded domain's host name: accepted in Unicode or punycode, stored in one form (punycode ASCII,
// lower-case, no trailing dot), and refused with a sentence when it cannot be a merchant's own host
// (docs/domains.md, "Which names are refused").
import { isIP } from "node:net";
import { domainToASCII, domainToUnicode } from "node:url";
import { parse } from "tldts";

export const HOSTNAME_REFUSALS = ["invalid", "ip_literal", "public_suffix", "own_host", "blocked"] as const;
export type HostnameRefusal = (typeof HOSTNAME_REFUSALS)[number];

/** The longest name DNS carries (RFC 1035: 255 octets on the wire, 253 written out). */
export const HOSTNAME_MAX = 253;

export type HostnameVerdict =
  | { ok: true; hostname: string; unicode: string; apex: boolean; registrable: string }
  | { ok: false; reason: HostnameRefusal; message: string };

export interface HostnameRules {
  /** The service's own names (core/config.ts, domains.ownHosts). */
  ownHosts: readonly string[];
  /** The blocklist entry covering a name, if any (abuse/blocklist.ts). */
  blocked(hostname: string): string | undefined;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** WHATWG URL parsing reads a name whose last label is a number as an IPv4 address (1.2.3 is 1.2.0.3). */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:0x[0-9a-f]*|\d+)\.?$/i;

const refuse = (reason: HostnameRefusal, message: string): HostnameVerdict => ({ ok: false, reason, message });

/** Checks and normalises a host name a merchant typed; the refusal's message says what to send instead. */
export function checkHostname(input: string, rules: HostnameRules): HostnameVerdict {
  const typed = input.trim().replace(/\.$/, "");
  const bare = typed.startsWith("[") && typed.endsWith("]") ? typed.slice(1, -1) : typed;
  if (isIP(bare) || NUMERIC_LAST_LABEL.test(typed)) return refuse("ip_literal", `${input.trim()} is an IP address: a domain must be a host name such as scan.example.com.`);
  const hostname = typed ? domainToASCII(typed.toLowerCase()) : "";
  const labels = hostname.split(".");
  if (
    !hostname ||
    hostname.length > HOSTNAME_MAX ||
    !labels.every((l) => LABEL.test(l)) ||
    // An xn-- label that does not decode is not an internationalised name: refuse it rather than store it.
    domainToASCII(domainToUnicode(hostname)) !== hostname
  ) {
    return refuse("invalid", `"${input.trim().slice(0, 80)}" is not a valid host name: letters, digits and hyphens in labels of at most 63 characters, separated by dots, at most ${HOSTNAME_MAX} in all (Unicode names are accepted).`);
  }
  const parsed = parse(hostname, { allowPrivateDomains: true });
  if (labels.length < 2 || !parsed.domain || parsed.domain.length > hostname.length) {
    return refuse("public_suffix", `${hostname} is a public suffix (a top-level domain or a name under which anyone can register): add a name you own under it, such as scan.example.com.`);
  }
  for (const own of rules.ownHosts) {
    if (hostname === own || hostname.endsWith(`.${own}`) || own.endsWith(`.${hostname}`)) {
      return refuse("own_host", `${hostname} is the service's own host name, one under it or one above it: add a domain of your own.`);
    }
  }
  const listed = rules.blocked(hostname);
  if (listed) return refuse("blocked", `${hostname} is on the service's blocklist (${listed}) and cannot be used.`);
  return { ok: true, hostname, unicode: domainToUnicode(hostname), apex: hostname === parsed.domain, registrable: parsed.domain };
}
