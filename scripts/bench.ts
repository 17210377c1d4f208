// `npm run bench`: starts the emulators, seeds a merchant, and prints figures for each hot path next to a
// baseline measured in the same run. It asserts nothing.
import { cpus, loadavg } from "node:os";
import { Stack } from "./lib/stack";

async function main(): Promise<void> {
  const only = process.argv[2];
  // The tool list's cost in an agent's context needs no emulator either (printed by every full run too).
  if (only === "tools") {
    (await import("./lib/toolBudget")).printToolListCost();
    return;
  }
  // Designed codes need no emulator: `npm run bench designs` runs without the stack (and its lock).
  // Campaign rules are pure CPU too: `npm run bench rules` runs without the stack.
  if (only === "rules") {
    await (await import("./bench/rules")).benchRules();
    return;
  }
  if (only === "designs") {
    console.log(`bench on ${process.version}, ${cpus().length} cores, load average ${loadavg().map((n: number) => n.toFixed(1)).join(" ")}`);
    await (await import("./bench/designs")).benchDesigns({ withPlain: true });
    return;
  }
  const stack = new Stack();
  process.once("SIGINT", () => void stack.stop().then(() => process.exit(130)));
  try {
    const info = await stack.start();
    Object.assign(process.env, info.env);
    const { seedDemo } = await import("./lib/seed");
    const demo = await seedDemo();
    // The load below is far over the default per-key limits: lift them for the demo workspace, as an
    // operator would for a heavy integration, so the limiter's cost is measured and not its refusals.
    const { writeRateLimitOverride } = await import("../functions/src/store/rateLimits");
    for (const limit of ["toolCalls", "bulk"]) await writeRateLimitOverride(demo.merchantId, limit, 10_000_000);
    console.log(`bench on ${process.version}, ${cpus().length} cores, Firestore emulator via ${info.mode}`);
    const sections: Record<string, () => Promise<unknown>> = {
      tools: async () => (await import("./lib/toolBudget")).printToolListCost(),
      mcp: async () => (await import("./bench/mcp")).benchMcp(demo.apiKey),
      render: async () => (await import("./bench/qr")).benchRendering(),
      create: async () => (await import("./bench/qr")).benchCreation(demo.apiKey),
      sandbox: async () => (await import("./bench/sandbox")).benchSandbox(),
      redirect: async () => (await import("./bench/redirect")).benchRedirect(demo.merchantId),
      fold: async () => (await import("./bench/redirect")).benchFold(demo.merchantId),
      // Commits per scan when visitors come back through another instance (issue 54).
      returning: async () => (await import("./bench/returning")).benchReturningVisitors(demo.merchantId),
      // Beside the redirect's ratio: what evaluating a code's campaign rules adds to a scan (pure CPU, issue 38).
      rules: async () => (await import("./bench/rules")).benchRules(),
      webhooks: async () => (await import("./bench/webhooks")).benchWebhooks(info.urls, demo.apiKey),
      // Issue 56: the arrival-publishing redirect against minimal redirectors and today's design, the consumer's lag, the all-in cost.
      scanpath: async () => (await import("./bench/scanPath")).benchScanPath(demo.merchantId),
      traffic: async () => (await import("./bench/traffic")).benchTraffic(),
      catalogue: async () => (await import("./bench/catalogue")).benchCatalogue(demo.merchantId, demo.apiKey, info.urls.base),
      // Issue 60: one workspace flooding the catalogue queue against the others' job latency (virtual time, real slot transactions).
      jobflood: async () => (await import("./bench/jobFlood")).benchJobFlood(),
    };
    for (const [name, run] of Object.entries(sections)) {
      // The traffic and catalogue benches run alone (`npm run bench:traffic`, `bench:catalogue`): minutes each;
      // so does the queue flood (`npm run bench jobflood`).
      if (only === name || (!only && !["traffic", "catalogue", "jobflood"].includes(name))) await run();
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
