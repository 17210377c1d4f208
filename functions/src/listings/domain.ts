// Domain normalisation for the phone book: scheme, credentials, path, query, port, `www.` and case are
// stripped; internationalised names become punycode. Pure.
import { domainToASCII } from "node:url";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The normalised domain, or undefined when `input` does not name a public host name. */
export function normalizeDomain(input: string): string | undefined {
  let value = input.trim();
  if (!value || value.length > 2048) return undefined;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `http://${value}`;
  let host: string;
  try {
    host = new URL(value).hostname;
  } catch {
    return undefined;
  }
  host = domainToASCII(host.toLowerCase().replace(/\.$/, ""));
  if (!host) return undefined;
  if (host.startsWith("www.")) host = host.slice(4);
  const labels = host.split(".");
  if (labels.length < 2 || host.length > 253) return undefined;
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  if (/^\d+$/.test(labels[labels.length - 1])) return undefined; // an IPv4 address, not a domain
  return host;
}

/** E.164: a plus, a country code and up to 15 digits in all. Spaces, dots, dashes and brackets are dropped. */
export function normalizePhone(input: string): string | undefined {
  const compact = input.trim().replace(/[\s.\-()]/g, "");
  return /^\+[1-9]\d{6,14}$/.test(compact) ? compact : undefined;
}
