// Dynamic-link redirect latency next to a bare Firestore document read (same emulator, same run), and
// sustained scans per second on one hot code, checked for lost counts.
import type { AddressInfo } from "node:net";
import express from "express";
import { redirectApp } from "../../functions/src/redirect/app";
import { createCode } from "../../functions/src/codes/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { db } from "../../functions/src/core/firebase";
import { fmt, percentile, printLoad, request, runLoad } from "./measure";

async function latencies(n: number, fn: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export async function benchRedirect(merchantId: string) {
  console.log("\n[redirect] GET /qr/<id> served in-process on loopback, Firestore emulator");
  const server = (redirectApp as unknown as express.Express).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const code = await createCode(merchantId, { title: "bench", destinationUrl: "https://example.com/bench", dynamic: true });
  const link = db().collection("links").doc(code.uniqueQRCodeID);
  const redirectAs = (userAgent: string) => async () => {
    const res = await request("GET", `${origin}/qr/${code.uniqueQRCodeID}`, undefined, { "User-Agent": userAgent });
    if (res.status !== 302) throw new Error(`status ${res.status}`);
  };
  const redirectOnce = redirectAs("bench-phone");
  for (let i = 0; i < 50; i++) {
    await link.get();
    await redirectOnce();
  }
  const n = 400;
  const reads = await latencies(n, async () => void (await link.get()));
  const redirects = await latencies(n, redirectOnce);
  const uncounted = await latencies(n, redirectAs("Twitterbot/1.0"));
  const [r50, r99, d50, d99] = [percentile(reads, 50), percentile(reads, 99), percentile(redirects, 50), percentile(redirects, 99)];
  console.log(`  bare Firestore read of the link document (baseline)  p50 ${fmt(r50)} ms   p99 ${fmt(r99)} ms`);
  console.log(`  redirect (HTTP, read, 302; scan written after)       p50 ${fmt(d50)} ms   p99 ${fmt(d99)} ms`);
  console.log(`  redirect of a bot (read, 302, nothing written)       p50 ${fmt(percentile(uncounted, 50))} ms   p99 ${fmt(percentile(uncounted, 99))} ms`);
  console.log(`  ratio redirect / bare read: p50 ${fmt(d50 / r50)}x   p99 ${fmt(d99 / r99)}x   (goal <= 1.3x)`);

  const hot = await createCode(merchantId, { title: "hot", destinationUrl: "https://example.com/hot", dynamic: true });
  const scans = Number(process.env.BENCH_SCANS ?? 3000);
  const result = await runLoad(scans, 64, async () => {
    const res = await request("GET", `${origin}/qr/${hot.uniqueQRCodeID}`, undefined, { "User-Agent": "bench-phone" });
    return res.status === 302;
  });
  let counted = 0;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    counted = (await codeAnalytics(merchantId, { codeId: hot.codeId }, 1)).totalScans;
    if (counted >= scans) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  printLoad(`hot code, ${scans} scans at concurrency 64`, result);
  console.log(`  counted ${counted} of ${scans} scans (${scans - counted} lost); ${fmt(result.throughput, 0)} scans/s sustained on one code`);
  server.close();
}
