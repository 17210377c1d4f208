// `npm run bench:traffic`: a chain's traffic on the production data path. Eight simulated redirect
// instances (test/fixtures/redirect-instance-server.ts: the compiled function, each in its own process,
// Firestore over REST as deployed) against one emulator; many workspaces and one hot code. At a quarter,
// half and all of the rate this machine reaches, it prints scans/s, the busiest single document's writes
// in one second (store-layer counters in every instance), Firestore and Pub/Sub operations and CPU per
// scan, exact totals and the time to reach them, the largest rollup document, and the all-in list price
// per million scans. It asserts nothing: the shape to read is a flat busiest-document line while the
// throughput grows (docs/performance.md, "Traffic").
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCode } from "../../functions/src/codes/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { db } from "../../functions/src/core/firebase";
import { opCounts } from "../../functions/src/store/opCounter";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { getConfig } from "../../functions/src/core/config";
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../../test/helpers/redirectInstances";
import { costLine, costPerMillion, fmt, paced, percentile, request } from "./measure";
import { randomUserAgent, unrecognisedUserAgent } from "../../test/fixtures/user-agents";
import { prng } from "../../test/helpers/fuzz";

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 8);
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 40);
const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 12);
/** Requests of the one-address flood (0 skips it). */
const FLOOD = Number(process.env.BENCH_FLOOD ?? 50_000);
const PHONES = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
];

let clientNo = 0;
const nextClient = () => {
  clientNo++;
  return `73.${(clientNo >> 16) & 255}.${(clientNo >> 8) & 255}.${clientNo & 255}`;
};

interface Phase {
  label: string;
  sent: number;
  ok: number;
  seconds: number;
  p50: number;
  busiest: { path: string; writesInOneSecond: number } | null;
  ops: { reads: number; writes: number; deletes: number };
  cpuMicros: number;
}

async function instanceStats(instances: RedirectInstance[]) {
  const all = await Promise.all(instances.map((i) => i.stats()));
  const ops = { reads: 0, writes: 0, deletes: 0 };
  let cpuMicros = 0;
  let busiest: Phase["busiest"] = null;
  for (const s of all) {
    ops.reads += s.ops.reads;
    ops.writes += s.ops.writes;
    ops.deletes += s.ops.deletes;
    cpuMicros += s.cpuMicros;
    const b = s.documents.busiest;
    if (b && (!busiest || b.writesInOneSecond > busiest.writesInOneSecond)) busiest = { path: b.path, writesInOneSecond: b.writesInOneSecond };
  }
  return { ops, cpuMicros, busiest };
}

/**
 * One phase: scans at `rate` a second (open loop), or as fast as `concurrency` clients go when rate is 0.
 * Half the scans go to the hot code, the rest spread over the other workspaces' codes; every scan is a
 * new person (their own address) with a phone's browser.
 */
async function runPhase(label: string, instances: RedirectInstance[], hot: string, others: string[], rate: number, concurrency: number): Promise<Phase> {
  const before = await instanceStats(instances);
  const latencies: number[] = [];
  let sent = 0;
  let ok = 0;
  const answers = new Map<string, number>();
  const one = async () => {
    const n = sent++;
    const id = n % 2 === 0 ? hot : others[n % others.length];
    const instance = instances[n % instances.length];
    const t = performance.now();
    const res = await request("GET", `${instance.origin}/qr/${id}`, undefined, { "User-Agent": PHONES[n % PHONES.length], "X-Forwarded-For": nextClient() }).catch((e: Error) => ({ status: 0, headers: { "x-scan-counted": e.message } as http.IncomingHttpHeaders }));
    latencies.push(performance.now() - t);
    if (res.status === 302) ok++;
    const key = `${res.status} ${String(res.headers["x-scan-counted"] ?? "")}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
  };
  const start = performance.now();
  const end = start + PHASE_SECONDS * 1000;
  if (rate > 0) await paced(rate, PHASE_SECONDS, one);
  else {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await one();
    }));
  }
  const seconds = (performance.now() - start) / 1000;
  const after = await instanceStats(instances);
  const unusual = [...answers].filter(([k]) => k !== "302 true");
  if (unusual.length) console.log(`  (${label}: answers other than "302, counted": ${unusual.map(([k, v]) => `${v} x ${k}`).join(", ")})`);
  latencies.sort((a, b) => a - b);
  return {
    label,
    sent,
    ok,
    seconds,
    p50: percentile(latencies, 50),
    busiest: after.busiest,
    ops: { reads: after.ops.reads - before.ops.reads, writes: after.ops.writes - before.ops.writes, deletes: after.ops.deletes - before.ops.deletes },
    cpuMicros: after.cpuMicros - before.cpuMicros,
  };
}

/** Interleaved p50 of one instance's redirect and a minimal node:http redirector doing one REST read. */
async function interleavedP50(instance: RedirectInstance, id: string): Promise<{ ours: number; minimal: number }> {
  const links = db().collection("links");
  const minimal = http.createServer((req, res) => {
    links
      .doc((req.url ?? "").slice("/qr/".length))
      .get()
      .then((snap) => res.writeHead(302, { Location: String(snap.get("destinationUrl")), "Cache-Control": "no-store" }).end(), () => res.writeHead(500).end());
  });
  await new Promise<void>((r) => minimal.listen(0, "127.0.0.1", () => r()));
  const minimalOrigin = `http://127.0.0.1:${(minimal.address() as AddressInfo).port}`;
  const times = { ours: [] as number[], minimal: [] as number[] };
  for (let i = 0; i < 300; i++) {
    for (const [key, origin] of [["minimal", minimalOrigin], ["ours", instance.origin]] as const) {
      const t = performance.now();
      await request("GET", `${origin}/qr/${id}`, undefined, { "User-Agent": PHONES[0], "X-Forwarded-For": nextClient() });
      if (i >= 30) times[key].push(performance.now() - t);
    }
  }
  minimal.close();
  for (const t of Object.values(times)) t.sort((a, b) => a - b);
  return { ours: percentile(times.ours, 50), minimal: percentile(times.minimal, 50) };
}

/** The largest rollup document of the bench's workspaces, as Firestore would store it (approximately). */
async function largestRollup(merchantIds: string[]): Promise<{ bytes: number; path: string }> {
  let largest = { bytes: 0, path: "" };
  for (const m of merchantIds) {
    for (const kind of ["codeDays", "scanDays"]) {
      const snap = await db().collection("workspaces").doc(m).collection(kind).get();
      for (const d of snap.docs) {
        const bytes = Buffer.byteLength(JSON.stringify(d.data())) + d.ref.path.length;
        if (bytes > largest.bytes) largest = { bytes, path: d.ref.path };
      }
    }
  }
  return largest;
}

export async function benchTraffic(): Promise<void> {
  console.log(`\n[traffic] ${INSTANCES} redirect instances (own processes, Firestore over REST), ${WORKSPACES} workspaces, one hot code; ${PHASE_SECONDS} s per phase`);
  const merchantIds: string[] = [];
  const codes: Array<{ merchantId: string; codeId: string; uniqueQRCodeID: string }> = [];
  for (let w = 0; w < WORKSPACES; w++) {
    const merchantId = `bench-traffic-${Date.now().toString(36)}-${w}`;
    await db().collection("workspaces").doc(merchantId).set({ name: `Shop ${w}`, ownerUid: `bench-${w}`, createdAt: new Date(), timeZone: "UTC" });
    merchantIds.push(merchantId);
    const code = await createCode(merchantId, { title: `code ${w}`, destinationUrl: `https://example.com/${w}`, dynamic: true });
    codes.push({ merchantId, codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID });
  }
  const hot = codes[0];
  const others = codes.slice(1).map((c) => c.uniqueQRCodeID);
  const instances = await startRedirectInstances(INSTANCES, { SVC_COUNT_DOCUMENT_WRITES: "1" });
  try {
    // Every instance learns every code first, as a warm instance would have.
    for (const i of instances) for (const c of codes) await request("GET", `${i.origin}/qr/${c.uniqueQRCodeID}`, undefined, { "User-Agent": PHONES[0], "X-Forwarded-For": nextClient() });
    const warmScans = instances.length * codes.length;
    const full = await runPhase("all", instances, hot.uniqueQRCodeID, others, 0, 16 * INSTANCES);
    const fullRate = full.ok / full.seconds;
    const quarter = await runPhase("a quarter", instances, hot.uniqueQRCodeID, others, fullRate / 4, 0);
    const half = await runPhase("a half", instances, hot.uniqueQRCodeID, others, fullRate / 2, 0);
    const loadEnded = performance.now();
    const phases = [quarter, half, full];
    console.log("  rate        scans   scans/s   p50 ms   busiest document: writes in one second   Firestore reads/writes per scan   CPU ms per scan");
    for (const p of phases) {
      console.log(
        `  ${p.label.padEnd(10)} ${String(p.sent).padStart(6)}   ${fmt(p.ok / p.seconds, 0).padStart(7)}   ${fmt(p.p50, 1).padStart(6)}   ${String(p.busiest?.writesInOneSecond ?? 0).padStart(3)}  ${p.busiest?.path.replace(/^workspaces\/[^/]+\//, "") ?? ""}`.padEnd(118) +
          `${fmt(p.ops.reads / p.sent, 3)} / ${fmt(p.ops.writes / p.sent, 3)}`.padEnd(34) +
          fmt(p.cpuMicros / 1000 / p.sent, 3),
      );
    }
    const sent = phases.reduce((a, p) => a + p.sent, 0) + warmScans;
    // Exact totals: every request is recorded as a person's scan, a repeat or a machine's, in the rollups.
    const totalOf = async () => {
      let total = 0;
      for (const c of codes) {
        const a = await codeAnalytics(c.merchantId, { codeId: c.codeId }, 1);
        total += a.totalScans + a.repeatScans + a.botScans.total;
      }
      return total;
    };
    let total = await totalOf();
    const exactAt = total === sent ? performance.now() : undefined;
    console.log(`  totals: ${total} of ${sent} scans in the rollups when the load ended${exactAt ? " (exact at once: the shards are read as they are written)" : ""}`);
    const opsBeforeFold = opCounts();
    const fold = await runScanMaintenance();
    const opsFold = opCounts();
    total = await totalOf();
    console.log(`  after the fold (${fold.shardsFolded} shards into ${fold.rollupsFolded} rollups, ${fold.rollupsSkipped} skipped): ${total} of ${sent}; time to exactness ${exactAt ? fmt((exactAt - loadEnded) / 1000, 1) : fmt((performance.now() - loadEnded) / 1000, 1)} s`);
    const largest = await largestRollup(merchantIds);
    console.log(`  largest rollup document: ${fmt(largest.bytes / 1024, 1)} KB (${largest.path.replace(/^workspaces\/[^/]+\//, "")})`);

    // Cost per million scans, at the full rate's operation counts plus the fold's.
    const scans = full.sent;
    const foldOps = { reads: opsFold.reads - opsBeforeFold.reads, writes: opsFold.writes - opsBeforeFold.writes, deletes: opsFold.deletes - opsBeforeFold.deletes };
    const allScans = phases.reduce((a, p) => a + p.sent, 0);
    const perScan = {
      reads: full.ops.reads / scans + foldOps.reads / allScans,
      writes: full.ops.writes / scans + foldOps.writes / allScans,
      deletes: full.ops.deletes / scans + foldOps.deletes / allScans,
    };
    const eventDays = getConfig().scanEventRetentionDays;
    const cpuMs = full.cpuMicros / 1000 / scans;
    const cost = costPerMillion({ ...perScan, cpuMs, eventsPerScan: full.ops.writes > 0 ? Math.min(1, perScan.writes) : 0 }, { eventDays, rollupDays: getConfig().scanRetentionDays });
    console.log(`  per scan: ${fmt(perScan.reads, 3)} reads, ${fmt(perScan.writes, 3)} writes, ${fmt(perScan.deletes, 3)} deletes (fold included); 1 Pub/Sub message; ${fmt(cpuMs, 3)} ms CPU`);
    console.log(`  cost per million scans: ${costLine(cost, eventDays)}`);
    const latency = await interleavedP50(instances[0], hot.uniqueQRCodeID);
    console.log(`  interleaved p50: redirect ${fmt(latency.ours, 2)} ms, minimal node:http redirector (one REST read) ${fmt(latency.minimal, 2)} ms: ${fmt(latency.ours / latency.minimal)}x (goal <= 1.2x)`);
    console.log("  the old design (one shared day document per workspace) no longer exists to run beside it; its last figures are in docs/performance.md");
    if (FLOOD > 0) await flood(instances, codes[1], codes.slice(2));
  } finally {
    await stopRedirectInstances(instances);
  }
}

/**
 * One address sends FLOOD requests with random User-Agents at one workspace's code, as fast as 64 clients
 * go, while other workspaces' codes are scanned by distinct people beside it: the flood counts a handful of
 * people (the rest recorded as repeats or machines, none lost) and every neighbour's scan is counted.
 */
async function flood(instances: RedirectInstance[], target: { merchantId: string; codeId: string; uniqueQRCodeID: string }, neighbours: Array<{ merchantId: string; codeId: string; uniqueQRCodeID: string }>) {
  console.log(`\n[traffic: flood] ${FLOOD.toLocaleString("en")} requests from one address with random User-Agents, other workspaces scanned alongside`);
  const rand = prng(3535);
  const latin1 = (ua: string) => ua.replace(/[^\x20-\x7e]/g, "x");
  const before = await codeAnalytics(target.merchantId, { codeId: target.codeId }, 1);
  const recorded = (a: typeof before) => a.totalScans + a.repeatScans + a.botScans.total;
  let sent = 0;
  let answered = 0;
  let done = false;
  const neighbourAnswers = new Map<string, number>();
  const otherAnswers = new Map<string, number>();
  const start = performance.now();
  const alongside = (async () => {
    for (let k = 0; !done; k++) {
      const c = neighbours[k % neighbours.length];
      const res = await request("GET", `${instances[k % instances.length].origin}/qr/${c.uniqueQRCodeID}`, undefined, { "User-Agent": PHONES[k % 2], "X-Forwarded-For": nextClient() }).catch(() => ({ status: 0, headers: {} as http.IncomingHttpHeaders }));
      const key = `${res.status} ${String(res.headers["x-scan-counted"] ?? "")}`;
      neighbourAnswers.set(key, (neighbourAnswers.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const floodCounted = new Map<string, number>();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (sent < FLOOD) {
        const n = sent++;
        const ua = latin1(n % 2 ? unrecognisedUserAgent(rand) : randomUserAgent(rand)).trim() || "x";
        const res = await request("GET", `${instances[n % instances.length].origin}/qr/${target.uniqueQRCodeID}`, undefined, { "User-Agent": ua, "X-Forwarded-For": "198.51.100.77" }).catch((e: Error) => ({ status: 0, error: e.message }));
        if (res.status === 302) {
          answered++;
          const told = String(("headers" in res && res.headers["x-scan-counted"]) || "none").replace(/^false; reason=/, "");
          floodCounted.set(told, (floodCounted.get(told) ?? 0) + 1);
        } else {
          const key = "error" in res ? `no answer (${res.error})` : String(res.status);
          otherAnswers.set(key, (otherAnswers.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  done = true;
  await alongside;
  const seconds = (performance.now() - start) / 1000;
  const after = await codeAnalytics(target.merchantId, { codeId: target.codeId }, 1);
  const minutes = Math.ceil(seconds / 60);
  console.log(`  ${answered} of ${FLOOD} answered 302 in ${fmt(seconds, 0)} s (${fmt(answered / seconds, 0)}/s)`);
  if (otherAnswers.size) console.log(`  other answers: ${[...otherAnswers].map(([k, n]) => `${k}: ${n}`).join("; ")}`);
  console.log(`  the 302s by X-Scan-Counted: ${[...floodCounted].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  console.log(
    `  counted as people: ${after.totalScans - before.totalScans} scans by ${after.uniqueScanners - before.uniqueScanners} unique scanners over ${minutes} minute(s); ` +
      `recorded in all: ${recorded(after) - recorded(before)} of ${answered} (repeats ${after.repeatScans - before.repeatScans}, machines ${after.botScans.total - before.botScans.total})`,
  );
  if ("pending" in after) {
    // More unfolded shards than one analytics answer reads (its read budget): the fold has them.
    const fold = await runScanMaintenance();
    const folded = await codeAnalytics(target.merchantId, { codeId: target.codeId }, 1);
    console.log(`  the answer above was marked pending (the code's day had more shards than one answer reads); after the fold (${fold.shardsFolded} shards): recorded ${recorded(folded) - recorded(before)} of ${answered}, people ${folded.totalScans - before.totalScans}`);
  }
  const counted = neighbourAnswers.get("302 true") ?? 0;
  const total = [...neighbourAnswers.values()].reduce((a, b) => a + b, 0);
  console.log(`  other workspaces' scans alongside: ${counted} of ${total} counted${total > counted ? ` (others: ${JSON.stringify(Object.fromEntries(neighbourAnswers))})` : ""}`);
}
