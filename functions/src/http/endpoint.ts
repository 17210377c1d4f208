// The one edge every REST route goes through. An endpoint declares its method, credential mode, scope,
// zod schemas for path params, query and body, and its rate limit; this module enforces them in a fixed
// order and maps every failure through the surface's single error mapping (http/rest.ts):
//   own-address check → per-address limit → credential (with the cookie rules) → scope → rate limit → params →
//   query → body (JSON or form) → handler.
// The tool server uses the same credential and limit code (authenticateRequest, enforceRateLimit).
import type { Express, Request, Response } from "express";
import type { z } from "zod";
import { AppError, type ErrorCode } from "../core/errors";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { logAuthenticationFailed, logRateLimited } from "../core/log";
import { RateLimiter, rateLimitedError, rateLimitHeaders, type RateDecision, type RateLimitName, type RateSubject } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";
import { parseOrThrow } from "../core/validation";
import { authenticate, callerForUser, credentialKind, requireScope, verifyUser, type Caller, type VerifiedUser } from "../auth/caller";
import type { Scope } from "../auth/scopes";
import { clientAddressOf, clientOf, limitSubjectOf } from "../core/clientAddress";
import { refuseForeignAddress } from "./originGuard";
import { captureRawBody, isFormContentType, isJsonContentType, methodNotAllowed, parseFormBody, parseJsonBody, rawBodyOf } from "./rest";
import { requestTime } from "../core/testClock";
import { getConfig } from "../core/config";

/**
 * none: no credential is read. user: a signed-in Firebase user (ID token or session cookie), with or
 * without a workspace; API keys are refused. member: a signed-in user of a workspace. caller: an API key
 * or a signed-in user of a workspace. admin: a signed-in user with the admin claim.
 */
export type CredentialMode = "none" | "user" | "member" | "caller" | "admin";

export interface Verified {
  caller?: Caller;
  user?: VerifiedUser;
}

/**
 * What a verified credential of `mode` gives a handler: the type says which of caller and user exist,
 * so a handler reading one its mode does not provide fails to compile.
 */
export type Credentials<M extends CredentialMode> = M extends "caller"
  ? { caller: Caller }
  : M extends "member"
    ? { caller: Caller; user: VerifiedUser }
    : M extends "user" | "admin"
      ? { user: VerifiedUser }
      : Record<never, never>;

const AUTH_FAILURES = new Set(["NO_AUTH", "INVALID_API_KEY", "INVALID_TOKEN", "REVOKED", "NO_WORKSPACE"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A session cookie rides along with any request the browser makes, including ones another site
 * triggers; so a cookie-authenticated change must come from one of the service's own origins (browsers
 * always send Origin on POST) and be JSON (which a cross-site form cannot send without a preflight).
 */
function requireCookieSafety(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (req.headers.origin === undefined) {
    throw new AppError("ORIGIN_NOT_ALLOWED", "A request authenticated by session cookie must carry the Origin of this service", {
      hint: "Send the request from the console, or authenticate with Authorization: Bearer.",
    });
  }
  if (!isJsonContentType(req)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "A request authenticated by session cookie must send Content-Type: application/json");
  }
}

/**
 * Verifies the request's credential for `mode`; failures are logged as `auth.failed` (never the credential).
 * `bearerOnly`: only the Authorization header counts (where a cookie on the path is not a session).
 */
export async function authenticateRequest<M extends CredentialMode>(req: Request, mode: M, surface: string, options: { bearerOnly?: boolean } = {}): Promise<Credentials<M>> {
  return (await verifyCredential(req, mode, surface, options)) as Credentials<M>;
}

async function verifyCredential(req: Request, mode: CredentialMode, surface: string, options: { bearerOnly?: boolean } = {}): Promise<Verified> {
  if (mode === "none") return {};
  const headers = { authorization: req.headers.authorization, cookie: options.bearerOnly ? undefined : req.headers.cookie };
  const kind = credentialKind(headers);
  try {
    if (kind === "cookie") {
      const refused = refuseForeignAddress(req.headers);
      if (refused) throw refused;
      requireCookieSafety(req);
    }
    switch (mode) {
      case "caller": {
        const caller = await authenticate(headers, surface);
        await caller.background;
        return { caller };
      }
      case "user":
        return { user: await verifyUser(headers) };
      case "member": {
        const user = await verifyUser(headers);
        return { user, caller: await callerForUser(user) };
      }
      case "admin": {
        const user = await verifyUser(headers);
        if (!user.isAdmin) throw new AppError("FORBIDDEN", "Only administrators can do this");
        return { user };
      }
    }
  } catch (error) {
    if (error instanceof AppError && AUTH_FAILURES.has(error.code)) {
      logAuthenticationFailed({ surface, path: req.path, client: clientAddressOf(req), reason: error.code, credential: kind });
    }
    throw error;
  }
}

/** The subject a limit applies to: the key, or the signed-in user. */
function subjectOf(verified: Verified): RateSubject | undefined {
  if (verified.caller) return { merchantId: verified.caller.merchantId, uid: verified.caller.uid, keyId: verified.caller.keyId };
  if (verified.user) return { uid: verified.user.uid };
  return undefined;
}

/**
 * Counts a call against `name` (or only reads the standing with `consume: false`), sets the
 * X-RateLimit-* headers, and throws RATE_LIMITED (with Retry-After set) when over the limit.
 */
export async function enforceRateLimit(
  res: Response,
  req: Request,
  name: RateLimitName,
  verified: Verified,
  surface: string,
  consume = true,
): Promise<RateDecision | undefined> {
  const subject = subjectOf(verified);
  if (!subject) return undefined;
  return applyLimit(res, req, name, subject, surface, consume);
}

/** Counts a request against a per-address limit (an IPv6 /64 counts as one), as enforceRateLimit does. */
export function enforceAddressLimit(res: Response, req: Request, name: RateLimitName, surface: string): Promise<RateDecision> {
  return applyLimit(res, req, name, { address: limitSubjectOf(clientOf(req)) }, surface, true);
}

/** Counts a request against a limit for a subject the handler names (an OAuth client or grant from the body). */
export function enforceSubjectLimit(res: Response, req: Request, name: RateLimitName, subject: RateSubject, surface: string): Promise<RateDecision> {
  return applyLimit(res, req, name, subject, surface, true);
}

/** The instance's limiter over the Firestore windows: one per process, like any per-instance cache. */
let limiter: RateLimiter | undefined;

async function applyLimit(res: Response, req: Request, name: RateLimitName, subject: RateSubject, surface: string, consume: boolean): Promise<RateDecision> {
  limiter ??= new RateLimiter(firestoreQuotaStore);
  const now = requestTime(req.headers, getConfig().honoursTestClock);
  const decision = consume ? await limiter.take(name, subject, now) : await limiter.peek(name, subject, now);
  // setHeader rather than express's res.set: the tool server answers POSTs without express.
  for (const [header, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(header, value);
  if (!decision.allowed) {
    logRateLimited({
      surface,
      path: req.path,
      client: clientAddressOf(req),
      limit: decision.scope === "workspace" ? `${name} (workspace)` : name,
      subject:
        decision.scope === "workspace"
          ? `merchant:${subject.merchantId}`
          : (subject.keyId ?? (subject.uid ? `uid:${subject.uid}` : subject.clientId ? `client:${subject.clientId}` : `address:${subject.address}`)),
      max: decision.limit,
      windowSeconds: Math.round((decision.resetAt.getTime() - now) / 1000),
    });
    throw rateLimitedError(decision);
  }
  return decision;
}

export type EndpointContext<M extends CredentialMode, P, Q, B> = {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
} & Credentials<M>;

type Schema = z.ZodType;
type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;
type Input<S> = S extends z.ZodType ? z.input<S> : never;
/** A handler of a route with a response schema returns that JSON, or nothing when it answered `res` itself. */
type HandlerResult<R> = R extends z.ZodType ? z.input<R> | void : unknown;

/** The non-JSON media types a route may answer with (a success only; errors are JSON). */
export type BinaryMediaType = "image/png" | "image/svg+xml" | "application/pdf";

/** What the public contract says about a route beyond what its checks already imply (see contract/openapi.ts). */
export interface OperationDoc<P = unknown, Q = unknown, B = unknown, R = unknown> {
  /** A paragraph or two (Markdown) for the reference. */
  description: string;
  /** The stable operation name generated clients call; made from the method and path when omitted. */
  operationId?: string;
  /** Error codes the handler itself may answer; those its credential, limit and schemas imply are added. */
  errors?: readonly ErrorCode[];
  /** Success statuses; 200 when omitted. */
  success?: readonly number[];
  /** Other statuses that answer with the success schema (a degraded health check). */
  alsoAnswers?: Readonly<Record<number, string>>;
  /** The success has no body (a revocation's 200). */
  empty?: boolean;
  /** The media type of a success that is not JSON. */
  binary?: BinaryMediaType;
  /** Request headers the route reads. */
  requestHeaders?: readonly { name: string; description: string; maxLength?: number; required?: boolean }[];
  /** Response headers a success may carry (besides the rate-limit ones). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** The route reports a quota in X-RateLimit-* headers though it declares no `limit` (the sandbox's own). */
  rateLimitHeaders?: boolean;
  /**
   * For a surface with its own error body (OAuth): the error names it can answer, by status. The shared
   * edge's input refusals arrive as 400 in that style, so they are listed here by the route, not implied.
   */
  styledErrors?: Readonly<Record<number, readonly string[]>>;
  /** One request a reader can send as is (the credential and code ids aside) and what it answers. */
  example?: { params?: P; query?: Q; body?: B; headers?: Record<string, string>; response?: R };
}

export interface EndpointSpec<
  M extends CredentialMode,
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema | undefined = undefined,
> {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** One line saying what the route does: the OpenAPI operation's summary. */
  summary: string;
  /** The JSON a success returns; omitted where the answer is not JSON (an image, a redirect). */
  response?: R;
  /** The console's own API: left out of the public contract. */
  internal?: boolean;
  /** The public contract's remaining facts; required of every route that is not internal (test/unit/openapi). */
  doc?: OperationDoc<Input<P>, Input<Q>, Input<B>, Input<R>>;
  credential: M;
  scope?: Scope;
  params?: P;
  query?: Q;
  /** The body, required to be `application/json` (or `+json`), or with `bodyFormat: "form"` a form. */
  body?: B;
  /**
   * "form": `application/x-www-form-urlencoded`, read into an object of strings (a repeated parameter is
   * refused, an empty one is absent) before `body` validates it. "raw": JSON whose exact bytes the handler
   * reads itself (`rawBodyOf`) before trusting it, a signed webhook's; `body` then only documents it.
   */
  bodyFormat?: "json" | "form" | "raw";
  /** Only the Authorization header is read: a cookie on this path is not a session (OAuth's consent API). */
  bearerOnly?: boolean;
  /** A per-address limit (an IPv6 /64 counts as one), counted before the credential is read. */
  addressLimit?: RateLimitName;
  limit?: RateLimitName;
  /** For a keyed route that counts nothing: the limit whose standing its X-RateLimit-* headers report. */
  standing?: RateLimitName;
  /** Refuse a foreign Host or Origin (403) whatever the credential: for browser-facing surfaces. */
  ownAddressOnly?: boolean;
  maxBodyBytes?: number;
  /** Response headers every answer carries, errors included. */
  headers?: Record<string, string>;
  /** Decorates the response before an error is sent (the error still goes through the surface's mapping). */
  onError?(req: Request, res: Response, error: unknown): Promise<void> | void;
  /** Returns the JSON to send (status 200 unless the handler set one), or answers `res` itself. */
  handle(ctx: EndpointContext<M, Infer<P>, Infer<Q>, Infer<B>>): Promise<HandlerResult<R>> | HandlerResult<R>;
}

/** A declaration as readers see it (the handler's exact types erased). */
export type RouteSpec = Omit<EndpointSpec<CredentialMode, Schema | undefined, Schema | undefined, Schema | undefined, Schema | undefined>, "handle" | "doc"> & {
  doc?: OperationDoc;
};

export interface Endpoint {
  /** The declaration itself, for readers such as the OpenAPI generator. */
  spec: RouteSpec;
  method: "GET" | "POST" | "DELETE";
  path: string;
  hasBody: boolean;
  maxBodyBytes: number;
  run(req: Request, res: Response, surface: string): Promise<void>;
  serve(req: Request, res: Response, surface: string): Promise<void>;
}

/** Declares one route; mount the result with `mountEndpoints`. */
export function endpoint<
  M extends CredentialMode,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends Schema | undefined = undefined,
>(spec: EndpointSpec<M, P, Q, B, R>): Endpoint {
  return {
    spec: spec as RouteSpec,
    method: spec.method,
    path: spec.path,
    hasBody: spec.body !== undefined,
    maxBodyBytes: spec.maxBodyBytes ?? REST_MAX_BODY_BYTES,
    async run(req, res, surface) {
      if (spec.headers) res.set(spec.headers);
      try {
        await this.serve(req, res, surface);
      } catch (error) {
        await spec.onError?.(req, res, error);
        throw error;
      }
    },
    async serve(req, res, surface) {
      if (spec.ownAddressOnly) {
        const refused = refuseForeignAddress(req.headers);
        if (refused) throw refused;
      }
      if (spec.addressLimit) await enforceAddressLimit(res, req, spec.addressLimit, surface);
      const verified: Verified = await verifyCredential(req, spec.credential, surface, { bearerOnly: spec.bearerOnly });
      if (spec.scope && verified.caller) requireScope(verified.caller, spec.scope, `${spec.method} ${spec.path}`);
      if (spec.limit) await enforceRateLimit(res, req, spec.limit, verified, surface);
      else if (spec.standing) await enforceRateLimit(res, req, spec.standing, verified, surface, false);
      const params = (spec.params ? parseOrThrow(spec.params, { ...req.params }, "path") : undefined) as Infer<P>;
      // A query schema is strict: an unknown parameter is an error, not silently ignored.
      const query = (spec.query ? parseOrThrow(spec.query, { ...(req.query as object) }, "query", "UNKNOWN_QUERY_PARAMETER") : undefined) as Infer<Q>;
      let body = undefined as Infer<B>;
      if (spec.body && spec.bodyFormat === "form") {
        if (!isFormContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/x-www-form-urlencoded");
        body = parseOrThrow(spec.body, parseFormBody(req, this.maxBodyBytes), "request body") as Infer<B>;
      } else if (spec.body && spec.bodyFormat === "raw") {
        if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
        const raw = rawBodyOf(req);
        if (raw && raw.length > this.maxBodyBytes) throw new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than ${this.maxBodyBytes} bytes`, { details: { maxBytes: this.maxBodyBytes } });
      } else if (spec.body) {
        if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
        body = parseOrThrow(spec.body, parseJsonBody(req, this.maxBodyBytes), "request body") as Infer<B>;
      }
      // verifyCredential returns exactly what Credentials<M> promises for the spec's mode.
      const result = await spec.handle({ req, res, ...verified, params, query, body } as EndpointContext<M, Infer<P>, Infer<Q>, Infer<B>>);
      if (!res.headersSent) res.json(result);
    },
  };
}

/**
 * Registers endpoints on an express app for one surface, then answers 405 (with Allow) for the other
 * methods of each path. Express 5 passes async rejections to the app's error handler.
 */
export function mountEndpoints(app: Express, surface: string, endpoints: readonly Endpoint[]): void {
  const methodsByPath = new Map<string, string[]>();
  for (const e of endpoints) {
    const handler = (req: Request, res: Response) => e.run(req, res, surface);
    const route = e.method === "GET" ? app.get.bind(app) : e.method === "POST" ? app.post.bind(app) : app.delete.bind(app);
    if (e.hasBody) route(e.path, captureRawBody(e.maxBodyBytes), handler);
    else route(e.path, handler);
    methodsByPath.set(e.path, [...(methodsByPath.get(e.path) ?? []), e.method === "GET" ? "GET, HEAD" : e.method]);
  }
  for (const [path, methods] of methodsByPath) app.all(path, () => methodNotAllowed(methods.join(", ")));
}
