// Issue 56's figures (`npm run bench scanpath`): the redirect that publishes a scan's arrival beside its link
// read and leaves counting to the consumer, measured against
//  (a) minimal node:http redirectors in the same process, interleaved: one that only reads the link, and one
//      that reads it beside the same Pub/Sub publish (the same publisher and settings: store/scanStream.ts);
//  (b) today's design (main's compiled functions, MAIN_FUNCTIONS_LIB, default /work/wt-56c-main/functions/lib),
//      one hot code on one instance each over REST, every scan counted once the consumer has caught up; and
//      the consumer's lag at a quarter, half and all of the branch's rate;
//  (c) the all-in cost per million scans at 100 and 1,000 scans a second on one instance, and at 10 a second
//      over many sparse codes, with the consumer's share (its invocations, instance time and Firestore
//      operations, counted by a billing proxy), the subscription's deliveries, TTL deletes and the fold.
// Each instance and the consumer run in processes of their own (scripts/bench/scan-instance.ts); the local
// stack's push subscription is pointed at the bench's consumer for the run and given back afterwards.
// It prints figures and ratios and asserts nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { gcloudPubSubEmulator, NODE22 } from "../lib/stack";
import { redirectApp } from "../../functions/src/redirect/app";
import { createCode, createCodes } from "../../functions/src/codes/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { db } from "../../functions/src/core/firebase";
import { CONSUMER_GATHER_MS, getConfig, projectId } from "../../functions/src/core/config";
import { opCounts } from "../../functions/src/store/opCounter";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { arrivalOf } from "../../functions/src/scans/arrival";
import { publishArrival } from "../../functions/src/store/scanStream";
import { scanEvents } from "../../functions/src/store/scans";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { oneScanShard } from "../../test/helpers/scans";
import { startBillingProxy, type Billed } from "./billingProxy";
import { fmt, paced, percentile, PRICE, request, runLoad } from "./measure";
import { relayPushes } from "../lib/pushRelay";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PREVIEW = "Twitterbot/1.0";
const BRANCH_LIB = path.resolve(__dirname, "../../functions/lib");
const MAIN_LIB = process.env.MAIN_FUNCTIONS_LIB ?? "/work/wt-56c-main/functions/lib";
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** How arrivals reach the consumer: relayed with many pushes outstanding, as Pub/Sub delivers (relayPushes), or by the emulator's own push, one at a time. */
const DELIVERY = process.env.BENCH_DELIVERY === "emulator" ? "emulator" : "relay";
const RELAY_OUTSTANDING = num("BENCH_PUSHES_OUTSTANDING", 1_000);

// ---- instances in processes of their own ----

interface Stats {
  ops: { reads: number; writes: number; deletes: number };
  cpu: { user: number; system: number };
  busyMs: number;
  windowMs: number;
  requests: number;
  answered: Record<string, number>;
  lags: number[];
  maxInFlight: number;
  arrivals?: { published: number; outbox: number; unknown: number };
}

interface Instance {
  origin: string;
  child: ChildProcess;
  /** Warnings and errors it logged (its log lines with that severity). */
  warnings: string[];
  stats(reset?: boolean): Promise<Stats>;
  stop(): Promise<void>;
}

async function startInstance(role: "redirect" | "consumer", lib: string, env: NodeJS.ProcessEnv = {}): Promise<Instance> {
  // The consumer batches as deployed (the emulators' default gathers nothing: core/config.ts).
  const deployed = { CONSUMER_GATHER_MS: String(CONSUMER_GATHER_MS.deployed) };
  const child = spawn(NODE22, ["--import", "tsx", path.join(__dirname, "scan-instance.ts"), role, lib], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production", ...deployed, ...env } });
  const warnings: string[] = [];
  const watch = (line: string) => /"severity":"(WARNING|ERROR)"/.test(line) && warnings.push(line.slice(0, 300));
  createInterface({ input: child.stderr! }).on("line", watch);
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => (resolve(line), lines.on("line", watch)));
    child.once("exit", (code) => reject(new Error(`${role} instance (${lib}) exited with ${code}`)));
  });
  const origin = `http://127.0.0.1:${(JSON.parse(first) as { port: number }).port}`;
  return {
    origin,
    child,
    warnings,
    stats: async (reset = false) => JSON.parse((await request(reset ? "POST" : "GET", `${origin}/__stats`, reset ? "" : undefined)).text) as Stats,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---- the local stack's push subscription ----

async function pubsub(method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}${route}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`Pub/Sub emulator ${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Points the consumer's push subscription at `endpoint`; resolves with the endpoint it had. */
async function pushTo(endpoint: string): Promise<string> {
  const route = `/subscriptions/${SCAN_STREAM.consumer}`;
  const before = ((await pubsub("GET", route)) as { pushConfig?: { pushEndpoint?: string } }).pushConfig?.pushEndpoint ?? "";
  await pubsub("POST", `${route}:modifyPushConfig`, { pushConfig: { pushEndpoint: endpoint } });
  return before;
}

/**
 * A Pub/Sub emulator of its own for today's design: its stream topic enforces main's schema (layout 2),
 * which the branch's topic refuses, so its instance publishes as it does today instead of failing each
 * publish. The gcloud emulator, in a process group of its own (its java child ends with it).
 */
async function startPubSubForMain(): Promise<{ host: string; stop(): void }> {
  const bin = gcloudPubSubEmulator();
  if (!bin) throw new Error("no Pub/Sub emulator in the Google Cloud CLI");
  const port = await new Promise<number>((resolve) => {
    const probe = http.createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(bin, ["--host=127.0.0.1", `--port=${port}`], { detached: true, stdio: "ignore" });
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const host = `127.0.0.1:${port}`;
  const project = `http://${host}/v1/projects/${projectId()}`;
  const started = performance.now();
  while (!(await fetch(`${project}/topics`).then((r) => r.ok, () => false))) {
    if (performance.now() - started > 90_000) throw (stop(), new Error("the second Pub/Sub emulator did not start"));
    await new Promise((r) => setTimeout(r, 500));
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- main's compiled schema, at a path the bench is given
  const events = require(path.join(MAIN_LIB, "store/scanEvents")) as { SCAN_STREAM: { schema: string; topic: string }; avroSchema: () => object };
  const call = async (method: string, url: string, body: unknown) => {
    const res = await fetch(url, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`second Pub/Sub emulator: ${method} ${url} answered ${res.status} ${await res.text()}`);
  };
  await call("POST", `${project}/schemas?schemaId=${events.SCAN_STREAM.schema}`, { type: "AVRO", definition: JSON.stringify(events.avroSchema()) });
  await call("PUT", `${project}/topics/${events.SCAN_STREAM.topic}`, { schemaSettings: { schema: `projects/${projectId()}/schemas/${events.SCAN_STREAM.schema}`, encoding: "JSON" } });
  return { host, stop };
}

// ---- clients ----

let clientNo = 0;
/** A new person: an address of their own (and the phone's User-Agent). */
const newClient = () => {
  clientNo++;
  return `74.${(clientNo >> 16) & 255}.${(clientNo >> 8) & 255}.${clientNo & 255}`;
};

async function scan(origin: string, id: string, address = newClient(), userAgent = PHONE) {
  return request("GET", `${origin}/qr/${id}`, undefined, { "User-Agent": userAgent, "X-Forwarded-For": address });
}

/** Everything the consumer counted of a code (people, repeats, machines), once it counts `expected` or `timeoutMs` passes; the fold runs first so no shard is left out. */
async function countedOf(merchantId: string, codeId: string, expected: number, timeoutMs = 120_000): Promise<{ counted: number; people: number; unique: number; waitedMs: number }> {
  const started = performance.now();
  let last = { counted: 0, people: 0, unique: 0 };
  for (;;) {
    const a = await codeAnalytics(merchantId, { codeId }, 1);
    last = { counted: a.totalScans + a.repeatScans + a.botScans.total, people: a.totalScans, unique: a.uniqueScanners };
    if (last.counted >= expected || performance.now() - started > timeoutMs) break;
    // Shards past an answer's read budget are only seen once folded.
    if ("pending" in a && a.pending) await runScanMaintenance();
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ...last, waitedMs: performance.now() - started };
}

/** Waits until the consumer has answered `count` pushes with 204 since its window began (or `timeoutMs`); resolves with the time waited. */
async function consumerCatchUp(consumer: Instance, count: number, timeoutMs = 180_000): Promise<number> {
  const started = performance.now();
  while (((await consumer.stats()).answered["204"] ?? 0) < count && performance.now() - started < timeoutMs) await new Promise((r) => setTimeout(r, 100));
  return performance.now() - started;
}

// ---- (a) latency ----

async function listen(handler: http.RequestListener): Promise<{ origin: string; close: () => void }> {
  const server = http.createServer(handler).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function interleaved(n: number, fns: Array<() => Promise<void>>): Promise<number[][]> {
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    // The order turns each round, so no contender always follows the same one.
    for (let j = 0; j < fns.length; j++) {
      const k = (i + j) % fns.length;
      const t = performance.now();
      await fns[k]();
      times[k].push(performance.now() - t);
    }
  }
  return times.map((t) => t.sort((x, y) => x - y));
}

async function benchLatency(merchantId: string, fresh: string[]): Promise<void> {
  const n = fresh.length;
  console.log(`\n[scan path: latency] GET /qr/<id> in this process on loopback, ${n} turns interleaved (the order turns each round); Firestore and Pub/Sub emulators`);
  const code = await createCode(merchantId, { title: "latency", destinationUrl: "https://example.com/latency", dynamic: true });
  const links = db().collection("links");
  const readLink = (id: string) => links.doc(id).get();
  const template = await arrivalOf({ method: "GET", headers: { "user-agent": PREVIEW }, address: "74.0.0.1", place: { country: "US", state: "Oregon", city: "Portland" }, at: new Date(), uniqueQRCodeID: code.uniqueQRCodeID, known: { merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" } });
  const answer = (res: http.ServerResponse, snap: FirebaseFirestore.DocumentSnapshot) => res.writeHead(302, { Location: String(snap.get("destinationUrl")), "Cache-Control": "no-store" }).end();
  const readOnly = await listen((req, res) => void readLink((req.url ?? "").slice(4)).then((snap) => answer(res, snap), () => res.writeHead(500).end()));
  // The same publish as the redirect's (the product's publisher, its topic and batching settings), of an arrival as large as a real one.
  const readPublish = await listen((req, res) => {
    const id = (req.url ?? "").slice(4);
    const scanId = `bench${Math.random().toString(36).slice(2)}`;
    Promise.all([readLink(id), publishArrival(template.data, { ...template.attributes, scan_id: scanId })]).then(([snap]) => answer(res, snap), () => res.writeHead(500).end());
  });
  const ours = await listen(redirectApp);
  const get = (origin: string, id: () => string) => async () => {
    const res = await scan(origin, id());
    if (res.status !== 302) throw new Error(`${origin}: status ${res.status}`);
  };
  let next = 0;
  const contenders = [get(readOnly.origin, () => code.uniqueQRCodeID), get(readPublish.origin, () => code.uniqueQRCodeID), get(ours.origin, () => code.uniqueQRCodeID), get(ours.origin, () => fresh[next++])];
  for (let i = 0; i < 50; i++) for (const c of contenders.slice(0, 3)) await c(); // clients loaded and warm
  const [readTimes, publishTimes, knownTimes, firstTimes] = await interleaved(n, contenders);
  readOnly.close();
  readPublish.close();
  ours.close();
  const p = (t: number[], q: number) => percentile(t, q);
  const base = p(publishTimes, 50);
  const row = (label: string, t: number[]) => console.log(`  ${label.padEnd(70)} p50 ${fmt(p(t, 50)).padStart(6)} ms   p99 ${fmt(p(t, 99)).padStart(6)} ms`);
  row("minimal redirector: the link read alone", readTimes);
  row("minimal redirector: the read beside the same publish (the baseline)", publishTimes);
  row("redirect, a plain code this instance knows", knownTimes);
  row("redirect, a plain code this instance sees first", firstTimes);
  console.log(`  ratio to the read-and-publish redirector (goal p50 <= 1.15x): known ${fmt(p(knownTimes, 50) / base)}x, first seen ${fmt(p(firstTimes, 50) / base)}x`);
  console.log(`  ratio to the read-only redirector: known ${fmt(p(knownTimes, 50) / p(readTimes, 50))}x, first seen ${fmt(p(firstTimes, 50) / p(readTimes, 50))}x; the publish alone adds ${fmt(base / p(readTimes, 50))}x`);
}

// ---- (b) one hot code on one instance ----

async function hotRun(merchantId: string, instance: Instance, consumer: Instance | undefined, label: string, scans: number): Promise<{ rate: number; counted: number; waitedMs: number }> {
  const hot = await createCode(merchantId, { title: `hot ${label}`, destinationUrl: "https://example.com/hot", dynamic: true });
  await scan(instance.origin, hot.uniqueQRCodeID); // the instance learns the code (as any instance does on its first scan)
  if (consumer) await consumerCatchUp(consumer, 1, 30_000);
  await consumer?.stats(true);
  const headers = new Map<string, number>();
  const result = await runLoad(scans, 64, async () => {
    const res = await scan(instance.origin, hot.uniqueQRCodeID);
    const counted = String(res.headers["x-scan-counted"]);
    headers.set(counted, (headers.get(counted) ?? 0) + 1);
    return res.status === 302;
  });
  const loadEnd = performance.now();
  if (consumer) await consumerCatchUp(consumer, scans);
  const settled = await countedOf(merchantId, hot.codeId, scans + 1);
  const waitedMs = performance.now() - loadEnd;
  console.log(
    `  ${label.padEnd(28)} ${fmt(result.throughput, 0).padStart(6)} scans/s   p50 ${fmt(result.p50).padStart(7)} ms   p99 ${fmt(result.p99).padStart(7)} ms   ${scans - result.errors} of ${scans} answered 302` +
      ` (X-Scan-Counted ${[...headers].map(([k, v]) => `${k} ${v}`).join(", ")}); counted ${settled.counted - 1} of ${scans} (${settled.unique - 1} unique) ${fmt(waitedMs / 1000, 1)} s after the load`,
  );
  return { rate: result.throughput, counted: settled.counted - 1, waitedMs };
}

async function benchHotCode(merchantId: string, consumer: Instance): Promise<number> {
  const scans = num("BENCH_SCANS", 3_000);
  console.log(
    `\n[scan path: one hot code] ${scans} scans at concurrency 64 on one redirect instance each (compiled functions, Firestore over REST), every scan a new person; rounds alternate;` +
      ` the branch's arrivals delivered ${DELIVERY === "relay" ? `with up to ${RELAY_OUTSTANDING} pushes outstanding (relayed, as Pub/Sub delivers)` : "by the emulator's push, one at a time"}`,
  );
  if (!existsSync(path.join(MAIN_LIB, "redirect/app.js"))) {
    console.log(`  today's design not built at ${MAIN_LIB} (MAIN_FUNCTIONS_LIB): skipped`);
    return 0;
  }
  const mainPubSub = await startPubSubForMain();
  const branch = await startInstance("redirect", BRANCH_LIB);
  const today = await startInstance("redirect", MAIN_LIB, { PUBSUB_EMULATOR_HOST: mainPubSub.host });
  const rates = { branch: [] as number[], today: [] as number[] };
  try {
    // Both instances warm (modules, clients, the geolocation database) before anything is timed; the consumer then catches up.
    for (const instance of [today, branch]) {
      const warm = await createCode(merchantId, { title: "warm", destinationUrl: "https://example.com/warm", dynamic: true });
      await consumer.stats(true);
      await runLoad(300, 64, async () => (await scan(instance.origin, warm.uniqueQRCodeID)).status === 302);
      if (instance === branch) await consumerCatchUp(consumer, 300);
    }
    for (const round of [0, 1]) {
      const order = round === 0 ? (["today", "branch"] as const) : (["branch", "today"] as const);
      for (const design of order) {
        const r = design === "branch" ? await hotRun(merchantId, branch, consumer, `this branch (round ${round + 1})`, scans) : await hotRun(merchantId, today, undefined, `today's design (round ${round + 1})`, scans);
        rates[design].push(r.rate);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`  scans/s, this branch against today's design: ${fmt(mean(rates.branch) / mean(rates.today))}x (goal >= 1.8x; means of the rounds)`);
    if (today.warnings.length) console.log(`  today's instance logged ${today.warnings.length} warnings or errors, the first: ${today.warnings[0]}`);
    // The consumer's lag (from a scan's arrival to its count) at a quarter, half and all of the branch's rate.
    const full = Math.max(...rates.branch);
    const seconds = num("BENCH_LAG_SECONDS", 10);
    console.log(`  the consumer's lag, paced for ${seconds} s on one instance (from the scan's arrival at the redirect to the consumer's answer to its push):`);
    for (const share of [0.25, 0.5, 1]) {
      const rate = Math.round(full * share);
      const code = await createCode(merchantId, { title: `lag ${share}`, destinationUrl: "https://example.com/lag", dynamic: true });
      await scan(branch.origin, code.uniqueQRCodeID);
      await consumerCatchUp(consumer, 1, 30_000);
      await consumer.stats(true);
      let answered = 0;
      const start = performance.now();
      await paced(rate, seconds, async () => {
        const res = await scan(branch.origin, code.uniqueQRCodeID);
        if (res.status === 302) answered++;
      });
      const achieved = answered / ((performance.now() - start) / 1000);
      const caughtUp = await consumerCatchUp(consumer, answered);
      const { lags, answered: pushes, maxInFlight, windowMs } = await consumer.stats();
      console.log(
        `    ${String(share * 100).padStart(3)}% (${rate}/s asked, ${fmt(achieved, 0)}/s answered): lag p50 ${fmt(percentile(lags, 50) / 1000, 2)} s, p99 ${fmt(percentile(lags, 99) / 1000, 2)} s over ${lags.length} counted;` +
          ` caught up ${fmt(caughtUp / 1000, 1)} s after the load (the consumer counted ${fmt(lags.length / (windowMs / 1000), 0)}/s, at most ${maxInFlight} pushes at once); pushes answered ${JSON.stringify(pushes)}`,
      );
    }
  } finally {
    await branch.stop();
    await today.stop();
    mainPubSub.stop();
  }
  return Math.max(...rates.branch);
}

// ---- (c) what a million scans cost ----

/** Bytes Pub/Sub bills at least per publish request and per push (each arrival is its own push). */
const PUBSUB_MIN_BYTES = 1_000;
/** A counted event as the consumer publishes it to the stream topic (store/scanEvents.ts), and as BigQuery stores it. */
const STREAM_MESSAGE_BYTES = 520;
/** A guard document (a person's counted scan, the newest-scans list) with its index entries. */
const GUARD_BYTES = 560;

interface PhaseSpend {
  scans: number;
  redirect: { reads: number; writes: number; busyMs: number; cpuMs: number; outbox: number };
  consumer: Billed & { pushes: number; busyMs: number; cpuMs: number };
  /** Documents the phase created that expire by TTL (guards, newcomer budgets). */
  expiring: number;
  /** The fold's operations for the phase's code days, and the scans they are shared by. */
  fold: { reads: number; writes: number; deletes: number; sharedBy: number };
}

/** The all-in list price of a million scans, by part (docs/performance.md, "Issue 56"). */
export function scanPathCost(s: PhaseSpend) {
  const per = (n: number) => (1e6 * n) / s.scans;
  const instance = (busyMs: number) => (per(busyMs) / 1000) * (PRICE.vcpuSecond + 0.5 * PRICE.gibSecond);
  const tib = (bytes: number) => bytes / 2 ** 40;
  const retentionMonths = getConfig().scanEventRetentionDays / 30.4;
  const cost = {
    redirectInvocations: 1e6 * PRICE.invocation,
    redirectInstance: instance(s.redirect.busyMs),
    redirectFirestore: per(s.redirect.reads) * PRICE.read + per(s.redirect.writes) * PRICE.write,
    publish: tib(1e6 * PUBSUB_MIN_BYTES) * PRICE.pubsubTiB,
    delivery: tib(per(s.consumer.pushes) * PUBSUB_MIN_BYTES) * PRICE.pubsubTiB,
    consumerInvocations: per(s.consumer.pushes) * PRICE.invocation,
    consumerInstance: instance(s.consumer.busyMs),
    consumerFirestore: per(s.consumer.reads) * PRICE.read + per(s.consumer.writes) * PRICE.write + per(s.consumer.deletes) * PRICE.delete,
    outbox: per(s.redirect.outbox) * (PRICE.write + PRICE.read + PRICE.delete),
    ttlDeletes: per(s.expiring) * PRICE.delete,
    guardStorage: ((per(s.expiring) * GUARD_BYTES) / 2 ** 30) * PRICE.firestoreGiBMonth * retentionMonths,
    fold: (1e6 / s.fold.sharedBy) * (s.fold.reads * PRICE.read + s.fold.writes * PRICE.write + s.fold.deletes * PRICE.delete),
    stream: tib(1e6 * STREAM_MESSAGE_BYTES) * (PRICE.pubsubTiB + PRICE.bigQueryWriteTiB) + ((1e6 * STREAM_MESSAGE_BYTES) / 2 ** 30) * PRICE.bigQueryGiBMonth * (getConfig().scanRetentionDays / 30.4),
  };
  return { ...cost, all: Object.values(cost).reduce((a, b) => a + b, 0) };
}

/** Cloud Run's instance-based billing (CPU always allocated), per vCPU-second and GiB-second: what a pull worker pays. */
const ALWAYS_ON = { vcpuSecond: 0.000018, gibSecond: 0.000002 };

/**
 * The same spend with the consumer as a pull worker (docs/deploy.md, "A pull worker instead of the push"):
 * a modelled figure, not a measured one. The counting is the same code, so the Firestore operations are
 * the measured ones; no invocation per arrival; the worker's instances are billed all the time, as many as
 * the measured consumer CPU per scan needs at the phase's rate (at least one).
 */
export function pulledCost(s: PhaseSpend, rate: number) {
  const pushed = scanPathCost(s);
  const instances = Math.max(1, Math.ceil((s.consumer.cpuMs / s.scans) * rate / 1000));
  const consumerInstance = ((instances * 1e6) / rate) * (ALWAYS_ON.vcpuSecond + 0.5 * ALWAYS_ON.gibSecond);
  const cost = { ...pushed, consumerInvocations: 0, consumerInstance };
  return { ...cost, all: pushed.all - pushed.consumerInvocations - pushed.consumerInstance + consumerInstance, instances };
}

function costSplit(cost: ReturnType<typeof scanPathCost>): string {
  const parts = Object.entries(cost).filter(([k]) => k !== "all");
  return parts.map(([k, v]) => `${k} $${fmt(v, 3)}`).join(", ");
}

const cpuMsOf = (a: Stats, b: Stats) => (b.cpu.user + b.cpu.system - a.cpu.user - a.cpu.system) / 1000;

/** Seeds `days` days of history for each code (a shard a day, folded), so the fold and its recount see codes of that age. */
async function ageCodes(merchantId: string, codeIds: string[], days: number): Promise<void> {
  const codeDays = db().collection("workspaces").doc(merchantId).collection("codeDays");
  const refs: Array<{ id: string; data: object }> = [];
  for (const codeId of codeIds) for (let d = 1; d <= days; d++) refs.push(oneScanShard(codeId, new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10), "aged", 0));
  for (let i = 0; i < refs.length; i += 400) {
    const batch = db().batch();
    for (const r of refs.slice(i, i + 400)) batch.set(codeDays.doc(r.id), r.data);
    await batch.commit();
  }
  await runScanMaintenance();
}

interface Mix {
  newPeople: number;
  returning: number;
  previews: number;
}

async function costPhase(merchantId: string, redirect: Instance, consumer: Instance, proxy: { billed(): Billed }, label: string, rate: number, seconds: number, codes: Array<{ id: string; codeId: string }>, mix: Mix, sparse: boolean) {
  const people = new Map<string, string[]>();
  await runScanMaintenance(); // what earlier phases left is not this phase's fold
  const r0 = await redirect.stats(true);
  const c0 = await consumer.stats(true);
  const b0 = proxy.billed();
  const guards0 = (await scanEvents(merchantId).count().get()).data().count;
  let k = 0;
  let answered = 0;
  const start = performance.now();
  await paced(rate, seconds, async () => {
    const code = sparse ? codes[k++ % codes.length] : codes[Math.floor(Math.random() * codes.length)];
    const roll = Math.random();
    const seen = people.get(code.id) ?? [];
    let address: string;
    let agent = PHONE;
    if (roll < mix.previews) agent = PREVIEW;
    if (roll >= mix.previews && roll < mix.previews + mix.returning && seen.length) address = seen[Math.floor(Math.random() * seen.length)];
    else {
      address = newClient();
      if (agent === PHONE) people.set(code.id, [...seen.slice(-200), address]);
    }
    const res = await scan(redirect.origin, code.id, address, agent);
    if (res.status === 302) answered++;
  });
  const achieved = answered / ((performance.now() - start) / 1000);
  const caughtUp = await consumerCatchUp(consumer, answered);
  const r1 = await redirect.stats();
  const c1 = await consumer.stats();
  const b1 = proxy.billed();
  const guards1 = (await scanEvents(merchantId).count().get()).data().count;
  const f0 = opCounts();
  await runScanMaintenance();
  const f1 = opCounts();
  // The fold runs every 10 minutes: over a few codes it finds the same code days however long the load went
  // on, so its operations are shared by 10 minutes of scans; over sparse codes each scan brings its own.
  const sharedBy = sparse ? answered : achieved * 600;
  const spend: PhaseSpend = {
    scans: answered,
    redirect: { reads: r1.ops.reads - r0.ops.reads, writes: r1.ops.writes - r0.ops.writes, busyMs: r1.busyMs, cpuMs: cpuMsOf(r0, r1), outbox: (r1.arrivals?.outbox ?? 0) - (r0.arrivals?.outbox ?? 0) },
    consumer: { reads: b1.reads - b0.reads, writes: b1.writes - b0.writes, deletes: b1.deletes - b0.deletes, calls: {}, pushes: c1.requests, busyMs: c1.busyMs, cpuMs: cpuMsOf(c0, c1) },
    expiring: guards1 - guards0,
    fold: { reads: f1.reads - f0.reads, writes: f1.writes - f0.writes, deletes: f1.deletes - f0.deletes, sharedBy },
  };
  const cost = scanPathCost(spend);
  const commits = (b1.calls.commit ?? 0) - (b0.calls.commit ?? 0);
  const each = (n: number) => fmt(n / answered, 3);
  console.log(`  ${label}: ${answered} scans at ${fmt(achieved, 0)}/s (asked ${rate}/s), the consumer caught up ${fmt(caughtUp / 1000, 1)} s after the load; lag p50 ${fmt(percentile(c1.lags, 50) / 1000, 2)} s`);
  console.log(
    `    per scan: redirect ${each(spend.redirect.reads)} reads, ${each(spend.redirect.outbox)} to the outbox, instance busy ${each(spend.redirect.busyMs)} ms (CPU ${each(spend.redirect.cpuMs)} ms);` +
      ` consumer ${each(spend.consumer.pushes)} pushes (at most ${c1.maxInFlight} at once), ${each(spend.consumer.reads)} reads, ${each(spend.consumer.writes)} writes, ${each(spend.consumer.deletes)} deletes in ${commits} commits (${fmt(answered / Math.max(1, commits), 1)} scans each), busy ${each(spend.consumer.busyMs)} ms (CPU ${each(spend.consumer.cpuMs)} ms);` +
      ` ${each(spend.expiring)} documents expiring by TTL; the fold ${spend.fold.reads} reads, ${spend.fold.writes} writes, ${spend.fold.deletes} deletes, shared by ${fmt(sharedBy, 0)} scans`,
  );
  console.log(`    $${fmt(cost.all)} per million all-in: ${costSplit(cost)}`);
  const pulled = pulledCost(spend, achieved);
  console.log(`    with a pull worker instead of the push (modelled: no invocation per arrival, ${pulled.instances} instance(s) always on): $${fmt(pulled.all)} per million (consumer instance $${fmt(pulled.consumerInstance, 3)})`);
  return { ...cost, pulled: pulled.all };
}

async function benchCost(merchantId: string, sparseCodes: Array<{ id: string; codeId: string }>): Promise<void> {
  const mix: Mix = { newPeople: 0.7, returning: 0.25, previews: 0.05 };
  console.log(
    `\n[scan path: cost] all-in list price per million scans on one redirect instance and one consumer (each a process of its own, the consumer's Firestore traffic counted by a billing proxy);` +
      ` arrivals delivered ${DELIVERY === "relay" ? `with up to ${RELAY_OUTSTANDING} pushes outstanding (relayed, as Pub/Sub delivers)` : "by the emulator's push, one at a time"};` +
      ` mix: ${mix.newPeople * 100}% new people, ${mix.returning * 100}% returning people (the same address and phone again, same day), ${mix.previews * 100}% link previews`,
  );
  const proxy = await startBillingProxy();
  const consumer = await startInstance("consumer", BRANCH_LIB, { FIRESTORE_EMULATOR_HOST: proxy.host });
  const given = await pushTo(`${consumer.origin}/`);
  const relay = DELIVERY === "relay" ? await relayPushes({ emulatorHost: process.env.PUBSUB_EMULATOR_HOST!, project: projectId(), subscription: SCAN_STREAM.consumer, endpoint: `${consumer.origin}/`, outstanding: RELAY_OUTSTANDING }) : undefined;
  const redirect = await startInstance("redirect", BRANCH_LIB);
  try {
    const codeCount = num("BENCH_COST_CODES", 20);
    const inputs = Array.from({ length: codeCount }, (_, i) => ({ title: `aged ${i}`, destinationUrl: "https://example.com/aged", dynamic: true }));
    const codes = (await createCodes(merchantId, inputs, "tool")).map((c) => ({ id: c.uniqueQRCodeID, codeId: c.codeId }));
    await ageCodes(merchantId, codes.map((c) => c.codeId), 30);
    console.log(`  ${codeCount} codes, each with 30 days of folded history; the fold charged its reads of them (recount included)`);
    const seconds = num("BENCH_COST_SECONDS", 20);
    const at100 = await costPhase(merchantId, redirect, consumer, proxy, "100 scans/s", 100, seconds, codes, mix, false);
    const at1000 = await costPhase(merchantId, redirect, consumer, proxy, "1,000 scans/s", 1_000, Math.max(5, seconds / 2), codes, mix, false);
    const sparse = await costPhase(merchantId, redirect, consumer, proxy, `10 scans/s over ${sparseCodes.length} sparse codes (one scan each, first seen by the instance, no history)`, 10, sparseCodes.length / 10, sparseCodes, mix, true);
    console.log(`  goals: $${fmt(at100.all)} at 100/s (goal <= $3), $${fmt(at1000.all)} at 1,000/s (goal <= $2); sparse codes $${fmt(sparse.all)}`);
    console.log(`  with a pull worker (modelled): $${fmt(at100.pulled)} at 100/s, $${fmt(at1000.pulled)} at 1,000/s; sparse codes $${fmt(sparse.pulled)}`);
    if (redirect.warnings.length || consumer.warnings.length) console.log(`  warnings or errors logged: redirect ${redirect.warnings.length}, consumer ${consumer.warnings.length}; first: ${[...redirect.warnings, ...consumer.warnings][0]}`);
  } finally {
    await relay?.stop();
    await pushTo(given);
    await redirect.stop();
    await consumer.stop();
    await proxy.close();
  }
}

export async function benchScanPath(merchantId: string): Promise<void> {
  const n = num("BENCH_FIRST_SEEN", 300);
  const fresh = await createCodes(merchantId, Array.from({ length: n }, (_, i) => ({ title: `first ${i}`, destinationUrl: "https://example.com/first", dynamic: true })), "tool");
  // The consumer: the branch's compiled function in a process of its own, given the stack's push subscription.
  const consumer = await startInstance("consumer", BRANCH_LIB);
  const given = await pushTo(`${consumer.origin}/`);
  let relay: { stop(): Promise<void> } | undefined;
  try {
    const only = process.env.BENCH_SCANPATH_ONLY;
    // The latency turns leave counting to the emulator's own push: a relay in this process would run between the turns.
    if (!only || only === "latency") await benchLatency(merchantId, fresh.map((c) => c.uniqueQRCodeID));
    if (DELIVERY === "relay") relay = await relayPushes({ emulatorHost: process.env.PUBSUB_EMULATOR_HOST!, project: projectId(), subscription: SCAN_STREAM.consumer, endpoint: `${consumer.origin}/`, outstanding: RELAY_OUTSTANDING });
    if (!only || only === "hot") await benchHotCode(merchantId, consumer);
  } finally {
    await relay?.stop();
    await pushTo(given);
    await consumer.stop();
  }
  // The sparse codes are new to the cost bench's instance (a process of its own): each scan is its code's first there.
  if (!process.env.BENCH_SCANPATH_ONLY || process.env.BENCH_SCANPATH_ONLY === "cost") await benchCost(merchantId, fresh.map((c) => ({ id: c.uniqueQRCodeID, codeId: c.codeId })));
}

