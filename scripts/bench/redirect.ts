// Dynamic-link redirect latency next to a bare Firestore document read (same emulator, same run);
// sustained scans per second on one hot code, checked for lost scans; and the redirect function's cold
// start and memory with and without the IP geolocation database.
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { NODE22 } from "../lib/stack";
import express from "express";
import { redirectApp } from "../../functions/src/redirect/app";
import { createCode } from "../../functions/src/codes/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { db } from "../../functions/src/core/firebase";
import { fmt, percentile, printLoad, request, runLoad } from "./measure";

/**
 * Latencies of several operations measured in turns (a, b, c, a, b, c, ...), so that each sees the same
 * background load (here the scanCounter trigger counting earlier scans on the same cores and emulator).
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
  const server = (redirectApp as unknown as express.Express).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const code = await createCode(merchantId, { title: "bench", destinationUrl: "https://example.com/bench", dynamic: true });
  const link = db().collection("links").doc(code.uniqueQRCodeID);
  // As the front end forwards it: a client address, then the Hosting edge hop.
  const redirectAs = (userAgent: string) => async () => {
    const res = await request("GET", `${origin}/qr/${code.uniqueQRCodeID}`, undefined, { "User-Agent": userAgent, "X-Forwarded-For": "73.20.30.40, 35.191.0.1" });
    if (res.status !== 302) throw new Error(`status ${res.status}`);
  };
  const redirectOnce = redirectAs("bench-phone");
  for (let i = 0; i < 50; i++) {
    await link.get();
    await redirectOnce();
  }
  const n = 400;
  const scratch = db().collection("benchScratch");
  const create = () => scratch.doc().create({ at: new Date(), city: "x", state: "y" });
  const [reads, redirects, uncounted, creates, both] = await interleavedLatencies(n, [
    async () => void (await link.get()),
    redirectOnce,
    redirectAs("Twitterbot/1.0"),
    async () => void (await create()),
    async () => void (await Promise.all([link.get(), create()])),
  ]);
  const [r50, r99, d50, d99] = [percentile(reads, 50), percentile(reads, 99), percentile(redirects, 50), percentile(redirects, 99)];
  console.log(`  bare Firestore read of the link document (baseline)  p50 ${fmt(r50)} ms   p99 ${fmt(r99)} ms`);
  console.log(`  redirect (HTTP, read || raw scan write + geo, 302)   p50 ${fmt(d50)} ms   p99 ${fmt(d99)} ms`);
  console.log(`  redirect of a bot (read, 302, nothing written)       p50 ${fmt(percentile(uncounted, 50))} ms   p99 ${fmt(percentile(uncounted, 99))} ms`);
  console.log(`  bare Firestore create of a raw-scan-sized document   p50 ${fmt(percentile(creates, 50))} ms   p99 ${fmt(percentile(creates, 99))} ms`);
  console.log(`  bare read || bare create, no HTTP (the design floor)  p50 ${fmt(percentile(both, 50))} ms   p99 ${fmt(percentile(both, 99))} ms`);
  console.log(`  ratio redirect / bare read: p50 ${fmt(d50 / r50)}x   p99 ${fmt(d99 / r99)}x   (goal <= 1.3x)`);

  const hot = await createCode(merchantId, { title: "hot", destinationUrl: "https://example.com/hot", dynamic: true });
  const scans = Number(process.env.BENCH_SCANS ?? 1000);
  let sent = 0;
  const result = await runLoad(scans, 64, async () => {
    sent++;
    const client = `73.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
    const res = await request("GET", `${origin}/qr/${hot.uniqueQRCodeID}`, undefined, { "User-Agent": "bench-phone", "X-Forwarded-For": `${client}, 35.191.0.1` });
    return res.status === 302;
  });
  printLoad(`hot code, ${scans} scans at concurrency 64`, result);
  // Every answered scan is durable at once (raw record); the scanCounter trigger (here: the Functions
  // emulator, one worker) then counts them. Lost = answered but neither counted nor waiting.
  const inbox = db().collection("scanInbox").where("uniqueQRCodeID", "==", hot.uniqueQRCodeID);
  const countedNow = async () => (await codeAnalytics(merchantId, { codeId: hot.codeId }, 1)).totalScans;
  console.log(`  ${scans - result.errors} of ${scans} answered with 302, each after its raw scan was written; ${fmt(result.throughput, 0)} scans/s sustained on one code`);
  const drainStart = performance.now();
  let counted = 0;
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    counted = await countedNow();
    if (counted >= scans) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const pending = (await inbox.count().get()).data().count;
  console.log(`  counted ${counted} of ${scans} by the trigger in ${fmt((performance.now() - drainStart) / 1000, 1)} s after the load (${pending} still waiting, ${scans - counted - pending} lost)`);
  server.close();
  if (process.env.BENCH_COLD_START !== "0") benchColdStart(code.uniqueQRCodeID);
}

/** Cold start (module load to first 302) and memory of the compiled redirect function on Node 22. */
function benchColdStart(id: string) {
  console.log("\n[redirect cold start] a fresh Node 22 process: require the compiled function, serve, first 302 (median of 5)");
  const script = path.join(__dirname, "redirect-instance.ts");
  const run = (env: Record<string, string>) => {
    const runs = Array.from({ length: 5 }, () =>
      JSON.parse(execFileSync(NODE22, ["--import", "tsx", script, id, "2001:4860:4860::8888"], { env: { ...process.env, ...env }, encoding: "utf8" })),
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
