// Destination check for creating or re-pointing a code: a dynamic code on the shared host that redirects
// to a phishing or malware page gets that host onto browser blocklists, taking every merchant's codes with
// it. Two layers: the list shipped with the functions (data/blocked-destinations.txt, read once per
// process on first use), then, when a key is configured, Google Safe Browsing's Lookup API.
// Module load stays light: built-in modules and the logger only; nothing is read until the first check.
import { isLoopbackHostPort } from "../core/testClock";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { logWarn } from "../core/log";

/**
 * `unchecked`: the shipped list passed it but the lookup failed (outage, timeout, quota): the caller
 * decides (abuse/service.ts: refuse for the sandbox and new workspaces, else queue a re-check).
 */
export type BlockVerdict = { blocked: false; unchecked?: true } | { blocked: true; source: "list" | "safe-browsing"; matched: string; threat: string };

/** A lookup's answer with how long it may be kept (the API's cacheDuration), when the API says. */
export interface LookupVerdict {
  threat: string | null;
  cacheSeconds?: number;
}

/** One URL looked up with a threat-intelligence service: its threat type, or null when it is not listed. */
export interface SafeBrowsingLookup {
  find(url: string): Promise<string | null>;
  /** The same with the answer's lifetime; used instead of find when present. */
  lookup?(url: string): Promise<LookupVerdict>;
}

/** A verdict is kept at most this long, whatever the API allows. */
export const VERDICT_CACHE_MAX_MS = 30 * 60_000;
/** A clean answer carries no lifetime in the Lookup API: kept this long. */
export const CLEAN_VERDICT_CACHE_MS = 5 * 60_000;
/** URLs one lookup's cache holds at most; the oldest go first. */
const VERDICT_CACHE_ENTRIES = 10_000;
const verdictCaches = new WeakMap<SafeBrowsingLookup, Map<string, { threat: string | null; until: number }>>();

/** `threat` of a shipped-list verdict (the list does not say which kind of abuse an entry is). */
export const LIST_THREAT = "BLOCKLIST";

export const SAFE_BROWSING_ENDPOINT = "https://safebrowsing.googleapis.com/v4/threatMatches:find";
export const SAFE_BROWSING_THREAT_TYPES = ["MALWARE", "SOCIAL_ENGINEERING", "UNWANTED_SOFTWARE", "POTENTIALLY_HARMFUL_APPLICATION"] as const;
export const SAFE_BROWSING_CLIENT = { clientId: "merchant-qr-service", clientVersion: "1.0.0" } as const;

/** Where the build and the tests both find the list: functions/data, two levels above src/abuse and lib/abuse. */
export const BLOCKLIST_PATH = join(__dirname, "..", "..", "data", "blocked-destinations.txt");

const NOT_BLOCKED: BlockVerdict = { blocked: false };

/** A parsed list. Keys are what `new URL()` writes: lowercase, punycode, IPv6 in brackets, no trailing dot. */
export interface Blocklist {
  /** Host entries; each also covers its subdomains. */
  hosts: Set<string>;
  /** URL prefix entries (lowercased href, no credentials), grouped by their host so a check reads one group. */
  prefixes: Map<string, string[]>;
  /** Lines that are no entry this module can match, kept to be reported rather than silently dropped. */
  invalid: { line: number; text: string }[];
}

/** A hostname without its trailing dot ("evil.example." and "evil.example" are the same host). */
const bareHost = (hostname: string) => (hostname.endsWith(".") ? hostname.slice(0, -1) : hostname);

/** The URL as the list compares it: no credentials (`https://any@lure.test/` is lure.test) and no trailing dot. */
function comparable(url: URL): URL {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  const host = bareHost(copy.hostname);
  if (host !== copy.hostname) copy.hostname = host;
  return copy;
}

/**
 * A URL as prefix entries compare it: lower case, and every percent-encoded unreserved character (letters,
 * digits, - . _ ~) decoded, as RFC 3986 section 6.2.2.2 makes them equivalent: `/%6Cogin` is `/login`,
 * and a server serves the same page for both. Other escapes (`%2F`) stay escaped: they are not the same.
 */
function prefixForm(url: URL): string {
  return url.href.toLowerCase().replace(/%([0-9a-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /^[a-z0-9._~-]$/i.test(c) ? c.toLowerCase() : escape;
  });
}

/** A host entry's key, or undefined when the text is more than a host (a path, a port, credentials...). */
function hostKey(entry: string): string | undefined {
  // "*.evil.example" and ".evil.example" are common list spellings of what a host entry already covers.
  let text = entry.replace(/^\*?\./, "");
  if (text.includes(":") && !text.startsWith("[")) text = `[${text}]`; // a bare IPv6 address
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    return undefined;
  }
  const onlyHost = url.pathname === "/" && !url.port && !url.username && !url.password && !url.search && !url.hash && !text.includes("/");
  const host = bareHost(url.hostname);
  return onlyHost && host && !host.includes("*") ? host : undefined;
}

/**
 * The list file's text as a Blocklist. One entry a line, trimmed and lowercased; blank lines and `#`
 * comments (whole lines, or after whitespace) are skipped. An entry is a host (covering its subdomains;
 * Unicode names are stored in punycode, IP addresses normalised and matched exactly) or a URL prefix
 * (`scheme://host/path`, compared with the checked URL's href, case-insensitively).
 */
export function parseBlocklist(text: string): Blocklist {
  const list: Blocklist = { hosts: new Set(), prefixes: new Map(), invalid: [] };
  text.split(/\r?\n/).forEach((raw, index) => {
    const entry = raw.replace(/(^|\s)#.*$/, "").trim().toLowerCase();
    if (!entry) return;
    if (entry.includes("://")) {
      let url: URL;
      try {
        url = comparable(new URL(entry));
      } catch {
        list.invalid.push({ line: index + 1, text: raw.trim() });
        return;
      }
      const group = list.prefixes.get(url.hostname) ?? [];
      group.push(prefixForm(url));
      list.prefixes.set(url.hostname, group);
      return;
    }
    const host = hostKey(entry);
    if (host) list.hosts.add(host);
    else list.invalid.push({ line: index + 1, text: raw.trim() });
  });
  return list;
}

/** IP literals as `new URL()` writes them: dotted-quad IPv4 (any other spelling is normalised to it) or [IPv6]. */
const isIpLiteral = (host: string) => host.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(host);

/**
 * The entry of `list` that covers `url`, or undefined. Hosts: the URL's host, then each parent domain,
 * one Set lookup per label ("a.b.evil.example" -> "b.evil.example" -> "evil.example" -> "example"), so
 * "notevil.example" never matches "evil.example". IP literals: that address only. Prefixes: those
 * listed for the URL's own host.
 */
export function matchBlocklist(list: Blocklist, url: URL): string | undefined {
  const target = comparable(url);
  const host = target.hostname;
  if (host) {
    if (isIpLiteral(host)) {
      if (list.hosts.has(host)) return host;
    } else {
      for (let candidate = host; ; ) {
        if (list.hosts.has(candidate)) return candidate;
        const dot = candidate.indexOf(".");
        if (dot < 0) break;
        candidate = candidate.slice(dot + 1);
      }
    }
  }
  const prefixes = list.prefixes.get(host);
  if (prefixes) {
    const href = prefixForm(target);
    for (const prefix of prefixes) if (href.startsWith(prefix)) return prefix;
  }
  return undefined;
}

let shipped: Blocklist | undefined;

/** The shipped list, read and parsed on first use and kept for the life of the process. */
function shippedBlocklist(): Blocklist {
  if (shipped) return shipped;
  shipped = parseBlocklist(readFileSync(BLOCKLIST_PATH, "utf8"));
  if (shipped.invalid.length > 0) {
    logWarn("abuse.blocklist_ignored", "abuse: blocklist entries ignored", { entries: shipped.invalid.slice(0, 20), count: shipped.invalid.length });
  }
  return shipped;
}

/** The shipped list's entry covering a host name (lower-case ASCII) and so its sub-domains, or undefined. */
export function blockedHost(hostname: string): string | undefined {
  let url: URL;
  try {
    url = new URL(`http://${hostname}/`);
  } catch {
    return undefined;
  }
  return matchBlocklist(shippedBlocklist(), url);
}

/**
 * Safe Browsing Lookup API v4 (threatMatches:find) for one URL, with one deadline over the request and
 * its answer. Errors never carry the API key (it is part of the request URL).
 * Google's terms put this API under non-commercial use; the commercial equivalent is the Web Risk API
 * (uris:search), which can replace this client behind the same SafeBrowsingLookup interface.
 */
export function safeBrowsingClient(apiKey: string, fetchImpl: typeof fetch = fetch, timeoutMs = 1500, base = SAFE_BROWSING_ENDPOINT): SafeBrowsingLookup {
  const endpoint = `${base}?key=${encodeURIComponent(apiKey)}`;
  const redact = (message: string) => (apiKey ? message.split(apiKey).join("[key]") : message);

  async function lookup(url: string, signal: AbortSignal): Promise<LookupVerdict> {
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client: SAFE_BROWSING_CLIENT,
        threatInfo: {
          threatTypes: SAFE_BROWSING_THREAT_TYPES,
          platformTypes: ["ANY_PLATFORM"],
          threatEntryTypes: ["URL"],
          threatEntries: [{ url }],
        },
      }),
      signal,
    });
    if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
    return verdictOf(await response.json());
  }

  const client: Required<SafeBrowsingLookup> = {
    async find(url) {
      return (await client.lookup(url)).threat;
    },
    async lookup(url) {
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      // A fetch that ignores its signal still cannot hold the caller past the deadline: the race settles.
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new Error(`no answer within ${timeoutMs} ms`);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      });
      try {
        return await Promise.race([lookup(url, controller.signal), deadline]);
      } catch (error) {
        throw new Error(`safe browsing lookup: ${redact(error instanceof Error ? error.message : String(error))}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return client;
}

/**
 * The first match's threat type and its cacheDuration ("300s"); null for `{}` (no match). Anything else
 * than the documented shape throws.
 */
function verdictOf(body: unknown): LookupVerdict {
  if (typeof body !== "object" || body === null) throw new Error("answered something other than a JSON object");
  const matches = (body as { matches?: unknown }).matches;
  if (matches === undefined) return { threat: null };
  if (!Array.isArray(matches)) throw new Error("answered `matches` that is not a list");
  if (matches.length === 0) return { threat: null };
  const first = matches[0] as { threatType?: unknown; cacheDuration?: unknown } | null;
  const type = first?.threatType;
  const duration = typeof first?.cacheDuration === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(first.cacheDuration) : null;
  return { threat: typeof type === "string" && type ? type : "THREAT_TYPE_UNSPECIFIED", ...(duration ? { cacheSeconds: Number(duration[1]) } : {}) };
}

let configured: { key: string; lookup: SafeBrowsingLookup } | undefined;

/** The deployment's lookup: Safe Browsing when SAFE_BROWSING_API_KEY is set, none otherwise (one client per key, so its cache lasts). */
function defaultSafeBrowsing(): SafeBrowsingLookup | null {
  const key = process.env.SAFE_BROWSING_API_KEY?.trim();
  if (!key) return null;
  if (configured?.key !== key) configured = { key, lookup: safeBrowsingClient(key) };
  return configured.lookup;
}

const loopbackClients = new Map<string, SafeBrowsingLookup>();

/**
 * The lookup against a stand-in for the API on loopback (`127.x.y.z:port`, core/testClock.ts
 * requestSafeBrowsingServer: the local stack's tests only), speaking the same protocol as the real one.
 */
export function loopbackSafeBrowsing(hostPort: string): SafeBrowsingLookup {
  if (!isLoopbackHostPort(hostPort)) throw new Error("a loopback Safe Browsing stand-in must be 127.x.y.z:port");
  let client = loopbackClients.get(hostPort);
  if (!client) loopbackClients.set(hostPort, (client = safeBrowsingClient("local-stand-in", fetch, 1500, `http://${hostPort}/v4/threatMatches:find`)));
  if (loopbackClients.size > 100) loopbackClients.delete(loopbackClients.keys().next().value!);
  return client;
}

/**
 * The lookup's verdict on `href`, from its cache while fresh: a listed URL for the API's cacheDuration and
 * a clean one for CLEAN_VERDICT_CACHE_MS, neither longer than VERDICT_CACHE_MAX_MS. Keyed by the URL as
 * compared (no credentials, no fragment): the same destination asked by many codes or rows is looked up once.
 */
async function cachedLookup(lookup: SafeBrowsingLookup, href: string, now: number): Promise<string | null> {
  let cache = verdictCaches.get(lookup);
  if (!cache) verdictCaches.set(lookup, (cache = new Map()));
  const key = href.split("#")[0];
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.threat;
  const verdict = lookup.lookup ? await lookup.lookup(key) : { threat: await lookup.find(key) };
  const keepMs = verdict.threat === null ? CLEAN_VERDICT_CACHE_MS : Math.min(VERDICT_CACHE_MAX_MS, (verdict.cacheSeconds ?? 0) * 1000);
  cache.delete(key);
  if (keepMs > 0) cache.set(key, { threat: verdict.threat, until: now + Math.min(keepMs, VERDICT_CACHE_MAX_MS) });
  if (cache.size > VERDICT_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return verdict.threat;
}

/**
 * Whether `url` (an http(s) URL already validated by the caller; anything `new URL()` refuses throws)
 * may be a code's destination. The shipped list first, then the Safe Browsing lookup: `deps.safeBrowsing`
 * when given (null turns it off), else the one configured by SAFE_BROWSING_API_KEY.
 */
export async function checkDestination(url: string, deps: { safeBrowsing?: SafeBrowsingLookup | null; now?: number } = {}): Promise<BlockVerdict> {
  const target = comparable(new URL(url));
  const listed = matchBlocklist(shippedBlocklist(), target);
  if (listed) return { blocked: true, source: "list", matched: listed, threat: LIST_THREAT };

  const lookup = deps.safeBrowsing === undefined ? defaultSafeBrowsing() : deps.safeBrowsing;
  if (!lookup) return NOT_BLOCKED;
  try {
    const threat = await cachedLookup(lookup, target.href, deps.now ?? Date.now());
    return threat ? { blocked: true, source: "safe-browsing", matched: target.href, threat } : NOT_BLOCKED;
  } catch (error) {
    // Not decided here: the caller refuses (the sandbox, a new workspace) or lets it through and queues a
    // re-check that takes the code down if it turns out listed (abuse/service.ts). The shipped list was
    // applied above. Only the host is logged: a destination's path or query can carry a merchant's tokens.
    logWarn("abuse.safe_browsing_failed", "abuse: safe browsing lookup failed", {
      host: target.hostname,
      reason: error instanceof Error ? error.message : String(error),
    });
    return { blocked: false, unchecked: true };
  }
}
