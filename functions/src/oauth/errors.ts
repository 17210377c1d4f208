// OAuth errors ride on the one AppError type: `details.oauthError` carries the RFC 6749 / 7591 / 8707 code,
// and the surface's error style (OAUTH_ERRORS, given to createRestApp) turns any AppError into an OAuth error
// body (`error`, `error_description`) with Cache-Control: no-store, in one place.
import { AppError, toAppError, type ErrorCode } from "../core/errors";
import type { ErrorStyle } from "../http/rest";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_client_metadata"
  | "invalid_redirect_uri"
  | "temporarily_unavailable"
  | "server_error";

const APP_CODE_BY_STATUS: Record<number, ErrorCode> = { 400: "INVALID_REQUEST", 401: "INVALID_TOKEN", 403: "FORBIDDEN", 404: "NOT_FOUND" };

export function oauthError(error: OAuthErrorCode, description: string, status = 400): AppError {
  return new AppError(APP_CODE_BY_STATUS[status] ?? "INVALID_REQUEST", description, { details: { oauthError: error } });
}

export function oauthCodeOf(err: AppError): OAuthErrorCode {
  const explicit = err.details?.oauthError;
  if (typeof explicit === "string") return explicit as OAuthErrorCode;
  if (err.code === "RATE_LIMITED" || err.code === "UNAVAILABLE") return "temporarily_unavailable";
  if (err.code === "INTERNAL") return "server_error";
  return "invalid_request";
}

/** Status and body of an OAuth error response (RFC 6749 section 5.2). */
export function oauthErrorResponse(error: unknown): { status: number; body: { error: OAuthErrorCode; error_description: string; request_id?: string }; err: AppError } {
  const err = toAppError(error);
  // RFC 6749 allows extra members; a 5xx names the log line that holds its cause.
  const description = err.requestId ? `${err.message} (request id ${err.requestId})` : err.message;
  return { status: err.httpStatus, body: { error: oauthCodeOf(err), error_description: description, ...(err.requestId ? { request_id: err.requestId } : {}) }, err };
}

/** The shared edge's refusals of a request's shape (http/endpoint.ts): always 400 in OAuth's terms. */
const EDGE_INPUT_ERRORS = new Set<ErrorCode>(["UNSUPPORTED_MEDIA_TYPE", "MALFORMED_JSON", "PAYLOAD_TOO_LARGE", "VALIDATION_FAILED", "UNKNOWN_QUERY_PARAMETER"]);

export const REGISTRATION_PATH = "/oauth/register";

/**
 * An error as the OAuth endpoint at `path` names it: the edge's input errors become RFC 7591's
 * invalid_client_metadata at registration (invalid_redirect_uri when a redirect URI is the problem) and
 * RFC 6749's invalid_request elsewhere, with status 400; other errors keep their code and status.
 */
export function asOAuthError(error: unknown, path = ""): AppError {
  const err = toAppError(error);
  if (!EDGE_INPUT_ERRORS.has(err.code) || typeof err.details?.oauthError === "string") return err;
  // express matches paths ignoring case and one trailing slash
  const registration = path.toLowerCase().replace(/\/$/, "") === REGISTRATION_PATH;
  const issues = (err.details?.issues ?? []) as Array<{ path?: string }>;
  const code: OAuthErrorCode = !registration
    ? "invalid_request"
    : issues.some((issue) => issue.path?.startsWith("redirect_uris"))
      ? "invalid_redirect_uri"
      : "invalid_client_metadata";
  return oauthError(code, err.message, 400);
}

/** OAuth's error answers: RFC 6749 section 5.2 bodies, never cached. */
export const OAUTH_ERRORS: ErrorStyle = {
  surface: "oauth",
  write(res, err, path) {
    const { status, body } = oauthErrorResponse(asOAuthError(err, path));
    res.status(status).set("Cache-Control", "no-store").json(body);
  },
};
