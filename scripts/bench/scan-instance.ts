// One instance for the scan-path bench (scripts/bench/scanPath.ts), in a process of its own: a compiled
// redirect function or scan consumer (a `functions/lib` directory: this checkout's, or main's built
// elsewhere, so that today's design runs beside the branch's), served on a loopback port. Prints
// `{"port": N}` once listening. Beside the function it answers GET /__stats with what the bench prices:
// the store layer's operation counters, this process's CPU, the time it had a request in flight (what Cloud
// Run bills) and the most at once, and for a consumer how long each counted arrival waited since its scan (the consumer's lag).
// POST /__stats starts a new window. Arguments: `redirect` or `consumer`, and the functions/lib directory.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parseJson } from "./billingProxy";

const [role, lib] = process.argv.slice(2);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a computed path: this checkout's functions/lib or main's, as the bench names it
const load = (module: string) => require(path.resolve(lib, module)) as Record<string, unknown>;
const { opCounts } = load("store/opCounter") as { opCounts: () => Record<string, number> };
type Handler = (req: http.IncomingMessage & { body?: unknown }, res: http.ServerResponse) => unknown;
const handler = (role === "consumer" ? load("redirect/scanConsumer").scanConsumerApp : load("redirect/app").redirectApp) as Handler;
// The branch's redirect counts how its arrivals were recorded (published, outbox, unknown); main's has no such count.
const arrivals = (): unknown => {
  try {
    return load("scans/arrival").arrivalCounts;
  } catch {
    return undefined;
  }
};

let window = { started: performance.now(), busyMs: 0, requests: 0, maxInFlight: 0, answered: new Map<number, number>(), lags: [] as number[] };
let inFlight = 0;
let busySince = 0;

function stats() {
  const busyMs = window.busyMs + (inFlight ? performance.now() - busySince : 0);
  const lags = [...window.lags].sort((a, b) => a - b);
  return { ops: opCounts(), cpu: process.cpuUsage(), busyMs, windowMs: performance.now() - window.started, requests: window.requests, maxInFlight: window.maxInFlight, answered: Object.fromEntries(window.answered), lags, arrivals: arrivals() };
}

/** The time the scan was made, from a push's message (its event's `at`, microseconds), if readable. */
function scannedAt(body: unknown): number | undefined {
  try {
    const data = (body as { message: { data: string } }).message.data;
    const at = (JSON.parse(Buffer.from(data, "base64").toString("utf8")) as { at: number }).at;
    return typeof at === "number" ? at / 1000 : undefined;
  } catch {
    return undefined;
  }
}

function serve(req: http.IncomingMessage & { body?: unknown }, res: http.ServerResponse): void {
  if (inFlight++ === 0) busySince = performance.now();
  window.maxInFlight = Math.max(window.maxInFlight, inFlight);
  window.requests++;
  const current = window;
  res.once("finish", () => {
    if (--inFlight === 0) window.busyMs += performance.now() - busySince;
    current.answered.set(res.statusCode, (current.answered.get(res.statusCode) ?? 0) + 1);
    const at = role === "consumer" && res.statusCode === 204 ? scannedAt(req.body) : undefined;
    if (at !== undefined) current.lags.push(Date.now() - at);
  });
  void handler(req, res);
}

const server = http.createServer((req, res) => {
  if (req.url === "/__stats") {
    if (req.method === "POST") window = { started: performance.now(), busyMs: 0, requests: 0, maxInFlight: inFlight, answered: new Map(), lags: [] };
    if (req.method === "POST" && inFlight) busySince = performance.now();
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(stats()));
    return;
  }
  if (role !== "consumer") return serve(req, res);
  // A push's JSON body, parsed as the Functions runtime parses it.
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => serve(Object.assign(req, { body: parseJson(Buffer.concat(chunks)) }), res));
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + "\n"));
