// `npm run bench:catalogue`: one workspace seeded through the store layer (as the service writes codes),
// then, at each size, the first page of the list and of searches: documents read and bytes read (counted
// by the store layer), latency (the emulator slows as a collection grows: reported, not the goal) and the
// process heap. Sizes from CATALOGUE_SIZES (default 1000,100000). Then catalogue jobs end to end through
// the local front end (POST /api/jobs, followed until done): 10,000 plain rows with a print package, median
// of CATALOGUE_JOB_RUNS (default 3), and a smaller job of designed codes; and the print package's memory at
// growing counts (in this process). It asserts nothing.
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { request } from "./measure";
import type { QrCode } from "../../functions/src/codes/model";

const WORDS = ["Lunch", "Dinner", "Brunch", "Patio", "Window", "Counter", "Receipt", "Flyer", "Table", "Menu"];

function seedCode(merchantId: string, i: number, now: number): QrCode {
  const word = WORDS[i % WORDS.length];
  const codeId = `bench${String(i).padStart(8, "0")}`;
  return {
    codeId,
    merchantId,
    uniqueQRCodeID: `b${merchantId.slice(-6)}${i.toString(36)}`,
    title: `${word} card ${i}`,
    destinationUrl: `https://shop.example/${word.toLowerCase()}/item-${i}?utm_source=qr&utm_campaign=autumn-${i % 7}`,
    campaign: `autumn-${i % 7}`,
    tags: [word.toLowerCase()],
    dynamic: i % 2 === 0,
    dynamicLink: null,
    template: null,
    scanBeepSound: null,
    boostFrame: null,
    design: null,
    qrImageUrl: `https://svc.example/img/${merchantId}/${codeId}.png?token=t`,
    imagePath: `codes/${merchantId}/${codeId}.png`,
    imageToken: "t",
    status: i % 3 === 0 ? "published" : "draft",
    source: "bulk",
    createdAt: new Date(now - 1e9 + i * 1000),
    updatedAt: new Date(now - 1e9 + i * 1000),
  };
}

async function seed(merchantId: string, from: number, to: number): Promise<number> {
  const { db } = await import("../../functions/src/core/firebase");
  const { addNewCodes } = await import("../../functions/src/store/codes");
  const started = performance.now();
  const now = Date.now();
  const perBatch = 200;
  const pending: Array<Promise<unknown>> = [];
  for (let start = from; start < to; start += perBatch) {
    const batch = db().batch();
    addNewCodes(batch, merchantId, Array.from({ length: Math.min(perBatch, to - start) }, (_, k) => seedCode(merchantId, start + k, now)));
    pending.push(batch.commit());
    if (pending.length >= 4) await pending.shift();
  }
  await Promise.all(pending);
  return (performance.now() - started) / 1000;
}

setFlagsFromString("--expose-gc");
/** The heap after a full collection, MB: what is still held, not garbage not yet collected. */
const liveHeapMb = () => {
  (runInNewContext("gc") as () => void)();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export async function benchCatalogue(merchantId: string, apiKey: string, site: string): Promise<void> {
  await benchLists(merchantId);
  await benchJobs(merchantId, apiKey, site);
  await benchPackageMemory();
}

async function benchLists(merchantId: string): Promise<void> {
  process.env.SVC_COUNT_BYTES_READ = "1";
  const { listCodePage } = await import("../../functions/src/codes/directory");
  const { opCounts } = await import("../../functions/src/store/opCounter");
  const sizes = (process.env.CATALOGUE_SIZES ?? "1000,100000").split(",").map(Number);
  const queries: Array<[string, Parameters<typeof listCodePage>[1]]> = [
    ["first page", { sort: "created", limit: 50 }],
    ["title sort", { sort: "title", limit: 50 }],
    ["filtered (published, campaign)", { sort: "created", status: "published", campaign: "autumn-3", limit: 50 }],
    ["search one word", { sort: "created", q: "patio", limit: 50 }],
    ["search three words", { sort: "created", q: "patio card 12", limit: 50 }],
  ];
  console.log("\ncatalogue: one workspace, list pages through the store layer (docs read, KB read, ms, live heap before -> after MB)");
  let seeded = 0;
  for (const size of sizes) {
    const seconds = await seed(merchantId, seeded, size);
    console.log(`  seeded ${size - seeded} codes (to ${size}) in ${seconds.toFixed(1)} s (${Math.round((size - seeded) / seconds)} codes/s)`);
    seeded = size;
    for (const [name, query] of queries) {
      const heapBefore = liveHeapMb();
      const before = opCounts();
      const started = performance.now();
      const page = await listCodePage(merchantId, query);
      const ms = performance.now() - started;
      const after = opCounts();
      const peak = process.memoryUsage().heapUsed / 2 ** 20;
      console.log(
        `  ${String(size).padStart(7)} codes, ${name.padEnd(30)} ${String(after.reads - before.reads).padStart(4)} docs ${((after.bytesRead - before.bytesRead) / 1024).toFixed(0).padStart(5)} KB ${ms.toFixed(0).padStart(6)} ms  heap ${heapBefore.toFixed(0)} -> ${peak.toFixed(0)} MB  (${page.codes.length} listed, total ${page.total})`,
      );
    }
  }
}

interface JobAnswer {
  jobId: string;
  state: string;
  created: number;
  reused: number;
  failed: number;
  note: string | null;
}

/** One job through the front end: seconds until its codes are made and until it is done. */
async function timeJob(site: string, apiKey: string, body: unknown): Promise<{ createS: number; totalS: number; job: JobAnswer }> {
  const headers = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  const started = performance.now();
  const answer = await request("POST", `${site}/api/jobs`, JSON.stringify(body), headers);
  if (answer.status !== 202) throw new Error(`POST /api/jobs answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  let job = JSON.parse(answer.text) as JobAnswer;
  let createS = 0;
  while (job.state === "running" || job.state === "packaging") {
    await new Promise((r) => setTimeout(r, 500));
    job = JSON.parse((await request("GET", `${site}/api/jobs/${job.jobId}`, undefined, headers)).text) as JobAnswer;
    if (!createS && job.state !== "running") createS = (performance.now() - started) / 1000;
  }
  const totalS = (performance.now() - started) / 1000;
  return { createS: createS || totalS, totalS, job };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchJobs(merchantId: string, apiKey: string, site: string): Promise<void> {
  const { writeRateLimitOverride } = await import("../../functions/src/store/rateLimits");
  await writeRateLimitOverride(merchantId, "jobs", 10_000);
  const rows = Number(process.env.CATALOGUE_JOB_ROWS ?? 10_000);
  const runs = Number(process.env.CATALOGUE_JOB_RUNS ?? 3);
  console.log(`\ncatalogue jobs through the front end: ${rows} plain rows + a print package (30 mm SVG and PDF per code), ${runs} runs`);
  const creates: number[] = [];
  const totals: number[] = [];
  for (let run = 0; run < runs; run++) {
    const items = Array.from({ length: rows }, (_, i) => ({ title: `Shelf ${run}-${i}`, destinationUrl: `https://shop.example/p/${run}/${i}`, dynamic: i % 2 === 0, externalRef: `bench-${Date.now()}-${run}-${i}` }));
    const { createS, totalS, job } = await timeJob(site, apiKey, { format: "json", items, print: { sideMm: 30 } });
    creates.push(createS);
    totals.push(totalS);
    console.log(`  run ${run + 1}: ${job.state}, ${job.created} created, codes made in ${createS.toFixed(1)} s, done with the ZIP in ${totalS.toFixed(1)} s (${(totalS - createS).toFixed(1)} s packaging)${job.note ? `; ${job.note}` : ""}`);
  }
  console.log(`  median: codes ${median(creates).toFixed(1)} s, create + ZIP ${median(totals).toFixed(1)} s (goal 120 s)`);

  const designedRows = Number(process.env.CATALOGUE_DESIGNED_ROWS ?? 500);
  const { resolveDesign } = await import("../../functions/src/designs/design");
  const { saveBrandPreset } = await import("../../functions/src/store/brandPresets");
  await saveBrandPreset(merchantId, { name: "bench-brand", design: await resolveDesign(merchantId, { foreground: "#1E3A8A", moduleStyle: "rounded", eyeStyle: "rounded" }), updatedBy: "bench" });
  const items = Array.from({ length: designedRows }, (_, i) => ({ title: `Designed ${i}`, destinationUrl: `https://shop.example/d/${i}`, externalRef: `bench-designed-${Date.now()}-${i}` }));
  const designed = await timeJob(site, apiKey, { format: "json", items, designPreset: "bench-brand", print: { sideMm: 30 } });
  console.log(
    `  designed codes (rounded modules and eyes), ${designedRows} rows: ${designed.job.state}, codes made in ${designed.createS.toFixed(1)} s, done with the ZIP in ${designed.totalS.toFixed(1)} s ` +
      `(${((1000 * designed.createS) / designedRows).toFixed(0)} ms per code made, ${((1000 * (designed.totalS - designed.createS)) / designedRows).toFixed(0)} ms per code packaged)`,
  );
}

/** The package's memory at growing counts, drawn in this process into a counting sink (no storage). */
export async function benchPackageMemory(): Promise<void> {
  const { writePrintPackage } = await import("../../functions/src/jobs/printPackage");
  const counts = (process.env.CATALOGUE_PACKAGE_COUNTS ?? "1000,5000").split(",").map(Number);
  console.log("\nprint package in process (plain codes, 30 mm, A4 sheets): peak RSS and live heap after, by count");
  for (const count of counts) {
    const baseline = liveHeapMb();
    let peakRss = 0;
    const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const codes = function* () {
      for (let i = 0; i < count; i++) {
        const id = `pkg${count}x${i}`;
        yield { codeId: id, merchantId: "m", uniqueQRCodeID: `u${id}`, title: `Label ${i}`, destinationUrl: `https://shop.example/l/${i}`, dynamic: true, dynamicLink: `http://127.0.0.1:5000/qr/u${id}`, design: null, boostFrame: null, template: null, updatedAt: new Date() } as unknown as QrCode;
      }
    };
    let bytes = 0;
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => ((bytes += chunk.length), done()) });
    const started = performance.now();
    const result = await writePrintPackage(codes(), { sideMm: 30, sheets: { paper: "a4" } }, sink);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    console.log(
      `  ${String(count).padStart(6)} codes: ${seconds.toFixed(1)} s (${((1000 * seconds) / count).toFixed(1)} ms/code), ${(bytes / 2 ** 20).toFixed(1)} MB ZIP, ${result.undecoded} undecoded, ` +
        `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB, live heap ${baseline.toFixed(0)} -> ${liveHeapMb().toFixed(0)} MB`,
    );
  }
}
