// A merchant's host over HTTPS through the local front's load balancer path (docs/domains.md, "Serving"),
// as a phone whose DNS points the host at the front would reach it: every name resolves to 127.0.0.1 in the
// client itself (no DNS query leaves it), and only the local CA is trusted.
import type http from "node:http";
import https from "node:https";
import { readFileSync } from "node:fs";
import type { LookupFunction } from "node:net";

export const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through \`npm test\`, which starts the front`);
  return value;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Every name is 127.0.0.1: the client connects to the front as a browser whose DNS says so would. */
const toLoopback: LookupFunction = (_host, options, done) => {
  if ((options as { all?: boolean }).all) (done as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  else done(null, "127.0.0.1", 4);
};

/**
 * GET (or `method`) https://<host>:<front port><path>, trusting only the local CA, from `from` (a loopback
 * address: a client of its own). `servername` defaults to the host (SNI as a browser sends it); `headers`
 * may replace Host.
 */
export function overHttps(host: string, path: string, options: { servername?: string; headers?: Record<string, string>; from?: string; method?: string; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host,
        port: Number(required("TEST_DOMAINS_PORT")),
        path,
        method: options.method ?? "GET",
        servername: options.servername ?? host,
        ca: readFileSync(required("TEST_DOMAINS_CA")),
        lookup: toLoopback,
        localAddress: options.from,
        agent: false,
        headers: { "User-Agent": PHONE, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

