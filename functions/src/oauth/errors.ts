// OAuth errors ride on the one AppError type: `details.oauthError` carries the RFC 6749 / 7591 / 8707 code,
// and oauth/app.ts turns any AppError into an OAuth error body (`error`, `error_description`) in one place.
import { AppError, toAppError, type ErrorCode } from "../core/errors";

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
