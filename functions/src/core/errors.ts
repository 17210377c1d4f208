// One error type for the whole service. Each code fixes its HTTP status (REST surfaces) and its
// JSON-RPC error code (tool server); each surface maps AppError to its wire format in one place.
import { randomBytes } from "node:crypto";

export const ERROR_TABLE = {
  INVALID_REQUEST: { status: 400, rpc: -32600 },
  MALFORMED_JSON: { status: 400, rpc: -32600 },
  PAYLOAD_TOO_LARGE: { status: 413, rpc: -32600 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, rpc: -32600 },
  UNKNOWN_QUERY_PARAMETER: { status: 400, rpc: -32602 },
  VALIDATION_FAILED: { status: 400, rpc: -32602 },
  UNKNOWN_TOOL: { status: 400, rpc: -32602 },
  METHOD_NOT_FOUND: { status: 404, rpc: -32601 },
  METHOD_NOT_ALLOWED: { status: 405, rpc: -32601 },
  // MCP 2026-07-28: transport and per-request metadata checks (docs/mcp.md, "2026-07-28 era").
  INVALID_META: { status: 400, rpc: -32602 },
  HEADER_MISMATCH: { status: 400, rpc: -32020 },
  UNSUPPORTED_PROTOCOL_VERSION: { status: 400, rpc: -32022 },
  // A request the server can serve only to a client that declared a capability (2026-07-28, the tasks extension).
  MISSING_CLIENT_CAPABILITY: { status: 400, rpc: -32021 },
  // tasks/get, tasks/update, tasks/cancel of a task id this workspace does not have (-32602, SEP-2663).
  TASK_NOT_FOUND: { status: 404, rpc: -32602 },
  ORIGIN_NOT_ALLOWED: { status: 403, rpc: -32600 },
  NOT_FOUND: { status: 404, rpc: -32000 },
  // MCP resources/read of a URI the server does not have (-32602 as in MCP 2026-07-28, both eras).
  RESOURCE_NOT_FOUND: { status: 404, rpc: -32602 },
  NO_AUTH: { status: 401, rpc: -32001 },
  INVALID_API_KEY: { status: 401, rpc: -32001 },
  INVALID_TOKEN: { status: 401, rpc: -32001 },
  REVOKED: { status: 403, rpc: -32001 },
  INSUFFICIENT_SCOPE: { status: 403, rpc: -32000 },
  NO_WORKSPACE: { status: 403, rpc: -32000 },
  FORBIDDEN: { status: 403, rpc: -32000 },
  CONFLICT: { status: 409, rpc: -32000 },
  // A brand design whose image does not decode exactly, or whose colours lack contrast (docs/errors.md).
  DESIGN_REFUSED: { status: 422, rpc: -32000 },
  // A destination on the abuse blocklist (shipped list or Safe Browsing), refused at create and re-point.
  DESTINATION_BLOCKED: { status: 422, rpc: -32000 },
  GONE: { status: 410, rpc: -32000 },
  RATE_LIMITED: { status: 429, rpc: -32000 },
  UNAVAILABLE: { status: 503, rpc: -32000 },
  INTERNAL: { status: 500, rpc: -32000 },
} as const satisfies Record<string, { status: number; rpc: number }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface AppErrorOptions {
  hint?: string;
  /** Extra machine-readable detail (validation issues, missing scope...). Never secrets. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  /**
   * Server-side failures (5xx) carry an id that is both in the answer and in the log line, so support can
   * find the cause from what a caller quotes. Answers never carry the cause itself.
   */
  readonly requestId?: string;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
    if (ERROR_TABLE[code].status >= 500) this.requestId = newRequestId();
  }

  get httpStatus(): number {
    return ERROR_TABLE[this.code].status;
  }

  get rpcCode(): number {
    return ERROR_TABLE[this.code].rpc;
  }
}

function newRequestId(): string {
  return `req_${randomBytes(9).toString("base64url")}`;
}

/** Anything thrown that is not an AppError becomes INTERNAL without leaking internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isContention(error)) {
    return new AppError("UNAVAILABLE", "The workspace is busy with other changes to the same data", { cause: error, hint: "Retry in a few seconds; nothing was changed." });
  }
  return new AppError("INTERNAL", "Internal error", { cause: error, hint: "Retry later; if it persists, contact support and quote the requestId." });
}

// Firestore's gRPC status for a transaction that lost to others every time it was tried (ABORTED): the
// caller's request was fine and nothing was written, so it is a retryable 503, not an internal error.
const GRPC_ABORTED = 10;

function isContention(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === GRPC_ABORTED;
}
