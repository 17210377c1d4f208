// An HTTP proxy between the Firestore SDK (its REST transport, which the service uses) and the emulator,
// on loopback, for tests of what the SDK itself does on a lost answer: it forwards every request, and for a
// request a test's rule picks it either drops the emulator's answer after the write applied (the answer is
// lost on the way back) or refuses it unsent, in both cases answering 503 UNAVAILABLE as Google's front
// end does. It records every `:commit` body, so a test sees the SDK's own re-sends (identical bodies).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedRequest {
  /** The REST method after the colon (`commit`, `batchGet`, `runQuery`, ...), or "" for a plain document path. */
  method: string;
  body: string;
}

/**
 * What to do with one request: pass it, forward it and drop the answer, refuse it without forwarding (503
 * UNAVAILABLE, which the SDK re-sends), time it out without forwarding (504 DEADLINE_EXCEEDED, which the
 * SDK does not re-send a commit on: the caller's own retries decide), or never answer it (a Firestore that
 * hangs; the connection is closed with the proxy).
 */
export type ProxyAction = "pass" | "drop-answer" | "refuse" | "time-out" | "hang";

export interface FirestoreProxy {
  /** host:port, for FIRESTORE_EMULATOR_HOST of the code under test. */
  host: string;
  /** Every `:commit` body received, in order (re-sends included). */
  commits: string[];
  /** How many commits the emulator answered with each status (200, 409 for ALREADY_EXISTS, ...), before any drop. */
  commitStatuses: Map<number, number>;
  /** Decides each request's fate; the default passes everything. */
  rule: (request: ProxiedRequest) => ProxyAction;
  close(): Promise<void>;
}

const UNAVAILABLE = JSON.stringify({ error: { code: 503, message: "The service is currently unavailable (injected by the test proxy).", status: "UNAVAILABLE" } });
const DEADLINE_EXCEEDED = JSON.stringify({ error: { code: 504, message: "The datastore operation timed out (injected by the test proxy).", status: "DEADLINE_EXCEEDED" } });

export async function startFirestoreProxy(target = process.env.FIRESTORE_EMULATOR_HOST): Promise<FirestoreProxy> {
  if (!target) throw new Error("FIRESTORE_EMULATOR_HOST is not set");
  const [targetHost, targetPort] = target.split(":");
  const agent = new http.Agent({ keepAlive: true });
  const proxy: FirestoreProxy = {
    host: "",
    commits: [],
    commitStatuses: new Map(),
    rule: () => "pass",
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()), agent.destroy())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = /:([A-Za-z]+)(?:\?|$)/.exec(req.url ?? "")?.[1] ?? "";
      if (method === "commit") proxy.commits.push(body.toString("utf8"));
      const action = proxy.rule({ method, body: body.toString("utf8") });
      const unavailable = () => res.writeHead(503, { "Content-Type": "application/json" }).end(UNAVAILABLE);
      if (action === "refuse") return unavailable();
      if (action === "time-out") return void res.writeHead(504, { "Content-Type": "application/json" }).end(DEADLINE_EXCEEDED);
      if (action === "hang") return;
      const upstream = http.request({ host: targetHost, port: Number(targetPort), method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
        if (method === "commit") proxy.commitStatuses.set(answer.statusCode ?? 0, (proxy.commitStatuses.get(answer.statusCode ?? 0) ?? 0) + 1);
        if (action === "drop-answer") {
          // The write has been applied by now (the emulator answered); the answer is lost on the way back.
          answer.resume();
          answer.on("end", unavailable);
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", (error) => (res.headersSent ? res.destroy(error) : res.writeHead(502).end(String(error))));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A rule that drops the answer of the first `count` commits it sees that `pick` accepts (each once: its SDK re-send passes). */
export function dropFirstCommits(count: number, pick: (body: string) => boolean = () => true): (request: ProxiedRequest) => ProxyAction {
  const dropped = new Set<string>();
  return ({ method, body }) => {
    if (method !== "commit" || dropped.size >= count || dropped.has(body) || !pick(body)) return "pass";
    dropped.add(body);
    return "drop-answer";
  };
}

/** How many commit bodies were sent more than once (the SDK re-sending a batch whose answer was lost). */
export function resentCommits(proxy: FirestoreProxy): number {
  const seen = new Map<string, number>();
  for (const c of proxy.commits) seen.set(c, (seen.get(c) ?? 0) + 1);
  return [...seen.values()].filter((n) => n > 1).length;
}
