// The one typed configuration module. Every public address the service prints or returns comes from here.
// Values are firebase-functions params (set per project in functions/.env.<projectId> or prompted at deploy);
// when unset, local defaults are derived from the emulator ports pinned in firebase.json.
import { defineString } from "firebase-functions/params";
import { DEFAULT_REGION, LOCAL_FRONT_PORTS, LOCAL_PORTS, LOCAL_PROJECT_ID } from "./constants";
import { customerRangesOverlapping, googleCloudCustomerSpace, parseRange, type ParsedRange } from "./addressRanges";
import { testClockAllowed } from "./testClock";

export { DEFAULT_REGION, LOCAL_FRONT_PORTS, LOCAL_PORTS, LOCAL_PROJECT_ID } from "./constants";

export const SERVICE_NAME = "svc";
export const SITE_API_VERSION = "1.0.0";
export const TOOL_SERVER_VERSION = "v0.1";
export const MCP_PROTOCOL_VERSION = "2025-03-26";


const params = {
  baseUrl: defineString("BASE_URL", { default: "", description: "Public website host (site metadata API, phone book pages)" }),
  appUrl: defineString("APP_URL", { default: "", description: "Application host (tool server, sandbox, bulk)" }),
  createUrl: defineString("CREATE_URL", { default: "", description: "Merchant console URL where keys are minted" }),
  dynamicLinkUrl: defineString("DYNAMIC_LINK_URL", { default: "", description: "Host of dynamic links (/qr/<id>)" }),
  mcpFunctionUrl: defineString("MCP_FUNCTION_URL", { default: "", description: "Endpoint published in the MCP manifest" }),
  docsUrl: defineString("DOCS_URL", { default: "", description: "Published reference page" }),
  contactEmail: defineString("CONTACT_EMAIL", { default: "", description: "Public contact address in site metadata" }),
  trustedProxyRanges: defineString("TRUSTED_PROXY_RANGES", {
    default: "",
    description:
      "Extra proxies in front (CIDR ranges, comma-separated) whose X-Forwarded-For entries are skipped; Google's own non-customer ranges are built in, and ranges in Google Cloud customer space are refused (docs/decisions.md)",
  }),
  hostingHopRanges: defineString("HOSTING_HOP_RANGES", {
    default: "",
    description:
      "Optional: the ranges Firebase Hosting's hop was measured in on this deployment (the smoke check prints it); when set, only an address there is skipped as Hosting's hop (docs/decisions.md)",
  }),
  geoHeaderProxyRanges: defineString("GEO_HEADER_PROXY_RANGES", {
    default: "",
    description: "Address ranges of the proxy in front that sets geo headers and overwrites client-sent ones; needed for TRUST_GEO_HEADERS",
  }),
  trustGeoHeaders: defineString("TRUST_GEO_HEADERS", {
    default: "false",
    description: "true only with GEO_HEADER_PROXY_RANGES: believe geo headers (X-Client-Geo-*, cf-ipcity, X-Appengine-*) on requests that came through that proxy",
  }),
  scanRetentionDays: defineString("SCAN_RETENTION_DAYS", {
    default: "400",
    description: "Days scan events and daily rollups are kept before Firestore's TTL deletes them (30 to 3650)",
  }),
  scanEventRetentionDays: defineString("SCAN_EVENT_RETENTION_DAYS", {
    default: "35",
    description: "Days each person's individual scan event is kept (the newest-scans list); totals keep SCAN_RETENTION_DAYS and the scan stream keeps every scan (2 to the scan retention)",
  }),
  workspaceCodeQuota: defineString("WORKSPACE_CODE_QUOTA", {
    default: "1000000",
    description: "Codes one workspace may hold (1 to 10,000,000); creation past it is refused before anything is written",
  }),
  dnsServers: defineString("DNS_SERVERS", {
    default: "",
    description:
      "DNS servers (address or address:port, comma-separated) that branded domains are checked against; empty: the platform's own (locally: 127.0.0.1 only, so nothing local ever asks a server outside the machine)",
  }),
  domainTargetHost: defineString("DOMAIN_TARGET_HOST", {
    default: "",
    description: "The host a branded sub-domain's CNAME names (the load balancer in front of custom hosts); empty: domains.<the base URL's host>",
  }),
  domainApexAddresses: defineString("DOMAIN_APEX_ADDRESSES", {
    default: "",
    description: "IPv4 and IPv6 addresses (comma-separated) a branded apex domain's A and AAAA records name: the load balancer's; empty: apexes are told to use ALIAS or flattening only",
  }),
  allowedHosts: defineString("ALLOWED_HOSTS", {
    default: "",
    description: "Extra hosts (host or host:port, comma-separated) requests may address, beyond those of the URLs above",
  }),
  consumerGatherMs: defineString("CONSUMER_GATHER_MS", {
    default: "",
    description: "Optional: ms a busy scan consumer instance gathers arrivals before its next batch (0 to 5000); unset, 1000 deployed and 0 on the emulators",
  }),
  allowedOrigins: defineString("ALLOWED_ORIGINS", {
    default: "",
    description: "Extra browser origins (scheme://host[:port], comma-separated) allowed to call the tool server",
  }),
};

export interface ServiceConfig {
  projectId: string;
  isEmulator: boolean;
  /** Whether requests may name their time in X-Test-Clock (core/testClock.ts): the local emulator stack only, never deployed. */
  honoursTestClock: boolean;
  baseUrl: string;
  appUrl: string;
  createUrl: string;
  dynamicLinkUrl: string;
  mcpFunctionUrl: string;
  docsUrl: string;
  contactEmail: string;
  /** Extra proxies (beyond Google's own) whose X-Forwarded-For entries are skipped (core/clientAddress.ts). */
  trustedProxyRanges: string[];
  /** Where Hosting's hop was measured; empty: any Google-owned, non-customer address (core/clientAddress.ts). */
  hostingHopRanges: string[];
  /** The proxy that sets geo headers; also skipped as a hop. Non-empty whenever trustGeoHeaders is true. */
  geoHeaderProxyRanges: string[];
  /** Whether geo headers are believed on requests that came through the geo header proxy. */
  trustGeoHeaders: boolean;
  /** Hosts (`host` or `host:port`, lowercase) a request may address: DNS-rebinding protection (http/originGuard.ts). */
  allowedHosts: string[];
  /** Browser origins (`scheme://host[:port]`) allowed to call the tool server. */
  allowedOrigins: string[];
  /** Days daily rollups are kept (TTL). */
  scanRetentionDays: number;
  /** Days individual scan events are kept (TTL), at most scanRetentionDays. */
  scanEventRetentionDays: number;
  /** Codes one workspace may hold. */
  workspaceCodeQuota: number;
  /**
   * How long a busy scan consumer instance gathers arrivals before its next batch (scans/consume.ts
   * CONSUMER_GATHER_MS): 1 s deployed; 0 on the emulators, whose tests count a few arrivals at a time and
   * wait for each (a second a round), unless CONSUMER_GATHER_MS says otherwise (the bench, measuring
   * the deployed batching).
   */
  consumerGatherMs: number;
  /** Branded domains (docs/domains.md): how they are checked and what their records name. */
  domains: DomainSettings;
}

export interface DomainSettings {
  /** Servers the checks ask (`address` or `address:port`); empty: the platform's resolvers. */
  dnsServers: string[];
  /** What a sub-domain's CNAME must name (lower-case, no trailing dot). */
  targetHost: string;
  /** What an apex's A and AAAA records must name; empty: only ALIAS or flattening to targetHost is offered. */
  apexAddresses: string[];
  /**
   * The service's own host names: none of them, their sub-domains or their parents can be a merchant's
   * domain (a merchant must not claim the service's own name or a name above it).
   */
  ownHosts: string[];
}

/** Where a host name sits in a URL (no port, lower-case); undefined when the URL does not parse or names an address. */
function hostnameOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return /^[\d.]+$/.test(host) || host.startsWith("[") ? undefined : host;
  } catch {
    return undefined;
  }
}

/** The domain settings from their raw values: locally the checks ask loopback only unless told otherwise. */
export function domainSettings(
  raw: { dnsServers: string; targetHost: string; apexAddresses: string },
  context: { local: boolean; projectId: string; urls: readonly string[] },
): DomainSettings {
  const base = hostnameOf(context.urls[0] ?? "");
  const targetHost = raw.targetHost.trim().toLowerCase().replace(/\.$/, "") || (base && !context.local ? `domains.${base}` : "domains.svc.test");
  const dnsServers = splitList(raw.dnsServers);
  const apexAddresses = splitList(raw.apexAddresses);
  const own = new Set<string>([targetHost, `${context.projectId}.web.app`, `${context.projectId}.firebaseapp.com`, `${DEFAULT_REGION}-${context.projectId}.cloudfunctions.net`]);
  for (const url of context.urls) {
    const host = hostnameOf(url);
    if (host) own.add(host);
  }
  return {
    dnsServers: dnsServers.length > 0 ? dnsServers : context.local ? ["127.0.0.1"] : [],
    targetHost,
    apexAddresses: apexAddresses.length > 0 ? apexAddresses : context.local ? ["192.0.2.10", "2001:db8::10"] : [],
    ownHosts: [...own],
  };
}

/** SCAN_RETENTION_DAYS as a whole number of days, refused at load when out of range. */
export function parseRetentionDays(value: string): number {
  const days = Number(value.trim() || "400");
  if (!Number.isInteger(days) || days < 30 || days > 3650) {
    throw new Error(`SCAN_RETENTION_DAYS must be a whole number of days from 30 to 3650, not "${value}"`);
  }
  return days;
}

/** WORKSPACE_CODE_QUOTA as a whole number, refused at load when out of range. */
export function parseCodeQuota(value: string): number {
  const n = Number(value.trim() || "1000000");
  if (!Number.isInteger(n) || n < 1 || n > 10_000_000) throw new Error(`WORKSPACE_CODE_QUOTA must be a whole number from 1 to 10000000, not "${value}"`);
  return n;
}

/** The scan consumer's batches, gathered for a second a batch deployed (docs/performance.md); at once on the emulators. */
export const CONSUMER_GATHER_MS = { deployed: 1_000, emulators: 0 } as const;

/** CONSUMER_GATHER_MS as whole ms (0 to 5000), refused at load when out of range; empty: CONSUMER_GATHER_MS's value for where it runs. */
export function parseGatherMs(value: string, local: boolean): number {
  if (!value.trim()) return local ? CONSUMER_GATHER_MS.emulators : CONSUMER_GATHER_MS.deployed;
  const ms = Number(value.trim());
  if (!Number.isInteger(ms) || ms < 0 || ms > 5_000) throw new Error(`CONSUMER_GATHER_MS must be a whole number of ms from 0 to 5000, not "${value}"`);
  return ms;
}

/**
 * SCAN_EVENT_RETENTION_DAYS: at least 2 (an event is also the guard of its day's unique count) and at
 * most the rollups' retention.
 */
export function parseEventRetentionDays(value: string, rollupDays: number): number {
  const days = Number(value.trim() || "35");
  if (!Number.isInteger(days) || days < 2 || days > rollupDays) {
    throw new Error(`SCAN_EVENT_RETENTION_DAYS must be a whole number of days from 2 to SCAN_RETENTION_DAYS (${rollupDays}), not "${value}"`);
  }
  return days;
}

/** A field of the FIREBASE_CONFIG JSON that deployed functions receive (it may also be a file path). */
function firebaseConfigField(name: "projectId" | "storageBucket"): string | undefined {
  try {
    return (JSON.parse(process.env.FIREBASE_CONFIG ?? "{}") as Record<string, string | undefined>)[name] || undefined;
  } catch {
    return undefined;
  }
}

export function projectId(): string {
  return process.env.GCLOUD_PROJECT || firebaseConfigField("projectId") || LOCAL_PROJECT_ID;
}

/** Default Cloud Storage bucket (STORAGE_BUCKET overrides; new projects use <id>.firebasestorage.app). */
export function storageBucketName(): string {
  return process.env.STORAGE_BUCKET || firebaseConfigField("storageBucket") || `${projectId()}.appspot.com`;
}

/** True under the emulator suite or for a `demo-` project: such code must never reach production services. */
export function isLocal(): boolean {
  return process.env.FUNCTIONS_EMULATOR === "true" || projectId().startsWith("demo-");
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

const splitList = (value: string) =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * The service's own hosts and origins: those of its public URLs, plus, locally, both loopback names of the
 * Hosting and Functions emulators, plus, deployed, the default Cloud Functions host; then the configured extras.
 */
export function addressAllowLists(
  urls: readonly string[],
  options: { local: boolean; projectId: string; extraHosts?: string; extraOrigins?: string },
): { allowedHosts: string[]; allowedOrigins: string[] } {
  const hosts = new Set<string>();
  const origins = new Set<string>();
  const add = (url: URL) => {
    hosts.add(url.host.toLowerCase());
    origins.add(url.origin.toLowerCase());
  };
  for (const raw of urls) {
    try {
      add(new URL(raw));
    } catch {
      // a malformed URL parameter adds nothing
    }
  }
  if (options.local) {
    for (const port of [LOCAL_FRONT_PORTS.site, LOCAL_FRONT_PORTS.functions, LOCAL_PORTS.hosting, LOCAL_PORTS.functions]) {
      for (const name of ["127.0.0.1", "localhost"]) add(new URL(`http://${name}:${port}`));
    }
  } else {
    hosts.add(`${DEFAULT_REGION}-${options.projectId}.cloudfunctions.net`);
  }
  for (const host of splitList(options.extraHosts ?? "")) hosts.add(host.toLowerCase());
  for (const origin of splitList(options.extraOrigins ?? "")) origins.add(trimSlash(origin).toLowerCase());
  return { allowedHosts: [...hosts], allowedOrigins: [...origins] };
}

/** A setting that cannot be served safely; thrown when the configuration loads. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Checks a list of proxy ranges: each must parse and none may touch Google Cloud customer space
 * (cloud.json), where any customer could send requests with forged hops from a VM of their own.
 */
export function proxyRanges(name: string, value: string): string[] {
  const ranges = splitList(value);
  for (const range of ranges) {
    let parsed: ParsedRange;
    try {
      parsed = parseRange(range);
    } catch (error) {
      throw new ConfigError(`${name}: ${(error as Error).message}`);
    }
    if (googleCloudCustomerSpace().overlaps(parsed)) {
      const overlapping = customerRangesOverlapping(parsed);
      const listed = overlapping.length > 3 ? `${overlapping.slice(0, 3).join(", ")} and ${overlapping.length - 3} more` : overlapping.join(", ");
      throw new ConfigError(
        `${name}: ${range} overlaps Google Cloud customer space (${listed} in cloud.json). ` +
          "Any Google Cloud customer can send requests from there with forged X-Forwarded-For entries, so it cannot be a trusted proxy. " +
          "Remove it: Google's own front-end ranges are trusted already (docs/decisions.md, \"The client address\").",
      );
    }
  }
  return ranges;
}

/** The client-address and geo settings, validated; throws ConfigError with the reason. */
export function proxySettings(raw: { trustedProxyRanges: string; geoHeaderProxyRanges: string; trustGeoHeaders: string; hostingHopRanges?: string }) {
  const trustGeo = raw.trustGeoHeaders.trim().toLowerCase();
  if (!["", "true", "false"].includes(trustGeo)) throw new ConfigError(`TRUST_GEO_HEADERS: "${raw.trustGeoHeaders}" is neither true nor false`);
  const geoHeaderProxyRanges = proxyRanges("GEO_HEADER_PROXY_RANGES", raw.geoHeaderProxyRanges);
  if (trustGeo === "true" && geoHeaderProxyRanges.length === 0) {
    throw new ConfigError(
      "TRUST_GEO_HEADERS=true needs GEO_HEADER_PROXY_RANGES: the address ranges of the proxy in front that sets the geo headers and overwrites " +
        "client-sent ones. Without one, any client can write them (Cloud Functions 2nd gen get none from Google). See docs/deploy.md.",
    );
  }
  return {
    trustedProxyRanges: proxyRanges("TRUSTED_PROXY_RANGES", raw.trustedProxyRanges),
    hostingHopRanges: proxyRanges("HOSTING_HOP_RANGES", raw.hostingHopRanges ?? ""),
    geoHeaderProxyRanges,
    trustGeoHeaders: trustGeo === "true",
  };
}

let cached: ServiceConfig | undefined;

export function getConfig(): ServiceConfig {
  if (cached) return cached;
  const local = isLocal();
  const pid = projectId();
  const fallbackHost = local ? `http://127.0.0.1:${LOCAL_FRONT_PORTS.site}` : `https://${pid}.web.app`;
  const read = (p: { value(): string }) => trimSlash(p.value() || "");
  const baseUrl = read(params.baseUrl) || fallbackHost;
  const appUrl = read(params.appUrl) || baseUrl;
  const urls = {
    baseUrl,
    appUrl,
    createUrl: read(params.createUrl) || `${appUrl}/console`,
    dynamicLinkUrl: read(params.dynamicLinkUrl) || baseUrl,
    mcpFunctionUrl: read(params.mcpFunctionUrl) || `${appUrl}/api/mcp`,
    docsUrl: read(params.docsUrl) || `${baseUrl}/docs/`,
  };
  cached = {
    projectId: pid,
    isEmulator: local,
    honoursTestClock: testClockAllowed(),
    ...urls,
    contactEmail: params.contactEmail.value() || (local ? "support@example.com" : `support@${new URL(baseUrl).hostname}`),
    ...proxySettings({
      trustedProxyRanges: params.trustedProxyRanges.value(),
      geoHeaderProxyRanges: params.geoHeaderProxyRanges.value(),
      trustGeoHeaders: params.trustGeoHeaders.value(),
      hostingHopRanges: params.hostingHopRanges.value(),
    }),
    scanRetentionDays: parseRetentionDays(params.scanRetentionDays.value()),
    scanEventRetentionDays: parseEventRetentionDays(params.scanEventRetentionDays.value(), parseRetentionDays(params.scanRetentionDays.value())),
    workspaceCodeQuota: parseCodeQuota(params.workspaceCodeQuota.value()),
    consumerGatherMs: parseGatherMs(params.consumerGatherMs.value(), local),
    domains: domainSettings(
      { dnsServers: params.dnsServers.value(), targetHost: params.domainTargetHost.value(), apexAddresses: params.domainApexAddresses.value() },
      { local, projectId: pid, urls: Object.values(urls) },
    ),
    ...addressAllowLists(Object.values(urls), {
      local,
      projectId: pid,
      extraHosts: params.allowedHosts.value(),
      extraOrigins: params.allowedOrigins.value(),
    }),
  };
  return cached;
}
