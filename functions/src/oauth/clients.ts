// Who the client is. Two paths, both for public clients (no secrets):
// - a Client ID Metadata Document: the client_id is an https URL whose JSON names the client; fetched here
//   with tight bounds (scheme, size, time, no redirects, no private addresses outside the local stack) and
//   cached in Firestore;
// - Dynamic Client Registration (RFC 7591) for clients that predate metadata documents.
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { z } from "zod";
import { getConfig } from "../core/config";
import { formatIssues } from "../core/validation";
import { getOAuthClient, saveOAuthClient, touchOAuthClient, type OAuthClient } from "../store/oauthClients";
import { logError } from "../core/log";
import { oauthError } from "./errors";
import { randomId } from "./secrets";

export const METADATA_DOCUMENT_MAX_BYTES = 8 * 1024;
export const METADATA_DOCUMENT_TIMEOUT_MS = 5_000;
const CACHE_DEFAULT_S = 3600;
const CACHE_MIN_S = 60;
const CACHE_MAX_S = 24 * 3600;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Redirect URIs a public client may register: https anywhere, http only on loopback (native apps, RFC 8252),
 * or a private-use scheme; never fragments or script-capable schemes.
 */
export function isAcceptableRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash || value.includes("#")) return false;
  if (url.protocol === "https:") return true;
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol); // reverse-domain private-use scheme
}

const RedirectUris = z.array(z.string().max(2048).refine(isAcceptableRedirectUri, "not an acceptable redirect URI")).min(1).max(10);

// Unknown members are ignored, not refused: RFC 7591 section 2 and metadata documents both require it.
const ClientMetadataSchema = z.object({
  redirect_uris: RedirectUris,
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.string().url().max(2048).optional(),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
  scope: z.string().max(1000).optional(),
});

type ClientMetadata = z.infer<typeof ClientMetadataSchema>;

function parseMetadata(input: unknown, what: string): ClientMetadata {
  const result = ClientMetadataSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = formatIssues(result.error);
  const redirectProblem = issues.some((i) => i.path.startsWith("redirect_uris"));
  const summary = issues.map((i) => `${i.path || "(document)"}: ${i.message}`).join("; ");
  throw oauthError(redirectProblem ? "invalid_redirect_uri" : "invalid_client_metadata", `Invalid ${what}: ${summary}`);
}

/** RFC 7591: registers a public client and returns the registration response. */
export async function registerClient(body: unknown) {
  if (body && typeof body === "object" && ("client_secret" in body || "jwks" in body || "jwks_uri" in body)) {
    throw oauthError("invalid_client_metadata", "Only public clients are supported: send no secrets or keys, token_endpoint_auth_method none");
  }
  const metadata = parseMetadata(body, "client metadata");
  const client: OAuthClient = {
    clientId: randomId("svc-client-", 16),
    kind: "registered",
    clientName: metadata.client_name ?? "Unnamed client",
    clientUri: metadata.client_uri ?? null,
    redirectUris: metadata.redirect_uris,
    expiresAt: null,
  };
  await saveOAuthClient(client);
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: client.clientName,
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** Stamped at most once a day per client and instance: a busy client's document is no write hot spot. */
const TOUCH_INTERVAL_MS = 24 * 3600_000;
const touched = new Map<string, number>();

/** Records that a client was used, so it is not purged; a failure only logs (the request goes on). */
export async function touchClient(clientId: string, now = Date.now()): Promise<void> {
  const last = touched.get(clientId);
  if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
  if (touched.size > 10_000) touched.clear();
  touched.set(clientId, now);
  await touchOAuthClient(clientId, now).catch((error) => {
    touched.delete(clientId);
    logError("oauth: client use not recorded", error);
  });
}

export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** The client a client_id names, fetching (or re-fetching) its metadata document when it is a URL. */
export async function resolveClient(clientId: string): Promise<OAuthClient> {
  if (!clientId) throw oauthError("invalid_request", "client_id is required");
  const cached = await getOAuthClient(clientId);
  if (cached && (!cached.expiresAt || cached.expiresAt > new Date())) {
    await touchClient(clientId);
    return cached;
  }
  if (!isMetadataDocumentId(clientId)) throw oauthError("invalid_client", "Unknown client_id", 401);
  const { document, maxAgeS } = await fetchMetadataDocument(clientId);
  if (typeof document !== "object" || document === null || (document as { client_id?: unknown }).client_id !== clientId) {
    throw oauthError("invalid_client", "The client metadata document's client_id does not equal its URL", 401);
  }
  if ("client_secret" in document) throw oauthError("invalid_client", "A client metadata document must not carry a client_secret", 401);
  const metadata = parseMetadata(document, "client metadata document");
  const client: OAuthClient = {
    clientId,
    kind: "metadata-document",
    clientName: metadata.client_name ?? new URL(clientId).host,
    clientUri: metadata.client_uri ?? null,
    redirectUris: metadata.redirect_uris,
    expiresAt: new Date(Date.now() + maxAgeS * 1000),
  };
  await saveOAuthClient(client);
  return client;
}

// Addresses a metadata document may not be fetched from outside the local stack (SSRF): the IANA IPv4 and
// IPv6 special-purpose registries (loopback, private, link-local, shared, documentation, benchmarking,
// translation, 6to4, Teredo, ORCHID, AS112, discard, SRv6, unique-local) plus multicast and reserved space.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24],
  ["192.168.0.0", 16], ["192.175.48.0", 24], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const) BLOCKED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 96], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["100:0:0:1::", 64], ["2001::", 23], ["2001:db8::", 32],
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

/** How a metadata document is fetched: the guards differ between the local stack and everywhere else. */
export interface FetchGuards {
  /** The local stack: http, loopback and any port allowed. */
  local: boolean;
  /** Name resolution outside the local stack (tests stub it; the default is the system resolver). */
  resolve: (hostname: string) => Promise<LookupAddress[]>;
  /** One deadline for the whole fetch: resolution, connection, headers and body. */
  deadlineMs: number;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

export const defaultFetchGuards = (): FetchGuards => ({ local: getConfig().isEmulator, resolve: systemResolve, deadlineMs: METADATA_DOCUMENT_TIMEOUT_MS });

/**
 * A lookup for the connection that refuses any name with a non-public answer, so the check holds for the
 * address actually used (no rebinding between check and connect). Its error names neither the answer nor
 * the reason: the caller reports every network failure alike.
 */
function publicOnlyLookup(resolve: FetchGuards["resolve"]): LookupFunction {
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

export async function fetchMetadataDocument(clientId: string, guards: FetchGuards = defaultFetchGuards()): Promise<{ document: unknown; maxAgeS: number }> {
  const { local, deadlineMs } = guards;
  const url = new URL(clientId);
  const unusable = (why: string) => oauthError("invalid_client", `Client metadata document ${why}`, 401);
  if (url.protocol !== "https:" && !(local && url.protocol === "http:")) throw unusable("must be served over https");
  if (url.pathname === "/" || url.hash || url.username || url.password) throw unusable("URL must have a path and no fragment or credentials");
  if (!local && url.port !== "") throw unusable("must be served on port 443");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!local && isIP(host) && !isPublicAddress(host)) throw unusable("must not be on a private or loopback address");
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.get(url, { headers: { Accept: "application/json" }, ...(local ? {} : { lookup: publicOnlyLookup(guards.resolve) }) }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return fail(unusable(`answered HTTP ${res.statusCode} (redirects are not followed)`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > METADATA_DOCUMENT_MAX_BYTES) fail(unusable(`is larger than ${METADATA_DOCUMENT_MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on("end", () => {
        clearTimeout(deadline);
        try {
          resolve({ document: JSON.parse(Buffer.concat(chunks).toString("utf8")), maxAgeS: cacheSeconds(res.headers["cache-control"]) });
        } catch {
          reject(unusable("is not valid JSON"));
        }
      });
      res.on("error", () => fail(unusable("could not be fetched")));
    });
    // The one deadline: an idle timeout alone lets a server drip a byte at a time for ever.
    const deadline = setTimeout(() => fail(unusable(`took longer than ${deadlineMs} ms`)), deadlineMs);
    function fail(error: Error): void {
      clearTimeout(deadline);
      reject(error);
      req.destroy();
    }
    // Not the underlying message: it could say how the name resolved (or that it did not).
    req.on("error", () => fail(unusable("could not be fetched")));
  });
}

/** Honour the document's max-age within bounds; no-store still caches for the minimum, to bound fetch load. */
function cacheSeconds(header: string | undefined): number {
  const maxAge = /max-age=(\d+)/i.exec(header ?? "");
  const seconds = maxAge ? Number(maxAge[1]) : CACHE_DEFAULT_S;
  return Math.min(CACHE_MAX_S, Math.max(CACHE_MIN_S, seconds));
}
