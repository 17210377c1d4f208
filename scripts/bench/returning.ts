// `npm run bench returning`: what returning visitors cost the scan commits (issue 54). Four redirect
// instances (the compiled function, each a process of its own) scan one code through an HTTP proxy that
// counts every Firestore `:commit` (test/helpers/firestoreProxy.ts). A visitor first counted today by
// another instance has a `u~` guard the scanning instance does not know of; the bench compares commits per
// scan of a load of new people with the same load where half the scans are such returning visitors, and
// counts the commits Firestore refused (ALREADY_EXISTS, 409), each of which costs a re-commit.
// Runs against whatever emulator FIRESTORE_EMULATOR_HOST names (the stack's, or a private one).
import { startRedirectInstances, stopRedirectInstances, type RedirectInstance } from "../../test/helpers/redirectInstances";
import { startFirestoreProxy, type FirestoreProxy } from "../../test/helpers/firestoreProxy";
import { createCode } from "../../functions/src/codes/service";
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
  counted: number;
  p50: number;
  p99: number;
}

/** Runs `visits` (visitor number, instance) at `concurrency`, counting the proxy's commits while it runs. */
async function phase(proxy: FirestoreProxy, instances: RedirectInstance[], id: string, visits: Array<{ n: number; instance: number }>, concurrency: number): Promise<Phase> {
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
        if (res.status === 302 && res.headers["x-scan-counted"] === "true") counted++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { scans: visits.length, commits: proxy.commits.length - commitsBefore, refused: (proxy.commitStatuses.get(409) ?? 0) - refusedBefore, counted, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const line = (label: string, p: Phase) =>
  `  ${label.padEnd(58)} ${fmt(p.commits / p.scans, 3)} commits/scan (${p.commits} for ${p.scans} scans, ${p.refused} refused), ${p.counted} counted, p50 ${fmt(p.p50)} ms p99 ${fmt(p.p99)} ms`;

export async function benchReturningVisitors(merchantId: string): Promise<void> {
  console.log("\n[returning] commits per scan with returning visitors across 4 instances (Firestore emulator behind a counting proxy)");
  const proxy = await startFirestoreProxy();
  const instances = await startRedirectInstances(4, { FIRESTORE_EMULATOR_HOST: proxy.host });
  try {
    const scans = Number(process.env.BENCH_RETURNING_SCANS ?? 800);
    const concurrency = Number(process.env.BENCH_RETURNING_CONCURRENCY ?? 32);
    for (const [label, conc] of [[`at concurrency ${concurrency}`, concurrency] as const, ["one scan at a time (idle instances)", 1] as const]) {
      const code = await createCode(merchantId, { title: "returning", destinationUrl: "https://example.com/returning", dynamic: true });
      // Each instance learns the code, its workspace's time zone and the day's secret.
      for (const [k, instance] of instances.entries()) await request("GET", `${instance.origin}/qr/${code.uniqueQRCodeID}`, undefined, { "User-Agent": PHONES[0], "X-Forwarded-For": `10.9.${k}.1` });
      const n = conc === 1 ? Math.min(scans, 200) : scans;
      const base = conc * 1_000_000; // visitors of this run only
      // New people, spread over the instances.
      const fresh = await phase(proxy, instances, code.uniqueQRCodeID, Array.from({ length: n }, (_, i) => ({ n: base + i, instance: i % 4 })), conc);
      // Half of the scans: people of the first load again, each on another instance than before (its
      // first-scan guard written elsewhere); the other half new people.
      const mix = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { n: base + i, instance: (i + 1) % 4 } : { n: base + n + i, instance: i % 4 }));
      const returning = await phase(proxy, instances, code.uniqueQRCodeID, mix, conc);
      console.log(`  ${label}:`);
      console.log(line("  all new people", fresh));
      console.log(line("  half returning visitors (first counted on another instance)", returning));
    }
  } finally {
    await stopRedirectInstances(instances);
    await proxy.close();
  }
}
