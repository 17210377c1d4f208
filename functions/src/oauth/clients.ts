// Who the client is. Two paths, both for public clients (no secrets):
// - a Client ID Metadata Document: the client_id is an https URL whose JSON names the client; fetched here
//   with tight bounds (scheme, size, time, no redirects, no private addresses outside the local stack) and
//   cached in Firestore;
// - Dynamic Client Registration (RFC 7591) for clients that predate metadata documents.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { isPublicAddress, publicOnlyLookup, systemResolve, type Resolver } from "../core/publicAddress";
import { z } from "zod";
import { getConfig } from "../core/config";
import { formatIssues } from "../core/validation";
import { getOAuthClient, saveOAuthClient, touchOAuthClient, type OAuthClient } from "../store/oauthClients";
import { logError } from "../core/log";
import { oauthError } from "./errors";
import { randomId } from "./secrets";

export { isPublicAddress };

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

export type ClientMetadata = z.infer<typeof ClientMetadataSchema>;

const SECRET_MEMBERS = ["client_secret", "jwks", "jwks_uri"];

/** POST /oauth/register's body: client metadata of a public client (no secrets, no keys). */
export const RegistrationRequestSchema = z.looseObject(ClientMetadataSchema.shape).superRefine((body, ctx) => {
  if (SECRET_MEMBERS.some((name) => name in body)) {
    ctx.addIssue({ code: "custom", path: [], message: "Only public clients are supported: send no secrets or keys, token_endpoint_auth_method none" });
  }
});

function parseMetadata(input: unknown, what: string): ClientMetadata {
  const result = ClientMetadataSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = formatIssues(result.error);
  const redirectProblem = issues.some((i) => i.path.startsWith("redirect_uris"));
  const summary = issues.map((i) => `${i.path || "(document)"}: ${i.message}`).join("; ");
  throw oauthError(redirectProblem ? "invalid_redirect_uri" : "invalid_client_metadata", `Invalid ${what}: ${summary}`);
}

/** RFC 7591: registers a public client (its metadata checked by RegistrationRequestSchema) and returns the registration response. */
export async function registerClient(metadata: ClientMetadata) {
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
    token_endpoint_auth_method: "none" as const,
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
    logError("oauth.client_use_not_recorded", "oauth: client use not recorded", error);
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

/** How a metadata document is fetched: the guards differ between the local stack and everywhere else. */
export interface FetchGuards {
  /** The local stack: http, loopback and any port allowed. */
  local: boolean;
  /** Name resolution outside the local stack (tests stub it; the default is the system resolver). */
  resolve: Resolver;
  /** One deadline for the whole fetch: resolution, connection, headers and body. */
  deadlineMs: number;
}

export const defaultFetchGuards = (): FetchGuards => ({ local: getConfig().isEmulator, resolve: systemResolve, deadlineMs: METADATA_DOCUMENT_TIMEOUT_MS });

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
