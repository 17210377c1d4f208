// Shared plumbing for the REST surfaces (site API, sandbox, bulk, console): CORS as http/cors.ts decides,
// raw-body capture for portability outside Cloud Functions, and the AppError -> JsonError mapping (or the
// surface's own error style, as OAuth's RFC error bodies).
import type { Express, NextFunction, Request, Response } from "express";
import { sha256 } from "../core/hash";
import { STATUS_CODES } from "node:http";
import { AppError, toAppError } from "../core/errors";
import { logServerError } from "../core/log";
import { getConfig } from "../core/config";
import { corsFor, type CorsSurface } from "./cors";

export interface JsonErrorBody {
  error: string;
  code: string;
  message: string;
  hint: string;
  status?: number;
  path?: string;
  details?: Record<string, unknown>;
  /** 5xx only: the id of the log line that holds the cause. */
  requestId?: string;
}

export function jsonErrorBody(err: AppError, path?: string): JsonErrorBody {
  return {
    error: STATUS_CODES[err.httpStatus] ?? "Error",
    code: err.code,
    message: err.message,
    hint: err.hint ?? defaultHint(err),
    status: err.httpStatus,
    ...(path ? { path } : {}),
    ...(err.details ? { details: err.details } : {}),
    ...(err.requestId ? { requestId: err.requestId } : {}),
  };
}

function defaultHint(err: AppError): string {
  switch (err.code) {
    case "NOT_FOUND":
      return "Check the path; GET /api lists every published URL.";
    case "NO_AUTH":
      return "Send Authorization: Bearer <sk-svc- key or Firebase ID token>.";
    default:
      return "See the documentation linked from GET /api.";
  }
}

/** How a surface writes an error answer; the status line's extras (Allow) and the 5xx log are common. */
export interface ErrorStyle {
  surface: string;
  write(res: Response, err: AppError, path?: string): void;
}

const JSON_ERRORS: ErrorStyle = {
  surface: "rest",
  write: (res, err, path) => void res.status(err.httpStatus).json(jsonErrorBody(err, path)),
};

export function sendJsonError(res: Response, error: unknown, path?: string, style: ErrorStyle = JSON_ERRORS): void {
  const err = toAppError(error);
  if (err.requestId) logServerError({ surface: style.surface, requestId: err.requestId, code: err.code, path }, error);
  if (res.headersSent) return;
  if (err.code === "METHOD_NOT_ALLOWED" && err.details?.allow) res.setHeader("Allow", String(err.details.allow));
  style.write(res, err, path);
}

/** Express error middleware for REST apps: every failure leaves as a JsonError. */
export function restErrorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  sendJsonError(res, bodyParserError(err) ?? err, req.path);
}

/** Express error middleware for a surface with its own error style. */
export function errorHandlerFor(style: ErrorStyle) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => sendJsonError(res, bodyParserError(err) ?? err, req.path, style);
}

/**
 * Failures raised by express itself become AppErrors: body-parser's (when the app runs outside the
 * Functions framework), and the router's 400 for a path parameter that is not valid percent-encoding.
 */
function bodyParserError(err: unknown): AppError | undefined {
  const { type, status } = (err ?? {}) as { type?: string; status?: number };
  if (type === "entity.parse.failed") return new AppError("MALFORMED_JSON", "Request body is not valid JSON");
  if (type === "entity.too.large") return new AppError("PAYLOAD_TOO_LARGE", "Request body is too large");
  if (err instanceof URIError || status === 400) return new AppError("INVALID_REQUEST", "The request path is not valid percent-encoding");
  return undefined;
}

type RawRequest = Request & { rawBody?: Buffer };

/**
 * Cloud Functions hands us `req.rawBody`; elsewhere (benchmarks, plain express) read the stream once.
 * Reading keeps at most `maxBytes` and one chunk, so an oversized body cannot exhaust memory.
 */
export function captureRawBody(maxBytes: number) {
  return (req: RawRequest, _res: Response, next: NextFunction): void => {
    if (req.rawBody !== undefined || req.readableEnded || !["POST", "PUT", "PATCH"].includes(req.method)) {
      next();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      // Keep chunks until the limit is passed (so the oversize shows, as 413), then drop the rest.
      if (size <= maxBytes) chunks.push(chunk);
      size += chunk.length;
    });
    req.on("end", () => {
      req.rawBody = Buffer.concat(chunks);
      next();
    });
    req.on("error", next);
  };
}

export function rawBodyOf(req: Request): Buffer | undefined {
  return (req as RawRequest).rawBody;
}

/** Parses a JSON body from the raw bytes; the caller decides which content types it accepts. */
export function parseJsonBody(req: Request, maxBytes: number): unknown {
  const raw = rawBodyOf(req);
  if (raw && raw.length > maxBytes) {
    throw new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than ${maxBytes} bytes`, { details: { maxBytes } });
  }
  if (raw && raw.length > 0) {
    try {
      return JSON.parse(raw.toString("utf8"));
    } catch {
      throw new AppError("MALFORMED_JSON", "Request body is not valid JSON", { hint: "Send a JSON document." });
    }
  }
  // Some callers (tests with supertest-like clients) may have a pre-parsed body and no raw bytes.
  if (req.body !== undefined && typeof req.body === "object" && !Buffer.isBuffer(req.body)) return req.body;
  throw new AppError("MALFORMED_JSON", "Request body is empty", { hint: "Send a JSON document." });
}

/**
 * Parses an `application/x-www-form-urlencoded` body into an object of strings. A repeated parameter is
 * refused (RFC 6749 section 3.2: parameters "MUST NOT be included more than once") and an empty one is
 * absent (section 3.1), so a schema sees each parameter once or not at all.
 */
export function parseFormBody(req: Request, maxBytes: number): Record<string, string> {
  const raw = rawBodyOf(req);
  if (raw && raw.length > maxBytes) {
    throw new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than ${maxBytes} bytes`, { details: { maxBytes } });
  }
  // Without raw bytes (plain express in tests) a body parser may have run already.
  const text = raw ? raw.toString("utf8") : new URLSearchParams((req.body ?? {}) as Record<string, string>).toString();
  const params = Object.create(null) as Record<string, string>; // a parameter named __proto__ stays a parameter
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (seen.has(name)) throw new AppError("VALIDATION_FAILED", `Parameter ${name} is repeated`, { details: { parameter: name } });
    seen.add(name);
    if (value !== "") params[name] = value;
  }
  return params;
}

export function isFormContentType(req: Request): boolean {
  return (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase() === "application/x-www-form-urlencoded";
}

export function isJsonContentType(req: Request): boolean {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** What no response of ours may be used for: sniffed into another type, framed, or leaking its URL. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/**
 * CSP for an HTML page rendered by a function: its own inline style block (by hash) and same-origin
 * images and forms; no script runs (JSON-LD blocks are data, not script), and nothing may frame it.
 */
export function pageCsp(inlineStyle: string): string {
  const hash = sha256(inlineStyle, "base64");
  return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  // The platform's own express app (Functions Framework, or the emulator) may have set it before ours ran.
  res.removeHeader("X-Powered-By");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
  res.setHeader("Content-Security-Policy", API_CSP);
  res.setHeader("X-Frame-Options", "DENY");
  // Browsers ignore HSTS over plain http; production is https only.
  if (!getConfig().isEmulator) res.setHeader("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  next();
}

/** An express app for one surface: security headers, CORS as http/cors.ts decides for it, then its routes. */
export function createRestApp(configure: (app: Express) => void, options: { cors: CorsSurface; errors?: ErrorStyle }): Express {
  const express = require("express") as typeof import("express");
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.use(securityHeaders);
  app.use(corsFor(options.cors));
  configure(app);
  app.use(options.errors ? errorHandlerFor(options.errors) : restErrorHandler);
  return app;
}

/** Throws METHOD_NOT_ALLOWED naming the methods a path accepts. */
export function methodNotAllowed(allow: string): never {
  throw new AppError("METHOD_NOT_ALLOWED", `Method not allowed; this path accepts ${allow}`, { details: { allow } });
}
