// Where the OAuth pieces live and what they advertise: protected resource metadata for /api/mcp (RFC 9728)
// and authorization server metadata for the app host (RFC 8414). Everything derives from core/config.ts.
import { getConfig } from "../core/config";
import { SCOPES, type Scope } from "../auth/scopes";
import { MCP_TOOLSET_NAMES } from "../core/constants";

export const CODE_TTL_MS = 60_000;
export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;
/** How long a person has to sign in and decide on the consent page. */
export const PENDING_REQUEST_TTL_MS = 10 * 60_000;

export function oauthUrls() {
  const { appUrl, mcpFunctionUrl } = getConfig();
  return {
    issuer: appUrl,
    /** The one resource tokens are minted for: the MCP endpoint. */
    resource: mcpFunctionUrl,
    resourceMetadata: resourceMetadataUrl(mcpFunctionUrl),
    authorization: `${appUrl}/oauth/authorize`,
    token: `${appUrl}/oauth/token`,
    registration: `${appUrl}/oauth/register`,
    revocation: `${appUrl}/oauth/revoke`,
    consentPage: `${appUrl}/oauth/consent`,
  };
}

/**
 * The resource a token is bound to when an app names `requested`: the tool server's URL, also when the app
 * connected to one of its toolset or read-only URLs below it (one token serves them all; docs/mcp.md,
 * "Toolsets"). Undefined for any other resource.
 */
export function canonicalResource(requested: string): string | undefined {
  const { resource } = oauthUrls();
  const base = resource.replace(/\/$/, "");
  if (requested === resource || requested === base) return resource;
  if (!requested.startsWith(`${base}/`)) return undefined;
  const match = /^\/(?:x\/([a-z,]+)(?:\/readonly)?|readonly)\/?$/.exec(requested.slice(base.length).toLowerCase());
  if (!match) return undefined;
  const names = match[1] === undefined || match[1] === "all" ? [] : match[1].split(",");
  return names.every((name) => (MCP_TOOLSET_NAMES as readonly string[]).includes(name)) ? resource : undefined;
}

/** Scopes that change nothing: what a read-only URL advertises and what a grant started at one may carry. */
export const READ_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(":read"));

/** Whether `requested` is one of the tool server's read-only URLs (`/readonly`, `/x/<toolsets>/readonly`). */
export function isReadOnlyResource(requested: string): boolean {
  return canonicalResource(requested) !== undefined && /\/readonly\/?$/i.test(new URL(requested).pathname);
}

/**
 * The scopes an authorization request at `requested` may grant: at a read-only URL, its read scopes only
 * (merchant:read when it asked for none of them). The token is still bound to the tool server's URL, so
 * this is what keeps a "read-only" connection from writing when its token is used at the full URL.
 */
export function scopesForResource(requested: string, scopes: readonly Scope[]): Scope[] {
  if (!isReadOnlyResource(requested)) return [...scopes];
  const read = scopes.filter((s) => READ_SCOPES.includes(s));
  return read.length ? read : ["merchant:read"];
}

/**
 * Where the protected resource metadata of `resource` sits (RFC 9728 section 3.1: the well-known prefix
 * plus the resource's path), for the tool server's URL and each toolset or read-only URL below it.
 */
export function resourceMetadataUrl(resource: string = oauthUrls().resource): string {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname.replace(/\/$/, "")}`;
}

/**
 * The metadata of the tool server, or of one of its toolset or read-only URLs: RFC 9728 section 3.3 has a
 * client check that `resource` is the very URL it connected to, so each URL gets its own document; tokens
 * for any of them are bound to the tool server's URL (canonicalResource) and work at all of them.
 */
export function protectedResourceMetadata(resource: string = oauthUrls().resource) {
  const urls = oauthUrls();
  return {
    resource,
    authorization_servers: [urls.issuer],
    scopes_supported: isReadOnlyResource(resource) ? [...READ_SCOPES] : [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "svc MCP tool server",
    resource_documentation: `${getConfig().docsUrl}`,
  };
}

export function authorizationServerMetadata() {
  const urls = oauthUrls();
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorization,
    token_endpoint: urls.token,
    registration_endpoint: urls.registration,
    revocation_endpoint: urls.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * The WWW-Authenticate challenge for an MCP answer, or undefined when it needs none: every 401 names the
 * protected resource metadata (RFC 9728 section 5.1); a credential that was sent but refused adds
 * error="invalid_token" (RFC 6750 section 3.1), a missing one adds no error code.
 */
export function mcpChallenge(status: number, body: unknown, resource: string = oauthUrls().resource): string | undefined {
  if (status !== 401) return undefined;
  const code = (body as { error?: { data?: { code?: unknown } } } | undefined)?.error?.data?.code;
  const parts = [`resource_metadata="${resourceMetadataUrl(resource)}"`];
  if (code !== undefined && code !== "NO_AUTH") parts.unshift(`error="invalid_token"`);
  return `Bearer ${parts.join(", ")}`;
}
