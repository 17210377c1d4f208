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
