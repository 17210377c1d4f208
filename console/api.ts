// The console's client of its own API (/api/console/...), typed from the server's route table: a route is
// named as the server declares it ("GET /codes/:codeId"), its path parameters, query and body are what the
// route's zod schemas accept, and its answer is what its response schema declares. The import is type-only:
// nothing of the server is bundled.
import type { ConsoleApi } from "../functions/src/console/app";
import { readAnswer } from "./errors";

export type { ConsoleApi };
export type RouteName = keyof ConsoleApi;

/** Routes that answer JSON, and those that answer a file (a PNG preview). */
export type JsonRoute = { [K in RouteName]: ConsoleApi[K]["file"] extends true ? never : K }[RouteName];
export type FileRoute = Exclude<RouteName, JsonRoute>;

/** What a route answers (JSON routes). */
export type Answer<K extends RouteName> = ConsoleApi[K]["response"];

type Part<Key extends string, T> = [T] extends [undefined] ? { [P in Key]?: never } : object extends T ? { [P in Key]?: T } : { [P in Key]: T };

/** What a route is sent: `params` fills the path's `:names`, `query` its query string, `body` the JSON body. */
export type Request<K extends RouteName> = Part<"params", ConsoleApi[K]["params"]> & Part<"query", ConsoleApi[K]["query"]> & Part<"body", ConsoleApi[K]["body"]>;

/** The request argument: optional where the route needs nothing. */
export type RequestArgs<K extends RouteName> = object extends Request<K> ? [request?: Request<K>] : [request: Request<K>];

/** A function that calls a JSON route and resolves with its answer (or throws a ShownError). */
export type Api = <K extends JsonRoute>(route: K, ...request: RequestArgs<K>) => Promise<Answer<K>>;

interface Loose {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
}

/** The method and URL of `route` with `request`'s parameters filled in. */
export function urlOf(route: RouteName, request: Loose = {}): { method: string; url: string } {
  const [method, path] = route.split(" ");
  const filled = path.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => encodeURIComponent(request.params?.[name] ?? ""));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined && value !== null) query.set(name, String(value));
  const search = query.size ? `?${query}` : "";
  return { method, url: `/api/console${filled}${search}` };
}

/** Sends `request` to `route` with the caller's credential (and `headers`); the raw Response, for what reads more than the body. */
export async function send<K extends RouteName>(authHeader: () => Promise<Record<string, string>>, route: K, request: Request<K>, headers: Record<string, string> = {}): Promise<Response> {
  const loose = request as Loose;
  const { method, url } = urlOf(route, loose);
  const body = loose.body === undefined ? undefined : JSON.stringify(loose.body);
  return fetch(url, { method, headers: { ...(await authHeader()), ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers }, body });
}

/** The console's API client for a signed-in person. */
export function consoleClient(authHeader: () => Promise<Record<string, string>>): Api {
  return async <K extends JsonRoute>(route: K, ...[request]: RequestArgs<K>) => readAnswer<Answer<K>>(await send(authHeader, route, request ?? ({} as Request<K>)));
}
