// `npm run bench:catalogue`: one workspace seeded through the store layer (as the service writes codes),
// then, at each size, the first page of the list and of searches: documents read and bytes read (counted
// by the store layer), latency (the emulator slows as a collection grows: reported, not the goal) and the
// process heap. Sizes from CATALOGUE_SIZES (default 1000,100000). It asserts nothing.
import { performance } from "node:perf_hooks";
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

export async function benchCatalogue(merchantId: string): Promise<void> {
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
  console.log("\ncatalogue: one workspace, list pages through the store layer (docs read, KB read, ms, heap MB)");
  let seeded = 0;
  for (const size of sizes) {
    const seconds = await seed(merchantId, seeded, size);
    console.log(`  seeded ${size - seeded} codes (to ${size}) in ${seconds.toFixed(1)} s (${Math.round((size - seeded) / seconds)} codes/s)`);
    seeded = size;
    for (const [name, query] of queries) {
      const before = opCounts();
      const started = performance.now();
      const page = await listCodePage(merchantId, query);
      const ms = performance.now() - started;
      const after = opCounts();
      const heap = process.memoryUsage().heapUsed / 2 ** 20;
      console.log(
        `  ${String(size).padStart(7)} codes, ${name.padEnd(30)} ${String(after.reads - before.reads).padStart(4)} docs ${((after.bytesRead - before.bytesRead) / 1024).toFixed(0).padStart(5)} KB ${ms.toFixed(0).padStart(6)} ms  heap ${heap.toFixed(0)} MB  (${page.codes.length} listed, total ${page.total})`,
      );
    }
  }
}
