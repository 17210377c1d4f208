// MCP revision 2026-07-28 (stateless), spoken beside 2025-03-26 on the same endpoint. This module holds the
// revision's protocol-layer rules: which messages belong to it, the per-request `_meta` envelope, the
// supported versions, and the shape of its results. The HTTP binding's header rules live with the HTTP
// surface (httpHeaders.ts). Sources for every rule: docs/mcp.md, "2026-07-28 era".
import { z } from "zod";
import { MCP_PROTOCOL_VERSION } from "../core/config";
import { AppError } from "../core/errors";
import { formatIssues } from "../core/validation";
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from "./identity";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** What server/discover and UnsupportedProtocolVersionError list: 2026-07-28 per request, 2025-03-26 through initialize. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, MCP_PROTOCOL_VERSION];

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/** The tasks extension (SEP-2663), offered by server/discover and declared by clients in clientCapabilities.extensions. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Reserved request `_meta` keys: any one of them puts a message in the 2026-07-28 era. */
const ENVELOPE_KEYS = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL] as const;

/**
 * Caching hints (SEP-2549) of tools/list and server/discover. The tool list is the same for every caller
 * (it is also published without auth by GET /api/mcp, with `Cache-Control: public, max-age=300`) and
 * changes only with a deploy, so shared caches may keep it, for the manifest's five minutes.
 */
export const LIST_CACHE_HINTS = { ttlMs: 300_000, cacheScope: "public" } as const;

/** Results of these methods are `CacheableResult`s in 2026-07-28 (the ones this server implements). */
const CACHEABLE_METHODS = new Set(["tools/list", "server/discover", "resources/list", "resources/templates/list", "resources/read"]);

export type Era = "2025-03-26" | "2026-07-28";

/** Revision identifiers are ISO dates: 2026-07-28 and later (or anything sorting after it) are per-request. */
export function isModernVersion(version: string | undefined): boolean {
  return typeof version === "string" && version >= MODERN_PROTOCOL_VERSION;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** params._meta of a JSON-RPC message, if it is an object. */
export function metaOf(message: unknown): Record<string, unknown> | undefined {
  const params = isRecord(message) ? message.params : undefined;
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) ? meta : undefined;
}

export function carriesEnvelope(message: unknown): boolean {
  const meta = metaOf(message);
  return meta !== undefined && ENVELOPE_KEYS.some((key) => key in meta);
}

/**
 * Which era serves a message. The body decides: reserved `_meta` keys mean 2026-07-28. Without them, an
 * `MCP-Protocol-Version` header naming 2026-07-28 or later still does, so that such a request is refused
 * for its missing `_meta` instead of being served as 2025-03-26. Everything else is 2025-03-26, as before.
 */
export function eraOf(message: unknown, protocolVersionHeader: string | undefined): Era {
  return carriesEnvelope(message) || isModernVersion(protocolVersionHeader) ? "2026-07-28" : "2025-03-26";
}

const required = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `Required: ${what}` : `Must be ${what}`;

const Implementation = z.looseObject({ name: z.string(), version: z.string() });

/** The per-request `_meta` envelope (schema RequestMetaObject); other `_meta` keys pass through. */
export const RequestEnvelope = z.looseObject({
  [META_PROTOCOL_VERSION]: z.string({ error: required("a protocol version string") }),
  [META_CLIENT_CAPABILITIES]: z.record(z.string(), z.unknown(), { error: required("an object of client capabilities") }),
  [META_CLIENT_INFO]: Implementation.optional(),
  [META_LOG_LEVEL]: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).optional(),
  progressToken: z.union([z.string(), z.number().int()]).optional(),
});

export interface Envelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
}

/** An object as JSON.parse makes them (what `z.record` accepts: no prototype but Object's, or none). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Validates params._meta of a 2026-07-28 message: -32602 with HTTP 400, naming each missing or bad key. */
export function readRequestEnvelope(message: unknown): Envelope {
  const meta = metaOf(message);
  if (!meta) {
    throw new AppError(
      "INVALID_META",
      `Invalid params: params._meta is required in protocol ${MODERN_PROTOCOL_VERSION} (${META_PROTOCOL_VERSION}, ${META_CLIENT_CAPABILITIES})`,
      { hint: `Send the ${MODERN_PROTOCOL_VERSION} per-request _meta, or drop its keys and the MCP-Protocol-Version header to use ${MCP_PROTOCOL_VERSION} with initialize.` },
    );
  }
  // The common envelope (a version string, a capabilities object, none of the optional reserved keys) is
  // what RequestEnvelope accepts, checked by hand: zod's parse was the dearest of the per-request checks
  // (docs/performance.md). Anything else goes through the schema, which also words the errors.
  const version = meta[META_PROTOCOL_VERSION];
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (typeof version === "string" && isPlainRecord(capabilities) && meta[META_CLIENT_INFO] === undefined && meta[META_LOG_LEVEL] === undefined && meta.progressToken === undefined) {
    return { protocolVersion: version, clientCapabilities: capabilities };
  }
  const parsed = RequestEnvelope.safeParse(meta);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error);
    const summary = issues.map((i) => `_meta["${i.path}"]: ${i.message}`).join("; ");
    throw new AppError("INVALID_META", `Invalid params: ${summary}`, { details: { issues } });
  }
  return {
    protocolVersion: parsed.data[META_PROTOCOL_VERSION],
    clientCapabilities: parsed.data[META_CLIENT_CAPABILITIES],
  };
}

/** UnsupportedProtocolVersionError (-32022, HTTP 400) unless `version` is served per request. */
export function requireSupportedVersion(version: string): void {
  if (version === MODERN_PROTOCOL_VERSION) return;
  const legacy = SUPPORTED_PROTOCOL_VERSIONS.includes(version);
  throw new AppError(
    "UNSUPPORTED_PROTOCOL_VERSION",
    legacy
      ? `Unsupported protocol version: ${version} is spoken through the initialize handshake, not per-request _meta`
      : `Unsupported protocol version: ${version.slice(0, 64)}`,
    {
      hint: `Per-request _meta takes ${MODERN_PROTOCOL_VERSION}; ${MCP_PROTOCOL_VERSION} starts with initialize and carries no such _meta.`,
      details: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: version },
    },
  );
}

export function discoverResult(): Record<string, unknown> {
  return {
    supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    // The tasks extension is negotiated per request, so only this era offers it (not initialize).
    capabilities: { ...SERVER_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: SERVER_INSTRUCTIONS,
  };
}

/** Result types other than "complete" a tools/call may answer: a task (tasks extension), or a request for input (MRTR). */
const OTHER_RESULT_TYPES = new Set(["task", "input_required"]);

/**
 * Every 2026-07-28 result: its `resultType` ("complete" unless a tools/call created a task or asks for
 * input), the server's identity in `_meta`, and the caching hints on cacheable results.
 */
export function completeResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const meta = isRecord(result._meta) ? result._meta : {};
  const resultType = method === "tools/call" && OTHER_RESULT_TYPES.has(result.resultType as string) ? result.resultType : "complete";
  return {
    ...result,
    ...(CACHEABLE_METHODS.has(method) ? LIST_CACHE_HINTS : {}),
    resultType,
    _meta: { ...meta, [META_SERVER_INFO]: SERVER_INFO },
  };
}

/** Methods of 2025-03-26 that 2026-07-28 removed, with what to do instead. */
export const REMOVED_METHODS: Readonly<Record<string, string>> = {
  initialize: `${MODERN_PROTOCOL_VERSION} has no handshake: send each request with its _meta (server/discover describes the server), or leave out the _meta keys to speak ${MCP_PROTOCOL_VERSION}`,
  "notifications/initialized": `${MODERN_PROTOCOL_VERSION} has no handshake`,
  ping: `ping was removed in ${MODERN_PROTOCOL_VERSION}; server/discover needs no credential`,
};
