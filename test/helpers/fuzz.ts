// Seeded generators for fuzz tests: every case is reproducible from the seed and its index.
import http from "node:http";

/** Small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
export const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
export const int = (rand: Rand, max: number) => Math.floor(rand() * max);

/** Ids an attacker would try: path separators, dot segments, reserved names, encodings, unicode, sizes. */
const HOSTILE_IDS = [
  "a/b", "../x", "..", ".", "__x__", "__name__", "m/n", "%2F", "%2e%2e", "%", "%zz", "%E0%A4%A", "\u0000", "a\u200bb",
  "é", "☃", "𝒳", "\ud800", "key_", "sk-svc-", "x".repeat(1600), "", " ", "a b", "a\nb", "null", "0", "-1", "[]", "{}",
  "ABCDEFGHIJKL", "abcdefghijk/", "links", "apiKeys/x", "workspaces", "*", "?", "#", "\\", "\u202Eevil",
];

/** encodeURIComponent that accepts lone surrogates (they become U+FFFD, as a browser would send them). */
export function encodeComponent(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"));
}

export function hostileId(rand: Rand): string {
  const base = pick(rand, HOSTILE_IDS);
  return rand() < 0.2 ? base + pick(rand, HOSTILE_IDS) : base;
}

/** URLs: long unicode, other schemes, controls, zero-width, IDN, spaces, credentials, huge. */
export function hostileUrl(rand: Rand): string {
  switch (int(rand, 14)) {
    case 0: return `https://example.com/${"é".repeat(100 + int(rand, 3000))}`;
    case 1: return pick(rand, ["javascript:alert(1)", "data:text/html,<script>x</script>", "ftp://example.com/", "file:///etc/passwd", "mailto:a@b.c"]);
    case 2: return `https://exa\u200bmple.com/${int(rand, 100)}`;
    case 3: return `https://example.com/\u0007${int(rand, 100)}`;
    case 4: return `https://bücher.example/${pick(rand, ["ä", "☃", "𝒳", "%", "%zz"])}`;
    case 5: return `https://example.com/${"a".repeat(2000 + int(rand, 200))}`;
    case 6: return `https://user:pass@example.com:${int(rand, 70000)}/`;
    case 7: return `  https://example.com/ ${"x".repeat(int(rand, 5))}  `;
    case 8: return `https://[::1]/${hostileId(rand)}`;
    case 9: return `https://example.com/?q=${encodeComponent(hostileId(rand))}#${hostileId(rand)}`;
    case 10: return "https://";
    case 11: return `HTTP://EXAMPLE.COM/${int(rand, 1000)}`;
    case 12: return `https://example.com/\u202E${int(rand, 9)}`;
    default: return `https://example.com/p/${int(rand, 1_000_000)}`;
  }
}

/** Any JSON value, nested a little, with hostile strings among the ordinary ones. */
export function randomValue(rand: Rand, depth = 0): unknown {
  switch (int(rand, depth > 2 ? 7 : 10)) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return int(rand, 2e9) - 1e9;
    case 3: return pick(rand, [1e308, -0, 0.1, Number.MAX_SAFE_INTEGER + 2, 1.5]);
    case 4: return "x".repeat(int(rand, 40));
    case 5: return hostileId(rand);
    case 6: return hostileUrl(rand);
    case 7: return Array.from({ length: int(rand, 4) }, () => randomValue(rand, depth + 1));
    case 8: return Array.from({ length: pick(rand, [0, 1, 51, 300, 5000]) }, () => "https://example.com/");
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < int(rand, 4); i++) obj[pick(rand, ["k", "url", "urls", "id", "__proto__", "constructor", "title"])] = randomValue(rand, depth + 1);
      return obj;
    }
  }
}

export interface RawRequest {
  method: string;
  /** Sent as is: raw percent sequences and dot segments reach the server unnormalised. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Loopback address to connect from: a distinct client to the front (test/helpers/clients.ts). */
  localAddress?: string;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** One request with an unnormalised path (fetch would resolve dot segments and re-encode). */
export function rawRequest(base: string, request: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers, localAddress: request.localAddress, agent: request.localAddress ? undefined : agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}

/** Cases finished before one more worker joins a run (see runCases). */
const RAMP_CASES = 12;

/**
 * Runs `cases` with up to `concurrency` workers; collects what `check` reports. Workers join one at a time,
 * each after RAMP_CASES more cases have finished: the functions emulator starts a worker process for each
 * request it cannot hand to an idle one, and many cold starts at once on a busy machine can outlast
 * Hosting's 60 s proxy timeout, a 504 that production's autoscaling would not give.
 */
export async function runCases<T>(cases: readonly T[], concurrency: number, check: (c: T, index: number) => Promise<string | undefined>): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  let finished = 0;
  const waiting: Array<{ after: number; start: () => void }> = [];
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      try {
        const problem = await check(cases[index], index);
        if (problem) failures.push(`#${index}: ${problem}`);
      } catch (error) {
        failures.push(`#${index}: threw ${(error as Error).message}`);
      }
      finished++;
      while (waiting.length && waiting[0].after <= finished) waiting.shift()!.start();
    }
    for (const w of waiting.splice(0)) w.start(); // nothing left to ramp for
  };
  const workers = Array.from({ length: concurrency }, (_, i) =>
    i === 0 ? worker() : new Promise<void>((start) => waiting.push({ after: i * RAMP_CASES, start })).then(worker),
  );
  await Promise.all(workers);
  return failures;
}
