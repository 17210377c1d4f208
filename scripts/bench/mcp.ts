// tools/call svc.ping: our JSON-RPC dispatcher, in both protocol eras (2025-03-26 and 2026-07-28), vs the
// official SDK's stateless server (a new McpServer and StreamableHTTPServerTransport per request, 2025 era),
// same key check, rate limiter and audit write against the Firestore emulator. The servers run in a
// process of their own (mcp-server.ts), so their CPU is read apart from this load client's.
// BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process there. BENCH_MCP_FLOOR=1 adds a
// fourth contender, a bare server making only a call's Firestore requests (mcp-server.ts floorApp). The
// servers run compiled, on plain Node (compiledServer); BENCH_MCP_TSX=1 runs them under tsx instead.
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { getConfig } from "../../functions/src/core/config";
import { runLoad, printLoad, fmt, post, type LoadResult } from "./measure";

interface ServerProcess {
  child: ChildProcess;
  ours: string;
  sdk: string;
  /** A bare server making only the Firestore calls of a tools/call (mcp-server.ts floorApp). */
  floor: string;
  /**
   * CPU time the server process has used so far, in microseconds (and of it in the kernel), and the HTTP
   * requests it has sent (Firestore's REST calls). `settle` first collects the garbage left so far, so
   * that its cost is charged to the contender that made it, not to the one after it.
   */
  cpu(settle?: boolean): Promise<{ micros: number; system: number; outgoing: number }>;
}

const FUNCTIONS_SRC = path.resolve(__dirname, "..", "..", "functions", "src");
const FUNCTIONS_LIB = path.resolve(__dirname, "..", "..", "functions", "lib");

/** The newest modification time of the files under `dir` whose names end with `ext`. */
function newestFile(dir: string, ext: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestFile(file, ext));
    return entry.name.endsWith(ext) ? Math.max(newest, statSync(file).mtimeMs) : newest;
  }, 0);
}

/**
 * The server process as deployed code runs: JavaScript on plain Node. The service's modules are tsc's
 * output in functions/lib (what `firebase deploy` ships; `npm run bench` builds it first), and mcp-server.ts
 * itself is compiled to one file whose imports of functions/src point there. Under tsx instead, every
 * `require` the Firestore client makes per call goes through tsx's resolver, each closure gets a naming
 * wrapper and each captured stack a source map lookup: costs of the bench's loader, not of the servers.
 */
async function compiledServer(): Promise<string> {
  // The newest output against the newest source: the build is incremental, so a file whose source did not
  // change keeps its old output.
  if (!existsSync(path.join(FUNCTIONS_LIB, "mcp", "app.js")) || newestFile(FUNCTIONS_LIB, ".js") < newestFile(FUNCTIONS_SRC, ".ts")) {
    throw new Error("functions/lib is older than functions/src: run `npm run build` (npm run bench does), or BENCH_MCP_TSX=1");
  }
  const outfile = path.resolve(__dirname, "..", "..", "test-artifacts", "bench", "mcp-server.js");
  const toLib: Plugin = {
    name: "functions-lib",
    setup(b) {
      b.onResolve({ filter: /functions\/src\// }, (args) => ({ path: `${path.resolve(args.resolveDir, args.path).replace(FUNCTIONS_SRC, FUNCTIONS_LIB)}.js`, external: true }));
    },
  };
  await build({ entryPoints: [path.join(__dirname, "mcp-server.ts")], outfile, bundle: true, platform: "node", format: "cjs", target: "node22", packages: "external", plugins: [toLib], logLevel: "error" });
  return outfile;
}

async function startServers(): Promise<ServerProcess> {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  // BENCH_MCP_TSX=1: the servers' TypeScript through tsx, as this bench ran before (docs/performance.md has both).
  const underTsx = process.env.BENCH_MCP_TSX === "1";
  const entry = underTsx ? path.join(__dirname, "mcp-server.ts") : await compiledServer();
  const child = fork(entry, [], { execArgv: [...(underTsx ? process.execArgv : []), "--expose-gc", ...profile], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cpu = (settle = false) =>
    new Promise<{ micros: number; system: number; outgoing: number }>((resolve) => {
      const onMessage = (m: { cpu?: NodeJS.CpuUsage; outgoing?: number }) => {
        if (!m.cpu) return;
        child.off("message", onMessage);
        resolve({ micros: m.cpu.user + m.cpu.system, system: m.cpu.system, outgoing: m.outgoing ?? 0 });
      };
      child.on("message", onMessage);
      child.send({ cpu: true, settle });
    });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
    child.on("message", (m: { ready?: { ours: string; sdk: string; floor: string } }) => {
      if (m.ready) resolve({ child, ...m.ready, cpu });
    });
  });
}

export async function benchMcp(apiKey: string, requests = Number(process.env.BENCH_MCP_REQUESTS ?? 2000), concurrency = 32) {
  console.log(
    `\n[mcp] tools/call svc.ping, ${requests} requests, concurrency ${concurrency}, key check + audit on the Firestore emulator; servers ${process.env.BENCH_MCP_TSX === "1" ? "under tsx" : "compiled (functions/lib), plain Node"}`,
  );
  const servers = await startServers();
  const params = { name: "svc.ping", arguments: {} };
  const legacyBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const modernBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: meta } });
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${apiKey}`,
    // As behind Firebase Hosting, which names the public host it was called at (the DNS-rebinding guard checks it).
    "X-Forwarded-Host": new URL(getConfig().appUrl).host,
  };
  const modernHeaders = { ...headers, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "svc.ping" };
  const call = (url: string, body: string, h: Record<string, string>) => async () => {
    const res = await post(url, body, h);
    const json = JSON.parse(res.text) as { result?: { structuredContent?: { ok?: boolean } } };
    return res.status === 200 && json.result?.structuredContent?.ok === true;
  };
  const sdkCall = call(servers.sdk, legacyBody, headers);
  const legacyCall = call(servers.ours, legacyBody, headers);
  const modernCall = call(servers.ours, modernBody, modernHeaders);
  const floorCall = call(servers.floor, legacyBody, headers);
  // BENCH_MCP_FLOOR=1 adds the floor as a fourth contender: the Firestore calls alone, no protocol.
  const withFloor = process.env.BENCH_MCP_FLOOR === "1";
  // Warm all (JIT, connections, Firestore channel) before measuring.
  for (const once of [legacyCall, modernCall, sdkCall, ...(withFloor ? [floorCall] : [])]) await runLoad(100, 8, once);
  // Interleaved rounds: each contender runs a quarter of its requests in turn, so drift in the machine's
  // load (other processes, the emulator's JIT and GC) falls on all three alike.
  const ROUNDS = 6;
  // For profiling one contender alone: BENCH_MCP_ONLY=legacy (or sdk, modern; comma-separated).
  const only = process.env.BENCH_MCP_ONLY?.split(",");
  const runs = { sdk: [] as LoadResult[], legacy: [] as LoadResult[], modern: [] as LoadResult[], floor: [] as LoadResult[] };
  const serverCpu = { sdk: 0, legacy: 0, modern: 0, floor: 0 };
  const serverSystem = { sdk: 0, legacy: 0, modern: 0, floor: 0 };
  const firestoreRequests = { sdk: 0, legacy: 0, modern: 0, floor: 0 };
  const clientCpu = { sdk: 0, legacy: 0, modern: 0, floor: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    // The starting contender rotates, so that none always runs right after another's leftover work (its
    // last audit batch, its garbage) lands in the server's CPU reading.
    const contenders = [["sdk", sdkCall], ["legacy", legacyCall], ["modern", modernCall], ...(withFloor ? [["floor", floorCall] as const] : [])] as const;
    for (const [name, once] of contenders.map((_, i) => contenders[(i + round) % contenders.length])) {
      if (only && !only.includes(name)) continue;
      // An unmeasured lead-in of the same contender absorbs what the one before it left behind (its
      // garbage on both sides, its last audit batch), which would otherwise be charged to this round.
      await runLoad(2 * concurrency, concurrency, once);
      const server0 = await servers.cpu(true);
      const client0 = process.cpuUsage();
      runs[name].push(await runLoad(Math.ceil(requests / ROUNDS), concurrency, once));
      const client1 = process.cpuUsage();
      // Let the round's last audit batch commit, and its garbage be collected, before reading the server's CPU.
      await new Promise((r) => setTimeout(r, 50));
      const server1 = await servers.cpu(true);
      serverCpu[name] += server1.micros - server0.micros;
      serverSystem[name] += server1.system - server0.system;
      firestoreRequests[name] += server1.outgoing - server0.outgoing;
      clientCpu[name] += client1.user - client0.user + client1.system - client0.system;
    }
  }
  const combined = (results: LoadResult[], cpuMicros: number, clientMicros: number, name: keyof typeof serverCpu) => {
    const total = results.reduce((n, r) => n + r.requests, 0);
    const seconds = results.reduce((n, r) => n + r.seconds, 0);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const result: LoadResult = {
      requests: total,
      seconds,
      throughput: total / seconds,
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      errors: results.reduce((n, r) => n + r.errors, 0),
    };
    return {
      result,
      cpuMs: cpuMicros / 1000 / total,
      clientCpuMs: clientMicros / 1000 / total,
      systemShare: serverSystem[name] / cpuMicros,
      requestsPerCall: firestoreRequests[name] / total,
    };
  };
  const traits = (run: { systemShare: number; requestsPerCall: number }) =>
    ` ${fmt(100 * run.systemShare, 0)}% of the server's CPU in the kernel, ${fmt(run.requestsPerCall, 3)} Firestore HTTP requests per call`;
  const sdkRun = combined(runs.sdk, serverCpu.sdk, clientCpu.sdk, "sdk");
  const legacyRun = combined(runs.legacy, serverCpu.legacy, clientCpu.legacy, "legacy");
  const modernRun = combined(runs.modern, serverCpu.modern, clientCpu.modern, "modern");
  const floorRun = withFloor ? combined(runs.floor, serverCpu.floor, clientCpu.floor, "floor") : undefined;
  if (only) {
    for (const [name, run] of [["sdk", sdkRun], ["legacy", legacyRun], ["modern", modernRun], ["floor", floorRun]] as const) {
      if (run && only.includes(name)) console.log(`  ${name}: ${fmt(run.result.throughput, 0)} req/s, server CPU ${fmt(run.cpuMs, 3)} ms per call${traits(run)}`);
    }
    servers.child.disconnect();
    return undefined;
  }
  printLoad("official SDK, stateless (baseline)", sdkRun.result);
  printLoad("svc dispatcher, 2025-03-26", legacyRun.result);
  printLoad("svc dispatcher, 2026-07-28", modernRun.result);
  if (floorRun) {
    printLoad("floor: the Firestore calls alone", floorRun.result);
    console.log(`  floor server CPU per call ${fmt(floorRun.cpuMs, 3)} ms (${fmt(floorRun.cpuMs / sdkRun.cpuMs)} of the SDK's)`);
  }
  for (const [label, run] of [["SDK", sdkRun], ["ours 2025-03-26", legacyRun], ["ours 2026-07-28", modernRun], ["floor", floorRun]] as const) {
    if (run) console.log(`  ${label}:${traits(run)}`);
  }
  console.log(
    `  server process CPU per request: SDK ${fmt(sdkRun.cpuMs, 3)} ms, ours 2025-03-26 ${fmt(legacyRun.cpuMs, 3)} ms, ours 2026-07-28 ${fmt(modernRun.cpuMs, 3)} ms` +
      `   (load client, apart: ${fmt(sdkRun.clientCpuMs, 3)} / ${fmt(legacyRun.clientCpuMs, 3)} / ${fmt(modernRun.clientCpuMs, 3)} ms)`,
  );
  for (const [label, run] of [["2025-03-26", legacyRun], ["2026-07-28", modernRun]] as const) {
    console.log(
      `  ${label}: server CPU per call, ours / SDK: ${fmt(run.cpuMs / sdkRun.cpuMs)} (goal <= 0.5)   throughput ours / SDK: ${fmt(run.result.throughput / sdkRun.result.throughput)}x   p50 SDK / ours: ${fmt(sdkRun.result.p50 / run.result.p50)}x`,
    );
  }
  servers.child.disconnect();
  await new Promise((r) => servers.child.once("exit", r));
  return { ours: legacyRun.result, ours2026: modernRun.result, sdk: sdkRun.result };
}
