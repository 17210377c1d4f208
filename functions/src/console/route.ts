// How a console route is declared: an endpoint (http/endpoint.ts) like any public route, with the console's
// own rules (the service's own addresses only, left out of the public contract, reads counted against
// `consoleReads`, every other answer reporting the write limit) and a response schema it must declare: a
// zod schema of its JSON, or the media type of a file it answers with. The route table (console/app.ts)
// keeps each route's types, and the browser's client (console/api.ts at the repository's root) derives
// its requests and answers from them with a type-only import, so the two cannot drift apart unnoticed.
//
// In the emulator every JSON answer is checked against its schema before it is sent, so a handler that
// answers what its route does not declare fails the integration and browser tests (a 500, logged).
import type { z } from "zod";
import { getConfig } from "../core/config";
import { endpoint, type BinaryMediaType, type CredentialMode, type Endpoint, type EndpointSpec } from "../http/endpoint";

type Schema = z.ZodType;
type Method = "GET" | "POST" | "DELETE";
type In<S> = S extends z.ZodType ? z.input<S> : undefined;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What the browser's client may send and gets back, per route: never set at run time. */
export interface RouteTypes<P, Q, B, R, File extends boolean> {
  params: In<P>;
  query: In<Q>;
  body: In<B>;
  response: Out<R>;
  /** The answer is a file (a PNG preview), not JSON. */
  file: File;
}

/** A console route: an endpoint whose method, path and schemas' types are kept for the client. */
export interface ConsoleRoute<M extends Method = Method, Path extends string = string, T = unknown> extends Endpoint {
  readonly method: M;
  readonly path: Path;
  /** Type-level only: the route's request and answer types (see ConsoleApi in console/app.ts). */
  readonly types?: T;
}

/** The console's defaults, fixed for every route: the route may add limits, not drop these. */
type Fixed = "internal" | "doc" | "ownAddressOnly" | "response" | "method" | "path";

type Spec<Cr extends CredentialMode, P, Q, B, R> = Omit<EndpointSpec<Cr, P & (Schema | undefined), Q & (Schema | undefined), B & (Schema | undefined), R & (Schema | undefined)>, Fixed>;

const defaults = (method: Method) => ({
  ownAddressOnly: true,
  internal: true,
  standing: "consoleWrites" as const,
  ...(method === "GET" ? { limit: "consoleReads" as const } : {}),
});

/** Declares a console route that answers JSON: `response` is required, and the handler must return its input type. */
export function consoleRoute<
  M extends Method,
  Path extends string,
  Cr extends CredentialMode,
  R extends Schema,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(spec: { method: M; path: Path; response: R } & Spec<Cr, P, Q, B, R>): ConsoleRoute<M, Path, RouteTypes<P, Q, B, R, false>> {
  return endpoint<Cr, P, Q, B, R>({ ...defaults(spec.method), ...withCheckedAnswer(spec) } as EndpointSpec<Cr, P, Q, B, R>) as ConsoleRoute<M, Path, RouteTypes<P, Q, B, R, false>>;
}

/**
 * Declares a console route that answers with a file of `file`'s media type (the handler sends it); the
 * declaration says so where the public contract does (`doc.binary`), which the generator never reads here.
 */
export function consoleFileRoute<
  M extends Method,
  Path extends string,
  Cr extends CredentialMode,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(spec: { method: M; path: Path; file: BinaryMediaType } & Spec<Cr, P, Q, B, undefined>): ConsoleRoute<M, Path, RouteTypes<P, Q, B, undefined, true>> {
  const { file, ...rest } = spec;
  const declared = { ...defaults(spec.method), ...rest, doc: { description: spec.summary, binary: file } };
  return endpoint<Cr, P, Q, B>(declared as EndpointSpec<Cr, P, Q, B>) as ConsoleRoute<M, Path, RouteTypes<P, Q, B, undefined, true>>;
}

/** The handler, answering only what `response` declares in the emulator (checked as the client reads it: after JSON). */
function withCheckedAnswer<S extends { method: Method; path: string; response: Schema; handle: (ctx: never) => unknown }>(spec: S): S {
  return {
    ...spec,
    async handle(ctx: never) {
      const result = await spec.handle(ctx);
      // Undefined: the handler answered `res` itself. Deployed, the answer goes out unchecked.
      if (result === undefined || !getConfig().isEmulator) return result;
      const checked = spec.response.safeParse(JSON.parse(JSON.stringify(result)));
      if (!checked.success) {
        const problems = checked.error.issues.map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`).join("; ");
        throw new Error(`${spec.method} ${spec.path} answered what its response schema does not declare: ${problems}`);
      }
      return result;
    },
  };
}

/** "GET /codes/:codeId" for "GET" and "/api/console/codes/:codeId": how the client names a route. */
export type RouteKey<R> = R extends ConsoleRoute<infer M, infer Path> ? (Path extends `/api/console${infer Rest}` ? `${M} ${Rest}` : never) : never;

/** Every route of a table by its key, with its types: what the browser's client is built from. */
export type ApiOf<Routes extends readonly unknown[]> = {
  [R in Routes[number] as RouteKey<R>]: R extends ConsoleRoute<Method, string, infer T> ? T : never;
};

/**
 * The routes of a table as a tuple, each typed as declared (an array literal would widen them to one
 * union). The constraint is deliberately loose: any constraint naming ConsoleRoute would be the
 * declarations' contextual type, and their paths would be inferred as `string`. Mounting the table
 * (mountEndpoints) checks that each is an endpoint; test/unit/console-contract.test.ts that each answers a schema.
 */
export const routeTable = <Routes extends readonly unknown[]>(...routes: Routes): Routes => routes;

/** A route's declaration, for readers (tests): its response schema, or its file's media type. */
export function answerOf(route: Endpoint): { schema: Schema } | { file: BinaryMediaType } | undefined {
  if (route.spec.response) return { schema: route.spec.response };
  if (route.spec.doc?.binary) return { file: route.spec.doc.binary };
  return undefined;
}
