// `npm run bench returning`: returning visitors across instances (issues 54 and 56). Four redirect instances
// (the compiled function, each a process of its own) scan one code through an HTTP proxy that counts every
// Firestore `:commit` (test/helpers/firestoreProxy.ts). A visitor first counted today by another instance
// has a `u~` guard the scanning instance does not know of. Two kinds of code:
// - a capped code, counted by the redirect before its answer: commits per scan of a load of new people
//   against the same load where half the scans are such returning visitors, and the commits Firestore
//   refused (ALREADY_EXISTS, 409), each of which costs a re-commit;
// - a plain code, answered `recorded` and counted by the scan consumer (the stack's): the bench waits for
//   the consumer's count, and prints it against the people and uniques the load holds.
// Runs against whatever emulator FIRESTORE_EMULATOR_HOST names (the stack's, or a private one).
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../../test/helpers/redirectInstances";
import { startFirestoreProxy, type FirestoreProxy } from "../../test/helpers/firestoreProxy";
import { createCode } from "../../functions/src/codes/service";
import { setCodeCampaign } from "../../functions/src/campaigns/service";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { fmt, percentile, request } from "./measure";

const PHONES = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36",
];

/** A visitor: a client address of its own (one person each) and a phone. */
const visitor = (n: number) => ({ address: `74.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, ua: PHONES[n % 2] });

interface Phase {
  scans: number;
  commits: number;
  refused: number;
  /** Answers that say the scan was counted (capped: `true`) or recorded for the consumer (plain: `recorded`). */
  counted: number;
  p50: number;
  p99: number;
}

type Kind = "capped" | "plain";
/** The X-Scan-Counted of a person's scan answered with its count (capped) or its arrival recorded (plain). */
const ANSWERED: Record<Kind, string> = { capped: "true", plain: "recorded" };

/** Runs `visits` (visitor number, instance) at `concurrency`, counting the proxy's commits while it runs. */
async function phase(proxy: FirestoreProxy, instances: RedirectInstance[], id: string, kind: Kind, visits: Array<{ n: number; instance: number }>, concurrency: number): Promise<Phase> {
  const commitsBefore = proxy.commits.length;
  const refusedBefore = proxy.commitStatuses.get(409) ?? 0;
  const latencies: number[] = [];
  let counted = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < visits.length) {
        const { n, instance } = visits[next++];
        const v = visitor(n);
        const t = performance.now();
        const res = await request("GET", `${instances[instance].origin}/qr/${id}`, undefined, { "User-Agent": v.ua, "X-Forwarded-For": v.address });
        latencies.push(performance.now() - t);
        if (res.status === 302 && res.headers["x-scan-counted"] === ANSWERED[kind]) counted++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { scans: visits.length, commits: proxy.commits.length - commitsBefore, refused: (proxy.commitStatuses.get(409) ?? 0) - refusedBefore, counted, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const line = (label: string, p: Phase) =>
  `  ${label.padEnd(58)} ${fmt(p.commits / p.scans, 3)} commits/scan (${p.commits} for ${p.scans} scans, ${p.refused} refused), ${p.counted} counted, p50 ${fmt(p.p50)} ms p99 ${fmt(p.p99)} ms`;

/**
 * The consumer's count of a plain code once it reaches `people` people's scans (or `timeoutMs` passes):
 * its people and uniques, and how long it took. A scan counted late may sit in a shard past the answer's
 * read budget: the fold brings it in.
 */
async function consumerCount(merchantId: string, codeId: string, people: number, timeoutMs = 120_000): Promise<{ people: number; unique: number; waitedMs: number }> {
  const started = performance.now();
  for (;;) {
    const figures = await codeAnalytics(merchantId, { codeId }, 1);
    const waitedMs = performance.now() - started;
    if (figures.totalScans >= people || waitedMs > timeoutMs) return { people: figures.totalScans, unique: figures.uniqueScanners, waitedMs };
    if ("pending" in figures && figures.pending) await runScanMaintenance();
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function newCode(merchantId: string, kind: Kind): Promise<{ codeId: string; uniqueQRCodeID: string }> {
  const code = await createCode(merchantId, { title: `returning, ${kind}`, destinationUrl: "https://example.com/returning", dynamic: true });
  // A cap far above the load: every person is admitted, and counted by the redirect before its answer.
  if (kind === "capped") await setCodeCampaign(merchantId, { codeId: code.codeId }, { rules: [], humanScanCap: 1_000_000, fallbackUrl: "https://example.com/sold-out" } as never);
  return code;
}

export async function benchReturningVisitors(merchantId: string): Promise<void> {
  console.log("\n[returning] returning visitors across 4 instances (Firestore emulator behind a counting proxy)");
  const proxy = await startFirestoreProxy();
  const instances = await startRedirectInstances(4, { FIRESTORE_EMULATOR_HOST: proxy.host });
  try {
    const scans = Number(process.env.BENCH_RETURNING_SCANS ?? 800);
    const concurrency = Number(process.env.BENCH_RETURNING_CONCURRENCY ?? 32);
    const runs: Array<[Kind, string, number]> = [
      ["capped", `a capped code, at concurrency ${concurrency}`, concurrency],
      ["capped", "a capped code, one scan at a time (idle instances)", 1],
      // The redirect writes nothing for a plain code: what matters is the consumer's count.
      ["plain", `a plain code (counted by the consumer), at concurrency ${concurrency}`, concurrency],
    ];
    for (const [kind, label, conc] of runs) {
      const code = await newCode(merchantId, kind);
      // Each instance learns the code, its workspace's time zone and the day's secret (a link preview: no person).
      for (const instance of instances) await request("GET", `${instance.origin}/qr/${code.uniqueQRCodeID}`, undefined, { "User-Agent": "Twitterbot/1.0", "X-Forwarded-For": "10.9.0.1" });
      const n = conc === 1 ? Math.min(scans, 200) : scans;
      const base = (kind === "plain" ? 2 : 1) * conc * 1_000_000; // visitors of this run only
      // New people, spread over the instances.
      const fresh = await phase(proxy, instances, code.uniqueQRCodeID, kind, Array.from({ length: n }, (_, i) => ({ n: base + i, instance: i % 4 })), conc);
      const freshCount = kind === "plain" ? await consumerCount(merchantId, code.codeId, n) : undefined;
      // Half of the scans: people of the first load again, each on another instance than before (its
      // first-scan guard written elsewhere); the other half new people.
      const mix = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { n: base + i, instance: (i + 1) % 4 } : { n: base + n + i, instance: i % 4 }));
      const returning = await phase(proxy, instances, code.uniqueQRCodeID, kind, mix, conc);
      console.log(`  ${label}:`);
      console.log(line("  all new people", fresh));
      console.log(line("  half returning visitors (first counted on another instance)", returning));
      if (!freshCount) continue;
      const all = await consumerCount(merchantId, code.codeId, 2 * n);
      const uniques = n + Math.floor(n / 2); // the first load's people, and the second's new half
      console.log(`    the consumer counted ${freshCount.people} people (${freshCount.unique} unique) of ${n} after the first load, ${fmt(freshCount.waitedMs / 1000, 1)} s after it`);
      console.log(`    and ${all.people} people (${all.unique} unique) of ${2 * n} (${uniques} unique) after both, ${fmt(all.waitedMs / 1000, 1)} s after the second load`);
    }
  } finally {
    await stopRedirectInstances(instances);
    await proxy.close();
  }
}
