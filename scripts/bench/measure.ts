import http from "node:http";
// Load helpers for benchmarks: a fixed number of requests at a fixed concurrency, latency percentiles.
export interface LoadResult {
  requests: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runLoad(requests: number, concurrency: number, once: () => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let started = 0;
  const begin = performance.now();
  const worker = async () => {
    while (started < requests) {
      started++;
      const t = performance.now();
      const ok = await once().catch(() => false);
      latencies.push(performance.now() - t);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - begin) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests, seconds, throughput: requests / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

/** Calls `once` at `rate` a second for `seconds` (open loop: a slow answer does not slow the next call); resolves when every call has. */
export async function paced(rate: number, seconds: number, once: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const inFlight = new Set<Promise<unknown>>();
  for (let k = 0; performance.now() < end; k++) {
    const wait = start + (k * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const p = once()
      .catch(() => undefined)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
}

/** Sorted times of `fn` over `iterations` sequential runs, in ms. */
export async function timesMs(iterations: number, fn: () => unknown | Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

/** Median time of `fn` over `iterations` runs, in ms. */
export async function medianMs(iterations: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  return percentile(await timesMs(iterations, fn), 50);
}

export const fmt = (n: number, digits = 2) => n.toFixed(digits);

export function printLoad(label: string, r: LoadResult): void {
  console.log(
    `  ${label.padEnd(44)} ${fmt(r.throughput, 0).padStart(7)} req/s   p50 ${fmt(r.p50).padStart(7)} ms   p99 ${fmt(r.p99).padStart(7)} ms   errors ${r.errors}`,
  );
}



const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** A lean loopback HTTP client (node:http with keep-alive): less client CPU than fetch in the same process. */
export function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return request("POST", url, body, headers);
}

export function request(method: string, url: string, body: string | undefined, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body === undefined ? headers : { ...headers, "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// List prices (USD), docs/performance.md: Firestore per operation, Pub/Sub and BigQuery per byte, Cloud
// Run (functions v2) per request and vCPU-second, Firestore storage per GiB-month.
export const PRICE = { read: 0.06 / 1e5, write: 0.18 / 1e5, delete: 0.02 / 1e5, invocation: 0.4 / 1e6, vcpuSecond: 0.000024, gibSecond: 0.0000025, firestoreGiBMonth: 0.18, pubsubTiB: 40, bigQueryWriteTiB: 50, bigQueryGiBMonth: 0.02 };

/** What one scan costs, as measured: Firestore operations (the fold's share included) and instance CPU. */
export interface ScanSpend {
  reads: number;
  writes: number;
  deletes: number;
  cpuMs: number;
  /**
   * Instance time billed per scan, when known (ms of a busy 1-vCPU, 512 MiB redirect instance: Cloud Run
   * bills an instance's vCPU and memory while it has a request, used or not); else the CPU used is priced.
   */
  instanceMs?: number;
  /** A person's event document per scan (0 to 1): what Firestore stores for the event retention. */
  eventsPerScan: number;
}

/** An event document with its index entries (codeId, lane, at; expiresAt). */
const EVENT_BYTES = 520;
/** A scan's stream message as published (store/scanEvents.ts). */
const MESSAGE_BYTES = 480;

/** The all-in list price of a million scans, by part: operations, event storage, invocations, CPU, the stream. */
export function costPerMillion(spend: ScanSpend, retention: { eventDays: number; rollupDays: number }) {
  const million = 1e6;
  const cost = {
    firestoreOps: million * (spend.reads * PRICE.read + spend.writes * PRICE.write + spend.deletes * PRICE.delete),
    firestoreStorage: ((million * spend.eventsPerScan * EVENT_BYTES) / 2 ** 30) * PRICE.firestoreGiBMonth * (retention.eventDays / 30.4),
    invocations: million * PRICE.invocation,
    cpu: spend.instanceMs === undefined ? ((million * spend.cpuMs) / 1000) * PRICE.vcpuSecond : ((million * spend.instanceMs) / 1000) * (PRICE.vcpuSecond + 0.5 * PRICE.gibSecond),
    pubsub: ((million * MESSAGE_BYTES) / 2 ** 40) * PRICE.pubsubTiB,
    bigQuery: ((million * MESSAGE_BYTES) / 2 ** 40) * PRICE.bigQueryWriteTiB + ((million * MESSAGE_BYTES) / 2 ** 30) * PRICE.bigQueryGiBMonth * (retention.rollupDays / 30.4),
  };
  return { ...cost, all: Object.values(cost).reduce((a, b) => a + b, 0) };
}

/** One line of costPerMillion's parts. */
export function costLine(cost: ReturnType<typeof costPerMillion>, eventDays: number): string {
  return (
    `$${fmt(cost.all)} all-in (goal <= $3): Firestore operations $${fmt(cost.firestoreOps)}, event storage over ${eventDays} days $${fmt(cost.firestoreStorage)}, ` +
    `invocations $${fmt(cost.invocations)}, instance time $${fmt(cost.cpu)}, Pub/Sub $${fmt(cost.pubsub, 3)}, BigQuery $${fmt(cost.bigQuery, 3)}`
  );
}
