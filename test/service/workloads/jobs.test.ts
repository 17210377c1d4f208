// Heavy background workloads run after the other integration suites (this folder sorts last), so the
// documents they make never slow the emulator under suites that time it; they also clean up after themselves.
// Catalogue jobs through the local front end (Hosting -> bulk function -> Cloud Tasks emulator -> the
// catalogueJob function): a CSV of thousands of rows becomes exactly one code per row, run twice gives no
// second code, a step that fails mid-chunk resumes to exactly one code per row, bad files get clear errors
// and write nothing, and the print package's every file decodes to its code's URL. The kill of the
// function's process midway needs the Functions emulator's processes: test/stack/job-kill.test.ts.
import assert from "node:assert/strict";
import { api, codesIn, csvOf, finished } from "../../helpers/jobs";
import { createMerchant as newMerchant, firestore, type TestMerchant } from "../../helpers/merchants";
import { eventually } from "../../helpers/poll";
import { decodeSvg } from "../../helpers/qr";
import { readZip } from "../../helpers/zip";
import { readCodeCounts } from "../../../functions/src/store/catalogue";
import { callTool, toolResult } from "../../helpers/rpc";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { db } from "../../../functions/src/core/firebase";
import { addNewCodes } from "../../../functions/src/store/codes";
import { LINK_SYNC_IN_REQUEST } from "../../../functions/src/webhooks/service";
import type { QrCode } from "../../../functions/src/codes/model";
import { runJobStep, startJob, jobReport } from "../../../functions/src/jobs/service";
import { CHUNK_ROWS, readJob } from "../../../functions/src/store/jobs";
import type { JobStepTask } from "../../../functions/src/store/jobQueue";
import { scaled } from "../../helpers/scale";

// 10,000 at full size (TEST_SCALE=1); 1,000 rows are still ten chunks, a reused second run and a report of each.
const JOB_ROWS = Number(process.env.JOB_TEST_ROWS ?? scaled(10_000, 1_000));

describe("catalogue jobs", function () {
  this.timeout(1_800_000);
  let m: TestMerchant;

  const made: TestMerchant[] = [];
  const createMerchant = async () => {
    const merchant = await newMerchant();
    made.push(merchant);
    return merchant;
  };
  before(async () => {
    m = await createMerchant();
  });
  // The suite leaves the emulator as it found it: its queries slow down with every stored document, and
  // later suites time leases against it. Every workspace made here goes, with its codes, links and jobs.
  after(async function () {
    this.timeout(300_000);
    const db = firestore();
    for (const merchant of made) {
      await db.recursiveDelete(db.collection("workspaces").doc(merchant.merchantId));
      const writer = db.bulkWriter();
      for (const link of (await db.collection("links").where("merchantId", "==", merchant.merchantId).select().get()).docs) void writer.delete(link.ref);
      await writer.close();
    }
  });

  it(`makes ${JOB_ROWS} codes from one CSV, and the same file again makes none`, async () => {
    const csv = csvOf(JOB_ROWS, "big");
    const started = Date.now();
    const first = await api(m.apiKey, "POST", "/api/jobs", { format: "csv", csv });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.equal(first.body.total, JOB_ROWS);
    const done = await finished(m.apiKey, first.body.jobId);
    const seconds = (Date.now() - started) / 1000;
    console.log(`      ${JOB_ROWS} rows: job done in ${seconds.toFixed(0)} s (${Math.round(JOB_ROWS / seconds)} codes/s)`);
    assert.equal(done.state, "done", JSON.stringify(done));
    assert.deepEqual([done.created, done.reused, done.failed, done.progress], [JOB_ROWS, 0, 0, 100]);
    assert.equal(await codesIn(m.merchantId), JOB_ROWS);

    const again = await api(m.apiKey, "POST", "/api/jobs", { format: "csv", csv });
    const second = await finished(m.apiKey, again.body.jobId);
    assert.deepEqual([second.state, second.created, second.reused], ["done", 0, JOB_ROWS]);
    assert.equal(await codesIn(m.merchantId), JOB_ROWS, "no second code for any row");
    const counts = await readCodeCounts(m.merchantId);
    assert.equal(counts.total, JOB_ROWS, "the list's total agrees");
    const report = await api(m.apiKey, "GET", `/api/jobs/${again.body.jobId}/report`);
    assert.equal(report.body.rows.length, JOB_ROWS);
    assert.ok(report.body.rows.every((r: any) => r.outcome === "reused" && r.codeId));
  });

  it("a step that fails mid-chunk is retried whole: the failed chunk is redone, the chunks done before are counted, not redone (in process)", async () => {
    const owner = await createMerchant();
    const rows = 4 * CHUNK_ROWS + CHUNK_ROWS / 2; // 5 chunks; the third fails once
    const queued: JobStepTask[] = [];
    const enqueue = async (task: JobStepTask) => void queued.push(task);
    const { jobId } = await startJob(owner.merchantId, owner.uid, { input: { format: "csv", text: csvOf(rows, "inject") }, publish: false }, enqueue);
    assert.deepEqual(queued, [{ merchantId: owner.merchantId, jobId, step: "chunk", chunk: 0 }]);
    // A lost connection as the third chunk commits (its codes' images are made, nothing of it is written):
    // injected once, deterministically, at the one batch that writes that chunk's record.
    const chunks = `workspaces/${owner.merchantId}/jobs/${jobId}/chunks/`;
    const proto = Object.getPrototypeOf(firestore().batch());
    const commit = proto.commit;
    const commits = new Map<string, number>();
    let injected = false;
    proto.commit = async function (this: { _ops: Array<{ docPath: string }> }) {
      const chunk = this._ops.map((op) => op.docPath).find((p) => p.startsWith(chunks))?.slice(chunks.length);
      if (chunk) commits.set(chunk, (commits.get(chunk) ?? 0) + 1);
      if (chunk === "0002" && !injected) {
        injected = true;
        throw Object.assign(new Error("14 UNAVAILABLE: injected mid-chunk"), { code: 14 });
      }
      return commit.call(this);
    };
    try {
      await assert.rejects(runJobStep(queued[0], enqueue), /injected mid-chunk/);
      assert.equal(await codesIn(owner.merchantId), 2 * CHUNK_ROWS, "the chunks before the failure are written, the failed one not");
      assert.equal((await readJob(owner.merchantId, jobId))!.state, "running");
      await runJobStep(queued[0], enqueue); // Cloud Tasks' retry: the same task again
    } finally {
      proto.commit = commit;
    }
    assert.deepEqual(Object.fromEntries(commits), { "0000": 1, "0001": 1, "0002": 2, "0003": 1, "0004": 1 }, "only the failed chunk ran twice");
    const done = (await readJob(owner.merchantId, jobId))!;
    assert.equal(done.state, "done");
    assert.deepEqual([done.chunksDone, done.created, done.reused, done.failed], [5, rows, 0, 0]);
    // No gap and no duplicate: every row once, each with a code of its own, and exactly those codes stored.
    const report = await jobReport(owner.merchantId, jobId);
    assert.deepEqual(report.map((r) => r.row), Array.from({ length: rows }, (_, i) => i + 1));
    assert.ok(report.every((r) => r.outcome === "created"));
    assert.equal(new Set(report.map((r) => r.codeId)).size, rows);
    assert.equal(await codesIn(owner.merchantId), rows);
    assert.equal(queued.length, 1, "one step did it all: nothing else was queued");
  });

  it("refuses bad files with a clear error and writes nothing; bad rows are listed, the rest are made", async () => {
    const fresh = await createMerchant();
    const refused = [
      ["missing URL column", { format: "csv", csv: "title,campaign\nA,b\n" }, /URL|url/],
      ["random bytes", { format: "csv", csv: Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256)).toString("latin1") }, /text|CSV|binary/i],
      ["only a header", { format: "csv", csv: "title,url\n" }, /row/i],
      ["JSON without items", { format: "json" }, /items/],
    ] as const;
    for (const [name, body, message] of refused) {
      const res = await api(fresh.apiKey, "POST", "/api/jobs", body);
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "VALIDATION_FAILED", name);
      assert.match(res.body.message, message, name);
    }
    const tooBig = await api(fresh.apiKey, "POST", "/api/jobs", { format: "csv", csv: "x".repeat(10 * 1024 * 1024) });
    assert.ok([400, 413].includes(tooBig.status), `10 MB of junk: ${tooBig.status}`);
    assert.equal(await codesIn(fresh.merchantId), 0, "nothing was written");

    // A semicolon file with a formula cell and a javascript: URL: those two rows are refused, the rest made.
    const csv = ["title;url;externalRef", "Good one;https://shop.example/1;g1", "=1+2;https://shop.example/2;g2", "Script;javascript:alert(1);g3", "Good two;https://shop.example/4;g4"].join("\r\n");
    const job = await api(fresh.apiKey, "POST", "/api/jobs", { format: "csv", csv });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    assert.equal(job.body.failed, 2);
    assert.deepEqual(job.body.errors.map((e: any) => e.row), [2, 3]);
    assert.match(job.body.errors[0].message, /formula/i);
    const done = await finished(fresh.apiKey, job.body.jobId);
    assert.deepEqual([done.created, done.failed], [2, 2]);
    assert.equal(await codesIn(fresh.merchantId), 2);
  });

  it("builds a print package whose every file decodes to its code's URL, through the tool too", async () => {
    const printer = await createMerchant();
    const items = Array.from({ length: 12 }, (_, i) => ({ title: `Label ${i}`, destinationUrl: `https://shop.example/label/${i}`, dynamic: i % 2 === 0, externalRef: `label-${i}` }));
    const started = toolResult(await callTool("svc.job.start", { format: "json", items, print: { sideMm: 30, sheets: { paper: "a4" } } }, printer.apiKey));
    const done = await eventually(
      async () => toolResult(await callTool("svc.job.get", { jobId: started.jobId }, printer.apiKey)),
      (j: any) => j.state === "done" || j.state === "failed",
      { timeoutMs: 300_000, intervalMs: 500, what: "the package" },
    );
    assert.equal(done.state, "done", JSON.stringify(done));
    assert.ok(done.packageUrl?.startsWith("http://127.0.0.1"), done.packageUrl);
    const zip = readZip(Buffer.from(await (await fetch(done.packageUrl)).arrayBuffer()));
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n");
    assert.equal(manifest.length, 13);
    const codes = (await firestore().collection("workspaces").doc(printer.merchantId).collection("codes").get()).docs.map((d) => d.data());
    for (const line of manifest.slice(1)) {
      const [codeId, , scanUrl, , svgDecoded, pdfDecoded] = line.split(",");
      const code = codes.find((c) => c.codeId === codeId)!;
      assert.equal(scanUrl, code.dynamic ? code.dynamicLink : code.destinationUrl);
      assert.deepEqual([svgDecoded, pdfDecoded], ["true", "true"]);
      assert.equal((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload, scanUrl, "decoded here too");
      assert.ok(zip.get(`${codeId}.pdf`)!.subarray(0, 5).toString() === "%PDF-");
    }
    assert.ok([...zip.keys()].some((k) => /^sheets-\d+\.pdf$/.test(k)), "imposed sheets");
    // Code made by a tool: drafts, never published.
    assert.ok(codes.every((c) => c.status === "draft"));
  });

  it("packages any selection of existing codes: each listed code once, another workspace's codes never", async () => {
    const owner = await createMerchant();
    const stranger = await createMerchant();
    const made = await api(owner.apiKey, "POST", "/api/jobs", { format: "json", items: Array.from({ length: 5 }, (_, i) => ({ title: `Shelf ${i}`, destinationUrl: `https://shop.example/shelf/${i}`, dynamic: i < 3 })) });
    const rows = (await api(owner.apiKey, "GET", `/api/jobs/${(await finished(owner.apiKey, made.body.jobId)).jobId}/report`)).body.rows;
    const [a, b, c] = rows.map((r: any) => r.codeId);
    const theirs = await api(stranger.apiKey, "POST", "/api/bulk-qr-codes", { urls: ["https://stranger.example/x"] });
    const foreign = theirs.body.codes?.[0]?.codeId;
    assert.ok(foreign, JSON.stringify(theirs.body));

    const refused = [
      [{ format: "codes", codeIds: [a] }, "print"],
      [{ format: "codes", print: { sideMm: 30 } }, "codeIds"],
      [{ format: "json", items: [], codeIds: [a], print: { sideMm: 30 } }, "codeIds"],
      [{ format: "codes", codeIds: ["../etc"], print: { sideMm: 30 } }, "codeIds"],
    ] as const;
    for (const [body, field] of refused) {
      const answer = await api(owner.apiKey, "POST", "/api/jobs", body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "VALIDATION_FAILED");
      assert.ok(JSON.stringify(answer.body).includes(field), `${JSON.stringify(body)} names ${field}: ${JSON.stringify(answer.body)}`);
    }

    const before = await codesIn(owner.merchantId);
    const job = await api(owner.apiKey, "POST", "/api/jobs", { format: "codes", codeIds: [c, a, foreign, b, a], print: { sideMm: 25 } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    assert.deepEqual([job.body.total, job.body.failed], [5, 1], "the repeated id is refused before the job runs");
    const done = await finished(owner.apiKey, job.body.jobId);
    assert.deepEqual([done.state, done.created, done.reused, done.failed], ["done", 0, 3, 2], JSON.stringify(done));
    assert.equal(await codesIn(owner.merchantId), before, "a selection makes no code");
    const report = (await api(owner.apiKey, "GET", `/api/jobs/${job.body.jobId}/report`)).body.rows;
    assert.match(report.find((r: any) => r.row === 3).message, /No code .* in this workspace/);
    assert.match(report.find((r: any) => r.row === 5).message, /Same code as row 2/);

    const zip = readZip(Buffer.from(await (await fetch(done.packageUrl)).arrayBuffer()));
    assert.deepEqual([...zip.keys()].filter((k) => k !== "manifest.csv").sort(), [a, b, c].flatMap((id) => [`${id}.pdf`, `${id}.svg`]).sort());
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n").slice(1);
    assert.deepEqual(manifest.map((l) => l.split(",")[0]), [c, a, b], "in the order they were listed");
    for (const line of manifest) {
      const [codeId, , scanUrl, , svgDecoded, pdfDecoded] = line.split(",");
      assert.deepEqual([svgDecoded, pdfDecoded], ["true", "true"]);
      assert.equal((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload, scanUrl);
    }
    assert.ok(!zip.has(`${foreign}.svg`), "another workspace's code is not packaged");
  });

  it("points a big workspace's links at a new webhook: the first 2,000 in the request, the rest by background tasks", async () => {
    const shop = await createMerchant();
    const template = toolResult(await callTool("svc.qr.create", { title: "Template", destinationUrl: "https://shop.example/t", dynamic: true }, shop.apiKey));
    const stored = (await firestore().collection("workspaces").doc(shop.merchantId).collection("codes").doc(template.codeId).get()).data()!;
    // The in-request share is the product's constant; only the background part scales (600 at full size).
    const links = LINK_SYNC_IN_REQUEST + scaled(600, 100);
    for (let start = 1; start < links; start += 200) {
      const batch = db().batch();
      const codes = Array.from({ length: Math.min(200, links - start) }, (_, k) => ({
        ...(stored as QrCode),
        codeId: `sync${String(start + k).padStart(6, "0")}`,
        uniqueQRCodeID: `sync${shop.merchantId.slice(-6)}${start + k}`,
        createdAt: new Date(),
        updatedAt: new Date(),
      }));
      addNewCodes(batch, shop.merchantId, codes);
      await batch.commit();
    }
    const server = createServer((_req, res) => res.writeHead(200).end()).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const hook = toolResult(await callTool("svc.webhook.create", { url, events: ["scan.created"] }, shop.apiKey));
      const covered = async () =>
        (await firestore().collection("links").where("merchantId", "==", shop.merchantId).where("webhookIds", "array-contains", hook.webhookId).count().get()).data().count;
      const atOnce = await covered();
      assert.ok(atOnce >= LINK_SYNC_IN_REQUEST && atOnce < links, `${atOnce} links named the webhook when the call answered`);
      await eventually(covered, (n) => n === links, { timeoutMs: 120_000, what: "every link to name the webhook" });
      toolResult(await callTool("svc.webhook.delete", { webhookId: hook.webhookId }, shop.apiKey));
      await eventually(covered, (n) => n === 0, { timeoutMs: 120_000, what: "no link to name the deleted webhook" });
    } finally {
      server.close();
    }
  });

  it("refuses codes past the workspace's code quota before anything is written, on every creating path", async () => {
    const full = await createMerchant();
    // The workspace's counters say it holds one code less than the quota (1,000,000 on the local stack).
    await firestore().collection("workspaces").doc(full.merchantId).collection("codeCounts").doc("0").set({ total: 999_999 });
    const bulk = await api(full.apiKey, "POST", "/api/bulk-qr-codes", { urls: ["https://shop.example/1", "https://shop.example/2"] });
    assert.equal(bulk.status, 403, JSON.stringify(bulk.body));
    assert.equal(bulk.body.code, "FORBIDDEN");
    assert.match(bulk.body.message, /quota is 1000000/);
    assert.deepEqual(bulk.body.details, { quota: 1_000_000, total: 999_999, adding: 2 });
    const job = await api(full.apiKey, "POST", "/api/jobs", { format: "csv", csv: csvOf(2, "quota") });
    assert.equal(job.status, 403);
    assert.equal(await codesIn(full.merchantId), 0, "nothing was written");
    toolResult(await callTool("svc.qr.create", { title: "The last one", destinationUrl: "https://shop.example/last" }, full.apiKey));
    const over = await callTool("svc.qr.create", { title: "One too many", destinationUrl: "https://shop.example/over" }, full.apiKey);
    assert.equal(over.body.error.data.code, "FORBIDDEN", over.text);
    assert.equal(await codesIn(full.merchantId), 1);
  });
});
