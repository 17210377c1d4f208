// A merchant's own host, as a phone reaches it: over HTTPS through the local front's load balancer port,
// the name resolved to 127.0.0.1 by the client itself (no DNS query leaves it), the certificate checked
// against the local CA only (docs/domains.md, "Serving", "Locally"). And an active domain to serve, made
// through REST with the DNS answers of a loopback server (test/helpers/dns.ts).
import assert from "node:assert/strict";
import { randomInt, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { appUrl } from "./env";
import type { TestDns } from "./dns";
import type { TestMerchant } from "./merchants";

export const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through \`npm test\`, which starts the front`);
  return value;
}

/** The front's port for merchants' hosts, and the local CA's certificate file (PEM). */
export const brandHostPort = () => Number(required("TEST_DOMAINS_PORT"));
export const localCaFile = () => required("TEST_DOMAINS_CA");

/** Every name is 127.0.0.1: the client connects to the front as a phone whose DNS says so would. */
const toLoopback: LookupFunction = (_host, options, done) => {
  if ((options as { all?: boolean }).all) (done as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  else done(null, "127.0.0.1", 4);
};

export interface BrandHostClient {
  /** The loopback address this client connects from (its own client, as newClient's). */
  address: string;
  /** fetch of `https://<host><path>` (a path, not a URL), through the front's merchants' port. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
}

/** A client of `host` with an address of its own. */
export function brandHostClient(host: string): BrandHostClient {
  const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const dispatcher = new Agent({ connect: { ca: readFileSync(localCaFile()), lookup: toLoopback, localAddress: address, servername: host } });
  return {
    address,
    fetch: (path, init) => undiciFetch(`https://${host}:${brandHostPort()}${path}`, { ...(init as object), dispatcher }) as unknown as Promise<Response>,
  };
}

/** A REST call of the merchant's (its API key), answered as status and parsed body. */
export async function merchantRest(m: TestMerchant, path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${m.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Adds `hostname` (a fresh one by default) to the workspace, publishes its records on `dns` and verifies it: active. */
export async function activeDomain(m: TestMerchant, dns: TestDns, hostname = `id.m${randomUUID().slice(0, 8)}.example.com`): Promise<{ domainId: string; hostname: string }> {
  const withDns = { "X-Test-Dns": dns.address };
  const added = await merchantRest(m, "/api/domains", "POST", { hostname }, withDns);
  assert.equal(added.status, 201, JSON.stringify(added.body));
  for (const record of added.body.records as Array<{ type: string; name: string; value: string }>) {
    if (record.type === "TXT") dns.set(record.name, { TXT: [record.value] });
    if (record.type === "CNAME") dns.set(record.name, { CNAME: record.value });
  }
  const checked = await merchantRest(m, `/api/domains/${added.body.domainId}/verify`, "POST", {}, withDns);
  assert.equal(checked.body.state, "active", JSON.stringify(checked.body));
  return { domainId: added.body.domainId, hostname: added.body.hostname };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * GET (or `method`) https://<host>:<front port><path>, trusting only the local CA, from `from` (a loopback
 * address: a client of its own). `servername` defaults to the host (SNI as a browser sends it); `headers`
 * may replace Host.
 */
export function overHttps(host: string, path: string, options: { servername?: string; headers?: Record<string, string>; from?: string; method?: string; body?: string; timeoutMs?: number } = {}): Promise<Answer> {
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
    // An answer that never comes fails the request, naming it, instead of holding the test to its timeout.
    if (options.timeoutMs !== undefined) req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.end(options.body);
  });
}

