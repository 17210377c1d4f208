// The Firestore client's HTTP leg, our own. Over REST the client (google-gax's fallback stub) hands every
// request to its auth client's `fetch`, which by default goes through gaxios and node-fetch: request and
// header objects rebuilt at each layer, and a `stream.pipeline` per response whose finish aborts an
// AbortController, building a DOMException with a stack. On the tool server's hot path (a key read and an
// audit commit per few calls) that was a tenth of the process's CPU (docs/performance.md, issue 62).
//
// This auth client does what gax asks of one: it signs each request with the headers of the real auth client
// (Google's application default credentials deployed, the emulator's admin token locally) and sends it with
// node:http(s) on keep-alive agents of its own. gax still encodes, decodes, retries and applies deadlines;
// this answers as its fetch does: every HTTP status resolves (gax decodes the error body into a gRPC code),
// a transport failure rejects with a plain Error (UNAVAILABLE, which gax's retries know), an abort with an
// AbortError (CANCELLED or DEADLINE_EXCEEDED, by gax's own record of which it asked for).
import type { ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Where the credentials come from: google-auth-library's AuthClient and GoogleAuth both answer this. */
export interface RequestSigner {
  getRequestHeaders(url?: string): Promise<Headers>;
  getProjectId?(): Promise<string>;
}

/** What gax passes to `fetch` (fallbackServiceStub.js); other fields (agent, responseType, validateStatus) are gaxios's and unused. */
export interface FetchInit {
  method?: string;
  headers?: Headers;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** The part of a fetch Response gax reads: the status, the body as a Node stream (server-streaming calls) or whole. */
export class TransportResponse {
  constructor(
    readonly status: number,
    readonly body: IncomingMessage,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.body.on("data", (chunk: Buffer) => chunks.push(chunk));
      this.body.once("end", () => {
        const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        resolve(whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer);
      });
      this.body.once("error", reject);
    });
  }
}

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

/** A request target parsed once: the client calls a handful of URLs (one per method and database). */
type Target = Pick<RequestOptions, "protocol" | "hostname" | "port" | "path">;
const targets = new Map<string, Target>();
function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { protocol: parsed.protocol, hostname: parsed.hostname.replace(/^\[|\]$/g, ""), port: parsed.port || undefined, path: parsed.pathname + parsed.search };
    if (targets.size >= 256) targets.clear();
    targets.set(url, target);
  }
  return target;
}

function abortError(): Error {
  const error = new Error("The Firestore request was aborted");
  error.name = "AbortError";
  return error;
}

/** `promise`, or an AbortError as soon as `signal` aborts (a pending promise cannot be stopped, only left). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error as Error)),
    );
  });
}

/** Counts the requests sent, for the benches (a plain number, no diagnostics channel on the hot path). */
let sent = 0;
export function firestoreRequestsSent(): number {
  return sent;
}

/**
 * An auth client for the Firestore client's `authClient` setting whose `fetch` is node:http(s), signed by
 * `signer`. `projectId`: answered when the client asks (it does only when none was configured).
 */
export interface FirestoreAuthClient extends RequestSigner {
  fetch(url: string, init?: FetchInit): Promise<TransportResponse>;
}

export function firestoreAuthClient(signer: RequestSigner): FirestoreAuthClient {
  return {
    getRequestHeaders: (url?: string) => signer.getRequestHeaders(url),
    getProjectId: () => signer.getProjectId?.() ?? Promise.reject(new Error("No project id: configure one")),
    fetch: async (url: string, init: FetchInit = {}): Promise<TransportResponse> => {
      const signal = init.signal;
      if (signal?.aborted) throw abortError();
      const headers: Record<string, string> = {};
      init.headers?.forEach((value, key) => (headers[key] = value));
      // A token refresh may wait on the network: the signal bounds that wait too.
      (await untilAborted(signer.getRequestHeaders(url), signal)).forEach((value, key) => (headers[key] = value));
      const body = init.body;
      if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
      const target = targetOf(url);
      const secure = target.protocol === "https:";
      const options: RequestOptions = { ...target, method: init.method ?? "GET", headers, agent: secure ? httpsAgent : httpAgent };
      sent++;
      return new Promise<TransportResponse>((resolve, reject) => {
        const req: ClientRequest = secure ? httpsRequest(options) : httpRequest(options);
        let response: IncomingMessage | undefined;
        const onAbort = () => {
          const error = abortError();
          // Before the response: the promise rejects. After: its reader (gax's parser or arrayBuffer) sees the error.
          if (response) response.destroy(error);
          req.destroy(error);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const done = () => signal?.removeEventListener("abort", onAbort);
        req.once("response", (res: IncomingMessage) => {
          response = res;
          res.once("close", done);
          resolve(new TransportResponse(res.statusCode ?? 0, res));
        });
        req.once("error", (error) => {
          done();
          reject(error);
        });
        req.end(body);
      });
    },
  };
}
