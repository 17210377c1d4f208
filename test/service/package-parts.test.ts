// A print package is built in slices (jobs/service.ts, "the print package"): each step draws a bounded
// slice into a part in Storage and commits a cursor, and the last step assembles the ZIP. Run in this
// process against the emulators with slices of 5 codes (the deployed slice is 1,000), so 12 codes take
// three slices and an assembly; two slices are made to die once, one half-way through its upload and one
// after its upload but before its commit. The ZIP must be byte for byte the one drawn in a single go.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createMerchant } from "../helpers/merchants";
import { csvOf } from "../helpers/jobs";
import { decodeSvg } from "../helpers/qr";
import { readZip } from "../helpers/zip";
import { jobReport, runJobStep, startJob } from "../../functions/src/jobs/service";
import { writePrintPackage } from "../../functions/src/jobs/printPackage";
import { readCodes } from "../../functions/src/store/codes";
import { readJob } from "../../functions/src/store/jobs";
import { imageStore } from "../../functions/src/store/images";
import type { JobStepTask } from "../../functions/src/store/jobQueue";

describe("print packages in parts", function () {
  this.timeout(180_000);

  it("resumes a package after a step dies mid-slice or before its commit: the ZIP is the one drawn in one go, no part left over", async () => {
    const owner = await createMerchant();
    const print = { sideMm: 30, sheets: { paper: "a4" as const, labelMm: 60 } }; // 6 labels a page: the sheets span slices
    const queued: JobStepTask[] = [];
    const enqueue = async (task: JobStepTask) => void queued.push(task);
    const { jobId } = await startJob(owner.merchantId, owner.uid, { input: { format: "csv", text: csvOf(12, "parts") }, publish: false, print }, enqueue);

    const store = imageStore();
    const writeStream = store.writeStream.bind(store);
    const written: string[] = [];
    const dies = new Map([
      ["part-0001", "mid-upload"],
      ["part-0002", "before-commit"],
    ]);
    store.writeStream = (path, contentType, token) => {
      written.push(path);
      const opened = writeStream(path, contentType, token);
      const part = /part-\d{4}/.exec(path)?.[0] ?? "";
      const how = dies.get(part);
      if (!how) return opened;
      dies.delete(part);
      if (how === "mid-upload") {
        // The instance dies with the upload half done: the stream fails after its first bytes.
        let writes = 0;
        const write = opened.stream.write.bind(opened.stream);
        opened.stream.write = ((chunk: unknown, ...rest: unknown[]) => {
          if (++writes === 2) {
            opened.stream.destroy(new Error("injected: the step died mid-slice"));
            return false;
          }
          return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
        }) as typeof opened.stream.write;
        opened.stored.catch(() => undefined);
        return opened;
      }
      // The upload completes, then the step dies before its commit.
      return { stream: opened.stream, stored: opened.stored.then(() => Promise.reject(new Error("injected: the step died before its commit"))) };
    };

    const slice = { codes: 5, budgetMs: 120_000, bytes: 64 * 1024 * 1024 };
    const failures: string[] = [];
    try {
      for (let steps = 0; queued.length; steps++) {
        assert.ok(steps < 20, "the job ends in a bounded number of steps");
        const task = queued[0];
        try {
          await runJobStep(task, enqueue, { packageSlice: slice });
          queued.shift();
        } catch (error) {
          // Cloud Tasks' retry: the same task again, after the cursor is seen unmoved.
          failures.push((error as Error).message);
          const job = (await readJob(owner.merchantId, jobId))!;
          assert.ok(job.packageCursor.pending, "the slice's object is noted for the retry to delete");
        }
      }
    } finally {
      store.writeStream = writeStream;
    }
    assert.equal(failures.length, 2, failures.join("; "));
    assert.match(failures[0], /mid-slice|closed before/);
    assert.match(failures[1], /before its commit/);

    const job = (await readJob(owner.merchantId, jobId))!;
    assert.equal(job.state, "done", job.note ?? "");
    assert.deepEqual([job.packageCursor.next, job.packageCursor.parts, job.packageCursor.pending], [12, 3, null]);
    const byPart = written.map((p) => /part-(\d{4})/.exec(p)?.[1] ?? "zip");
    assert.deepEqual(byPart, ["0000", "0001", "0001", "0002", "0002", "zip"], "only the slices that died were drawn again");
    for (const path of written.filter((p) => p.includes("/part-"))) await assert.rejects(store.get(path), Error, `${path} is deleted`);

    // The same codes drawn in one go give the same bytes: each code once, in row order, sheets and manifest alike.
    const ids = (await jobReport(owner.merchantId, jobId)).map((r) => r.codeId!);
    assert.equal(new Set(ids).size, 12);
    const zipBytes = await store.get(job.packagePath!);
    const chunks: Buffer[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => void (chunks.push(Buffer.from(chunk)), done()) });
    await writePrintPackage(await readCodes(owner.merchantId, ids), print, sink);
    const expected = Buffer.concat(chunks);
    assert.ok(zipBytes.equals(expected), `the assembled ZIP (${zipBytes.length} bytes) is the one drawn in one go (${expected.length} bytes)`);

    const zip = readZip(zipBytes);
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n").slice(1);
    assert.deepEqual(manifest.map((line) => line.split(",")[0]), ids, "every code once, in order");
    assert.deepEqual([...zip.keys()].filter((k) => k.startsWith("sheets-")), ["sheets-001.pdf"], "one sheets file over the three slices");
    for (const line of [manifest[0], manifest[6], manifest[11]]) {
      const [codeId, , scanUrl, , svgDecoded, pdfDecoded] = line.split(",");
      assert.deepEqual([svgDecoded, pdfDecoded], ["true", "true"]);
      assert.equal((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload, scanUrl, `${codeId} scans`);
    }
  });
});
