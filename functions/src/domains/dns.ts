// The DNS questions a domain check asks, through a node:dns Resolver whose servers are configurable
// (DNS_SERVERS; locally loopback only): an answer, an empty answer (no such name or no record of the
// type), or a failure to answer, which a check treats as "try again later", never as a verdict.
import { Resolver } from "node:dns/promises";

export type DnsAnswer<T> = { ok: true; values: T[] } | { ok: false; error: string };

export interface CaaRecord {
  critical: number;
  issue?: string;
  issuewild?: string;
  iodef?: string;
}

export interface DnsLookup {
  txt(name: string): Promise<DnsAnswer<string>>;
  cname(name: string): Promise<DnsAnswer<string>>;
  a(name: string): Promise<DnsAnswer<string>>;
  aaaa(name: string): Promise<DnsAnswer<string>>;
  caa(name: string): Promise<DnsAnswer<CaaRecord>>;
}

/** Codes that mean "the name or this type of record does not exist": an empty answer, not a failure. */
const EMPTY = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

async function ask<T>(question: () => Promise<T[]>): Promise<DnsAnswer<T>> {
  try {
    return { ok: true, values: await question() };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (EMPTY.has(code)) return { ok: true, values: [] };
    return { ok: false, error: code || (error as Error).message };
  }
}

/** Names as compared: lower-case, no trailing dot. */
export const bareName = (name: string) => name.toLowerCase().replace(/\.$/, "");

/**
 * A lookup through `servers` (`address` or `address:port`; empty: the platform's resolvers). Each
 * question waits at most `timeoutMs` per try, two tries, so a check never hangs on a silent server.
 */
export function dnsLookup(servers: readonly string[], timeoutMs = 2000): DnsLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return {
    txt: (name) => ask(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""))),
    cname: (name) => ask(async () => (await resolver.resolveCname(name)).map(bareName)),
    a: (name) => ask(() => resolver.resolve4(name)),
    aaaa: (name) => ask(() => resolver.resolve6(name)),
    caa: (name) => ask(() => resolver.resolveCaa(name) as Promise<CaaRecord[]>),
  };
}
