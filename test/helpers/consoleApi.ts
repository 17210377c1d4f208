// The one client the tests use for the console API (/api/console/...) through the Hosting front end, as
// the browser console calls it: Bearer ID token (or none), JSON bodies, the answer read whatever it is.
import { appUrl } from "./env";
import { readAnswer, type HttpResult } from "./rpc";

export interface ConsoleRequest {
  /** Defaults to GET without a body, POST with one. */
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One console API call; `token` is a Firebase ID token (undefined: no credential). */
export async function consoleApi(path: string, token: string | undefined, init: ConsoleRequest = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["Content-Type"] ??= "application/json";
  const res = await fetch(`${appUrl()}/api/console${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });
  return readAnswer(res);
}

/** A console client bound to one signed-in user. */
export function consoleAs(token: string) {
  return {
    get: (path: string) => consoleApi(path, token),
    post: (path: string, body: unknown = {}, headers?: Record<string, string>) => consoleApi(path, token, { body, headers }),
  };
}
