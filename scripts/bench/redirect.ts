// Dynamic-link redirect latency next to a minimal node:http redirector that does one Firestore read (same
// emulator, same run, interleaved); sustained scans per second on one hot code with exact totals and the
// Firestore operations each scan costs; and the redirect function's cold start and memory.
import { execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { NODE22 } from "../lib/stack";
import { redirectApp } from "../../functions/src/redirect/app";
import { createCode } from "../../functions/src/codes/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { FieldValue } from "firebase-admin/firestore";
import { db } from "../../functions/src/core/firebase";
import { opCounts } from "../../functions/src/store/opCounter";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { newScanId } from "../../functions/src/scans/arrival";
import { publishScanEvent } from "../../functions/src/store/scanStream";
import { SCAN_EVENT_FIELDS, SCAN_EVENT_VERSION, type ScanEvent } from "../../functions/src/store/scanEvents";

/** A person's scan event as the stream carries it, for the stream-first contender (ids and times set per request; optional fields null). */
const STREAM_FIRST_EVENT = {
  ...Object.fromEntries(Object.keys(SCAN_EVENT_FIELDS).map((name) => [name, null])),
  ...{ schema_version: SCAN_EVENT_VERSION, merchant_id: "bench", code_id: "bench", kind: "person", visitor: "AAAAAAAAAAAAAAAA", day: "2026-01-01", hour: 12, time_zone: "UTC" },
  ...{ country: "US", region: "Oregon", city: "Portland", device: "mobile", os: "iOS", browser: "Mobile Safari", source: "redirect", served_from: "live" },
} as ScanEvent;

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
import { costLine, costPerMillion, fmt, paced, percentile, PRICE, printLoad, request, runLoad } from "./measure";
import { getConfig } from "../../functions/src/core/config";
import { oneScanShard } from "../../test/helpers/scans";

/** A scan recorded before its 302: counted there (a capped code's, and every scan before issue 56) or published for the consumer (`recorded`; scanPath.ts waits for its count). */
const recordedAt302 = (header: string | string[] | undefined) => header === "true" || header === "recorded";

/**
 * Latencies of several operations measured in turns (a, b, c, a, b, c, ...), so that each sees the same
 * background load on the same cores and emulator.
 */
async function interleavedLatencies(n: number, fns: Array<() => Promise<void>>): Promise<number[][]> {
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      times[k].push(performance.now() - t);
    }
  }
  return times.map((t) => t.sort((x, y) => x - y));
}

export async function benchRedirect(merchantId: string) {
  console.log("\n[redirect] GET /qr/<id> served in-process on loopback, Firestore emulator");
  const server = http.createServer(redirectApp).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const code = await createCode(merchantId, { title: "bench", destinationUrl: "https://example.com/bench", dynamic: true });
  const links = db().collection("links");
  // The baseline: the least a dynamic-link server can do, a node:http server that reads the link document
  // (one Firestore read) and answers 302, with no scan recorded.
  const minimal = http.createServer((req, res) => {
    const id = (req.url ?? "").slice("/qr/".length);
    links
      .doc(id)
      .get()
      .then((snap) => {
        res.writeHead(302, { Location: String(snap.get("destinationUrl")), "Cache-Control": "no-store" }).end();
      }, () => res.writeHead(500).end());
  });
  minimal.listen(0, "127.0.0.1");
  await new Promise((r) => minimal.once("listening", r));
  const minimalOrigin = `http://127.0.0.1:${(minimal.address() as AddressInfo).port}`;
  // What a stream-first redirect would cost (docs/performance.md, "The design change left"): the read beside
  // a Pub/Sub publish of the scan's event, no Firestore write before the 302. A measure of that design's
  // ceiling only: nothing counts these scans.
  const streamFirst = http.createServer((req, res) => {
    const id = (req.url ?? "").slice("/qr/".length);
    const event = { ...STREAM_FIRST_EVENT, scan_id: newScanId(), at: Date.now() * 1000, unique_qr_code_id: id };
    Promise.all([links.doc(id).get(), publishScanEvent(event)]).then(
      ([snap]) => res.writeHead(302, { Location: String(snap.get("destinationUrl")), "Cache-Control": "no-store" }).end(),
      () => res.writeHead(500).end(),
    );
  });
  streamFirst.listen(0, "127.0.0.1");
  await new Promise((r) => streamFirst.once("listening", r));
  const streamFirstOrigin = `http://127.0.0.1:${(streamFirst.address() as AddressInfo).port}`;
  // Each request comes from its own client address (a person scanning once), on the function URL's path.
  let clientNo = 0;
  const nextClient = () => {
    clientNo++;
    return `73.${(clientNo >> 16) & 255}.${(clientNo >> 8) & 255}.${clientNo & 255}`;
  };
  const get = (base: string, id: string, userAgent = PHONE) => async () => {
    const res = await request("GET", `${base}/qr/${id}`, undefined, { "User-Agent": userAgent, "X-Forwarded-For": nextClient() });
    if (res.status !== 302) throw new Error(`status ${res.status}`);
  };
  const ours = get(origin, code.uniqueQRCodeID);
  const baseline = get(minimalOrigin, code.uniqueQRCodeID);
  for (let i = 0; i < 50; i++) {
    await baseline();
    await ours();
  }
  const n = 400;
  // What the emulator itself charges for a read in parallel with a two-document batch (no HTTP, no logic).
  const scratch = db().collection("benchScratch");
  const floor = async () => {
    const batch = db().batch();
    batch.create(scratch.doc(), { at: new Date(), city: "x", state: "y", country: "US", device: "mobile" });
    batch.set(scratch.doc("rollup"), { c: { x: { n: FieldValue.increment(1), h: { "3": FieldValue.increment(1) } } } }, { merge: true });
    await Promise.all([links.doc(code.uniqueQRCodeID).get(), batch.commit()]);
  };
  const streamed = get(streamFirstOrigin, code.uniqueQRCodeID);
  for (let i = 0; i < 20; i++) await streamed(); // the Pub/Sub client loaded and warm
  const [minimalTimes, oursTimes, botTimes, floorTimes, streamFirstTimes] = await interleavedLatencies(n, [baseline, ours, get(origin, code.uniqueQRCodeID, "Twitterbot/1.0"), floor, streamed]);
  const [b50, b99, d50, d99] = [percentile(minimalTimes, 50), percentile(minimalTimes, 99), percentile(oursTimes, 50), percentile(oursTimes, 99)];
  console.log(`  minimal node:http redirector, one Firestore read (baseline)  p50 ${fmt(b50)} ms   p99 ${fmt(b99)} ms`);
  console.log(`  redirect (read || unique-guarded event + rollup batch, 302)  p50 ${fmt(d50)} ms   p99 ${fmt(d99)} ms`);
  console.log(`  redirect of a link preview (read || rollup increment, 302)   p50 ${fmt(percentile(botTimes, 50))} ms   p99 ${fmt(percentile(botTimes, 99))} ms`);
  const f50 = percentile(floorTimes, 50);
  console.log(`  bare read || bare two-document batch, no HTTP (the emulator's floor)  p50 ${fmt(f50)} ms   p99 ${fmt(percentile(floorTimes, 99))} ms`);
  console.log(`  ratio redirect / minimal redirector: p50 ${fmt(d50 / b50)}x   p99 ${fmt(d99 / b99)}x   (goal p50 <= 1.2x); the floor alone is ${fmt(f50 / b50)}x, ours is ${fmt(d50 / f50)}x the floor`);
  const s50 = percentile(streamFirstTimes, 50);
  console.log(`  stream-first ceiling (read || Pub/Sub publish, no Firestore write, counts nothing)  p50 ${fmt(s50)} ms   p99 ${fmt(percentile(streamFirstTimes, 99))} ms   = ${fmt(s50 / b50)}x the minimal redirector`);
  minimal.close();
  streamFirst.close();

  // Hot code: 1 read and 2 writes per counted scan, exact totals as soon as the load ends.
  const hot = await createCode(merchantId, { title: "hot", destinationUrl: "https://example.com/hot", dynamic: true });
  await get(origin, hot.uniqueQRCodeID)(); // the instance learns the code (as any instance does on its first scan)
  // Long enough that each shard slot is written many times (as under a sustained load), so the fold's
  // share per scan is not that of one burst.
  const scans = Number(process.env.BENCH_SCANS ?? 10_000);
  const opsBefore = opCounts();
  const cpuBefore = process.cpuUsage();
  const result = await runLoad(scans, 64, async () => {
    const res = await request("GET", `${origin}/qr/${hot.uniqueQRCodeID}`, undefined, { "User-Agent": PHONE, "X-Forwarded-For": nextClient() });
    return res.status === 302 && recordedAt302(res.headers["x-scan-counted"]);
  });
  const opsLoad = opCounts();
  const cpu = process.cpuUsage(cpuBefore);
  printLoad(`hot code, ${scans} scans at concurrency 64`, result);
  const settled = await codeAnalytics(merchantId, { codeId: hot.codeId }, 1);
  const counted = settled.totalScans - 1;
  console.log(`  ${scans - result.errors} of ${scans} answered with 302 after their scan was written; ${fmt(result.throughput, 0)} scans/s sustained on one code`);
  console.log(`  counted at once: ${counted} of ${scans} (${settled.uniqueScanners - 1} unique; ${scans - counted} lost); no trigger, nothing runs later per scan`);
  // The maintenance job (every 10 minutes) folds the day's shards; run it as if the day were over, and count its operations too.
  const opsBeforeFold = opCounts();
  const foldStarted = performance.now();
  const folded = await runScanMaintenance(new Date(Date.now() + 3 * 86_400_000));
  const foldMs = performance.now() - foldStarted;
  const opsFold = opCounts();
  const per = (a: number, b: number) => fmt(a / Math.max(1, b), 3);
  const load = { reads: opsLoad.reads - opsBefore.reads, writes: opsLoad.writes - opsBefore.writes, deletes: opsLoad.deletes - opsBefore.deletes };
  const fold = { reads: opsFold.reads - opsBeforeFold.reads, writes: opsFold.writes - opsBeforeFold.writes, deletes: opsFold.deletes - opsBeforeFold.deletes };
  console.log(`  Firestore operations per counted scan (store-layer counters): during the load ${per(load.reads, counted)} reads, ${per(load.writes, counted)} writes, ${per(load.deletes, counted)} deletes`);
  console.log(
    `  the fold (every 10 minutes) of this day's ${folded.shardsFolded} extra rollup shards: ${fold.reads} reads, ${fold.writes} writes, ${fold.deletes} deletes in all, ${fmt(foldMs, 0)} ms (the whole maintenance run);` +
      ` amortised total ${per(load.reads + fold.reads, counted)} reads, ${per(load.writes + fold.writes, counted)} writes per counted scan (goal <= 1 read + 2 writes)`,
  );
  const perMillion = (ops: { reads: number; writes: number; deletes: number }, invocations: number) => 1e6 * (ops.reads * PRICE.read + ops.writes * PRICE.write + ops.deletes * PRICE.delete + invocations * PRICE.invocation);
  const oldCost = perMillion({ reads: 2, writes: 4, deletes: 1 }, 2);
  const amortised = { reads: (load.reads + fold.reads) / Math.max(1, counted), writes: (load.writes + fold.writes) / Math.max(1, counted), deletes: (load.deletes + fold.deletes) / Math.max(1, counted) };
  const newCost = perMillion(amortised, 1);
  console.log(`  list price per million counted scans (Firestore $0.60/M reads, $1.80/M writes, $0.20/M deletes; $0.40/M invocations): $${fmt(newCost)} against $${fmt(oldCost)} before (${fmt(newCost / oldCost)}x)`);
  // All-in, as bench:traffic prices it. The CPU is this whole process's (the load generator's included), so it overstates the redirect's.
  const cpuMs = (cpu.user + cpu.system) / 1000 / Math.max(1, counted);
  const eventDays = getConfig().scanEventRetentionDays;
  const spend = { ...amortised, cpuMs, eventsPerScan: 1 };
  console.log(`  all-in per million scans of one hot code (every scan a new person; ${fmt(cpuMs, 3)} ms CPU per scan, load generator included): ${costLine(costPerMillion(spend, { eventDays, rollupDays: getConfig().scanRetentionDays }), eventDays)}`);
  const after = await codeAnalytics(merchantId, { codeId: hot.codeId }, 1);
  console.log(`  after the fold: ${after.totalScans - 1} counted, ${after.uniqueScanners - 1} unique (unchanged)`);

  // One instance's share of a chain's hot code, paced (open loop) at several rates, each long enough for
  // the shard slots to be reused: the rate one instance sees decides how many scans a commit carries. The
  // instance is busy all the time, so the billed instance time per scan is 1/rate of a second.
  const paceSeconds = Number(process.env.BENCH_HOT_SECONDS ?? 10);
  console.log("  one instance's share of a hot code (5,000 scans/s over 5 to 20 instances), paced:");
  for (const rate of (process.env.BENCH_HOT_RATES ?? "250,500,1000").split(",").map(Number)) {
    const share = await createCode(merchantId, { title: `share ${rate}`, destinationUrl: "https://example.com/share", dynamic: true });
    await get(origin, share.uniqueQRCodeID)();
    const opsStart = opCounts();
    const latencies: number[] = [];
    let countedNow = 0;
    const start = performance.now();
    await paced(rate, paceSeconds, async () => {
      const t = performance.now();
      const res = await request("GET", `${origin}/qr/${share.uniqueQRCodeID}`, undefined, { "User-Agent": PHONE, "X-Forwarded-For": nextClient() });
      latencies.push(performance.now() - t);
      if (res.status === 302 && recordedAt302(res.headers["x-scan-counted"])) countedNow++;
    });
    const achieved = latencies.length / ((performance.now() - start) / 1000);
    const opsLoadEnd = opCounts();
    await runScanMaintenance(new Date(Date.now() + 3 * 86_400_000));
    const opsEnd = opCounts();
    latencies.sort((x, y) => x - y);
    // The fold runs every 10 minutes and finds the same shard slots however long the load went on (each
    // slot is reused once a second has passed), so in a steady load its operations are shared by 10
    // minutes of scans, not by this phase's.
    const steadyScans = achieved * 600;
    type Op = "reads" | "writes" | "deletes";
    const during = (k: Op) => (opsLoadEnd[k] - opsStart[k]) / Math.max(1, countedNow);
    const fold = (k: Op) => opsEnd[k] - opsLoadEnd[k];
    const each = (k: Op) => during(k) + fold(k) / steadyScans;
    const spend = { reads: each("reads"), writes: each("writes"), deletes: each("deletes"), cpuMs: 0, instanceMs: 1000 / achieved, eventsPerScan: 1 };
    console.log(
      `    ${fmt(achieved, 0)}/s (asked ${rate}): ${latencies.length} scans, ${countedNow} counted at once, p50 ${fmt(percentile(latencies, 50))} ms;` +
        ` during the load ${fmt(during("reads"), 3)} reads and ${fmt(during("writes"), 3)} writes per scan; the fold ${fold("reads")} reads, ${fold("writes")} writes, ${fold("deletes")} deletes` +
        ` (shared by 10 minutes of scans: ${fmt(spend.reads, 3)} reads, ${fmt(spend.writes, 3)} writes, ${fmt(spend.deletes, 3)} deletes per scan in all); instance billed ${fmt(spend.instanceMs)} ms;` +
        ` ${costLine(costPerMillion(spend, { eventDays, rollupDays: getConfig().scanRetentionDays }), eventDays)}`,
    );
  }
  server.close();
  if (process.env.BENCH_COLD_START !== "0") benchColdStart(code.uniqueQRCodeID);
}

/** Cold start (module load to first 302) and memory of the compiled redirect function on Node 22. */
function benchColdStart(id: string) {
  console.log("\n[redirect cold start] a fresh Node 22 process: require the compiled function, serve, first 302 (median of 5)");
  const script = path.join(__dirname, "redirect-instance.ts");
  const run = (env: Record<string, string>) => {
    const runs = Array.from({ length: 5 }, () =>
      JSON.parse(execFileSync(NODE22, ["--import", "tsx", script, id, "2606:4700:4700::1111"], { env: { ...process.env, ...env }, encoding: "utf8" })),
    );
    const median = (k: string) => runs.map((r) => r[k]).sort((a, b) => a - b)[2];
    return { load: median("loadMs"), first: median("firstRedirectMs"), rss: median("rssAfterFirst") / 2 ** 20, rss6: median("rssBothFamilies") / 2 ** 20 };
  };
  const before = run({ GEO_DATABASE: "off" });
  const after = run({});
  console.log(`  without the geolocation database (before)  module load ${fmt(before.load, 0)} ms, first 302 at ${fmt(before.first, 0)} ms, RSS ${fmt(before.rss, 0)} MiB`);
  console.log(`  with it (after)                            module load ${fmt(after.load, 0)} ms, first 302 at ${fmt(after.first, 0)} ms, RSS ${fmt(after.rss, 0)} MiB; ${fmt(after.rss6, 0)} MiB once an IPv6 client loads the IPv6 file`);
  console.log(`  cost: +${fmt(after.first - before.first, 0)} ms to the first 302 (${fmt(after.first / before.first, 2)}x), +${fmt(after.rss6 - before.rss6, 0)} MiB; the function has 512 MiB`);
}

/**
 * The fold's throughput: BENCH_FOLD_ROLLUPS code days (default 1,000) with 2 shards each, folded by one
 * maintenance run. A run must fold what 10 minutes of a chain's scans leave (docs/performance.md).
 */
export async function benchFold(merchantId: string) {
  const rollupCount = Number(process.env.BENCH_FOLD_ROLLUPS ?? 1000);
  console.log(`\n[fold] one maintenance run over ${rollupCount} code days with 2 shards each (Firestore emulator over REST)`);
  const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  const codeDays = db().collection("workspaces").doc(merchantId).collection("codeDays");
  for (let start = 0; start < rollupCount; start += 200) {
    const batch = db().batch();
    for (let i = start; i < Math.min(rollupCount, start + 200); i++) {
      for (const slot of [0, 1]) {
        const shard = oneScanShard(`fold${i}`, day, "bench", slot);
        batch.create(codeDays.doc(shard.id), shard.data);
      }
    }
    await batch.commit();
  }
  const started = performance.now();
  const result = await runScanMaintenance();
  const seconds = (performance.now() - started) / 1000;
  console.log(`  ${result.rollupsFolded} rollups (${result.shardsFolded} shards) folded in ${fmt(seconds, 1)} s: ${fmt(result.rollupsFolded / seconds, 0)} rollups/s, with the codes' stored counts moved (${result.ledgersMoved}; ${result.ledgersSeeded} seeded)`);
}
