// Catalogue jobs: up to JOB_MAX_ROWS codes from JSON or CSV, made in the background one chunk at a time
// (store/jobs.ts), then optionally a print package (jobs/printPackage.ts) in Cloud Storage.
//
// Exactly one code per row: each row has a key (its external reference, or the job and row number when it
// has none), and a chunk's codes are committed with their keys' documents (`create`, so a second writer
// fails). A chunk that dies midway wrote nothing; its retry reuses what an earlier attempt committed. So
// a job resumed after its function was killed, or the same rows sent again with their references, never
// makes a second code. Chunks run one after another per job (a task runs them for up to a minute, then
// enqueues the rest), so one workspace's big job takes one worker at a time and leaves the others to everyone else.
import { randomBytes } from "node:crypto";
import { AppError } from "../core/errors";
import { RateLimiter, rateLimitedError } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";
import { db } from "../core/firebase";
import { logError, logInfo } from "../core/log";
import { addNewCodes, readCodes } from "../store/codes";
import type { JobStepTask } from "../store/jobQueue";
import { addChunkDone, addExternalRefs, CHUNK_ROWS, commitPackagePart, createJob, jobCodeIds, notePendingPart, readChunk, readExternalRefs, readJob, readPackageParts, updateJob, type JobProgress, type RowOutcome, type StoredJob } from "../store/jobs";
import { assertCodeQuota, prepareCodes, settleFailedCommit, type NewCodeInput } from "../codes/service";
import { domainChoices } from "../codes/domains";
import { effectiveLook } from "../codes/look";
import { publishNewCodesInBatch } from "../store/publication";
import { imageStore } from "../store/images";
import type { QrCode } from "../codes/model";
import { parseJobInput, type JobInput, type JobRow } from "./rows";
import { assertDestinationAllowed } from "../abuse/service";
import type { CodeFiles, PrintPackageOptions, SliceLimits } from "./printPackage";

/** A print package of codes that exist already: their ids, in the package's order. */
export interface CodeSelection {
  format: "codes";
  codeIds: string[];
}

export interface StartJob {
  input: JobInput | CodeSelection;
  /** Publish the codes as they are made (people only: tools always draft). */
  publish: boolean;
  /** A saved brand preset for every code of the job. */
  designPreset?: string;
  /** A print package once the codes are made. */
  print?: { sideMm: number; sheets?: { paper: "a4" | "letter"; labelMm?: number } };
}

let limiter: RateLimiter | undefined;

export const newJobId = () => `job_${randomBytes(10).toString("hex")}`;

/** A row's key: its external reference, or (without one) its place in this job, so a resumed job reuses it. */
export const rowKey = (jobId: string, row: { row: number; externalRef: string | null }) => (row.externalRef ? `ref:${row.externalRef}` : `job:${jobId}:${row.row}`);

/** A selection's rows: each id once (a repeat is a refused row, so the package holds each code once). */
function selectionRows(codeIds: string[]) {
  const first = new Map<string, number>();
  const rows: Array<{ row: number; value: { codeId: string } }> = [];
  const errors: Array<{ row: number; column: string; message: string }> = [];
  codeIds.forEach((codeId, i) => {
    const earlier = first.get(codeId);
    if (earlier !== undefined) return void errors.push({ row: i + 1, column: "codeIds", message: `Same code as row ${earlier}` });
    first.set(codeId, i + 1);
    rows.push({ row: i + 1, value: { codeId } });
  });
  return { rows, errors, total: codeIds.length };
}

export async function startJob(merchantId: string, uid: string, start: StartJob, enqueue: (task: JobStepTask) => Promise<void>): Promise<StoredJob> {
  const selecting = start.input.format === "codes";
  if (selecting && !start.print) throw new AppError("VALIDATION_FAILED", "A job of existing codes makes a print package: it needs print", { hint: 'Add "print": {"sideMm": 30}.' });
  const parsed: { rows: Array<{ row: number; value: JobRow | { codeId: string } }>; errors: Array<{ row: number; column?: string; message: string }>; total: number } =
    start.input.format === "codes" ? selectionRows(start.input.codeIds) : parseJobInput(start.input);
  if (!parsed.rows.length) {
    throw new AppError("VALIDATION_FAILED", `No row can become a code: ${parsed.errors.length} of ${parsed.total} rows have errors`, {
      hint: "Fix the rows listed in details.errors and send the file again.",
      details: { errors: parsed.errors.slice(0, 100) },
    });
  }
  // At most the rows' count: rows whose references already made codes reuse them and take no quota.
  if (!selecting) await assertCodeQuota(merchantId, parsed.rows.length);
  // A package of existing codes makes no code, so the code quota does not bound it: packages have their own.
  if (selecting) {
    limiter ??= new RateLimiter(firestoreQuotaStore);
    const decision = await limiter.take("codePackages", { merchantId });
    if (!decision.allowed) throw rateLimitedError(decision);
  }
  const jobId = newJobId();
  const chunks: Array<Array<{ row: number; value: JobRow | { codeId: string } }>> = [];
  for (let i = 0; i < parsed.rows.length; i += CHUNK_ROWS) chunks.push(parsed.rows.slice(i, i + CHUNK_ROWS).map((r) => ({ row: r.row, value: r.value })));
  await createJob(
    {
      jobId,
      merchantId,
      kind: selecting ? "codes" : "rows",
      total: parsed.total,
      failed: parsed.errors.length,
      errors: parsed.errors.map((e) => ({ row: e.row, ...(e.column ? { column: e.column } : {}), message: e.message })),
      publish: start.publish,
      designPreset: start.designPreset ?? null,
      print: start.print ? { sideMm: start.print.sideMm, sheets: start.print.sheets ?? null } : null,
      createdBy: uid,
    },
    chunks.map((rows) => rows.map((r) => JSON.parse(JSON.stringify(r)))),
  );
  try {
    await enqueue({ merchantId, jobId, step: "chunk", chunk: 0 });
  } catch (error) {
    // A job no task will run must not look as if it were running.
    await updateJob(merchantId, jobId, { state: "failed", note: "The job could not be queued; nothing was made. Start it again.", finishedAt: new Date() });
    throw new AppError("UNAVAILABLE", "The job could not be queued; nothing was made", { hint: "Start the job again in a moment.", cause: error });
  }
  return (await readJob(merchantId, jobId))!;
}

/** Chunks one task runs before it hands the rest to a new task (a retry then redoes at most this much). */
const STEP_BUDGET_MS = 60_000;
/** The job's counts are written at most this often (one document, however fast its chunks go). */
const PROGRESS_INTERVAL_MS = 1_000;

const NO_PROGRESS: JobProgress = { chunksDone: 0, created: 0, reused: 0, failed: 0 };

/** One step of a job; safe to run again (a retry after a crash, or a duplicate task). */
export async function runJobStep(task: JobStepTask, enqueue: (task: JobStepTask) => Promise<void>, tuning: StepTuning = {}): Promise<void> {
  const job = await readJob(task.merchantId, task.jobId);
  if (!job || job.state === "done" || job.state === "failed") return;
  if (task.step === "package") return packageJob(job, enqueue, tuning.packageSlice ?? PACKAGE_SLICE);
  const started = Date.now();
  let flushed = started;
  // The counts of the chunks before this task's first come with the task, so a retry starts from them again.
  const progress = { ...(task.progress ?? NO_PROGRESS) };
  for (let chunk = task.chunk ?? 0; chunk < job.chunks; chunk++) {
    for (const o of await runChunk(job, chunk)) progress[o.outcome]++; // a chunk done by an earlier attempt is counted, not redone
    progress.chunksDone = chunk + 1;
    if (chunk + 1 === job.chunks) break;
    if (Date.now() - flushed >= PROGRESS_INTERVAL_MS) {
      await updateJob(job.merchantId, job.jobId, { progress });
      flushed = Date.now();
    }
    if (Date.now() - started > STEP_BUDGET_MS) return enqueue({ ...task, chunk: chunk + 1, progress });
  }
  if (job.print) {
    await updateJob(job.merchantId, job.jobId, { state: "packaging", progress });
    return enqueue({ merchantId: job.merchantId, jobId: job.jobId, step: "package" });
  }
  await updateJob(job.merchantId, job.jobId, { state: "done", progress, finishedAt: new Date() });
  logInfo("job.finished", "job finished", { merchantId: job.merchantId, jobId: job.jobId });
}

/** Makes one chunk's codes (or finds them made) and returns its rows' outcomes. */
async function runChunk(job: StoredJob, index: number): Promise<RowOutcome[]> {
  const chunk = await readChunk(job.merchantId, job.jobId, index);
  if (!chunk) return [];
  if (chunk.done) return chunk.outcomes;
  if (job.kind === "codes") return findChunkCodes(job, index, chunk.rows as Array<{ row: number; value: { codeId: string } }>);
  const rows = chunk.rows as Array<{ row: number; value: JobRow }>;
  const keys = rows.map((r) => rowKey(job.jobId, { row: r.row, externalRef: r.value.externalRef }));
  const existing = await readExternalRefs(job.merchantId, keys);
  const outcomes: RowOutcome[] = [];
  const fresh: Array<{ row: number; key: string; ref: string | null; input: NewCodeInput }> = [];
  const seen = new Map<string, number>();
  rows.forEach((r, i) => {
    const made = existing.get(keys[i]);
    if (made) return void outcomes.push({ row: r.row, outcome: "reused", codeId: made });
    // parseJobInput refuses a reference repeated within a file; a second row with one key still never makes a second code.
    if (seen.has(keys[i])) return void outcomes.push({ row: r.row, outcome: "failed", message: `Same external reference as row ${seen.get(keys[i])}` });
    seen.set(keys[i], r.row);
    const { externalRef, ...fields } = r.value;
    fresh.push({ row: r.row, key: keys[i], ref: externalRef, input: { ...fields, ...(job.designPreset ? { design: { preset: job.designPreset } } : {}) } as NewCodeInput });
  });
  // A blocklisted destination fails its own row only (prepareCodes would refuse the whole chunk).
  for (const f of [...fresh]) {
    try {
      await assertDestinationAllowed(f.input.destinationUrl, { merchantId: job.merchantId });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "DESTINATION_BLOCKED") throw error;
      outcomes.push({ row: f.row, outcome: "failed", message: error.message });
      fresh.splice(fresh.indexOf(f), 1);
    }
  }
  // A row naming a domain that is not the workspace's or not active fails alone, as a blocklisted one does.
  const choices = await domainChoices(job.merchantId, fresh.map((f) => ({ domainId: f.input.domainId, dynamic: effectiveLook(f.input).dynamic })));
  for (const [i, choice] of [...choices.entries()].reverse()) {
    if (choice.ok) continue;
    outcomes.push({ row: fresh[i].row, outcome: "failed", message: choice.error.message });
    fresh.splice(i, 1);
  }
  let codes: QrCode[] = [];
  if (fresh.length) {
    try {
      codes = await prepareCodes(job.merchantId, fresh.map((f) => f.input), "bulk");
    } catch (error) {
      // A row the service refuses whole (a design that does not scan): every fresh row of the chunk fails with
      // its reason, which the report shows; the job goes on.
      if (!(error instanceof AppError) || error.code === "INTERNAL" || error.code === "UNAVAILABLE") throw error;
      for (const f of fresh) outcomes.push({ row: f.row, outcome: "failed", message: error.message });
      fresh.length = 0;
    }
  }
  const now = new Date();
  const batch = db().batch();
  if (codes.length) {
    addNewCodes(batch, job.merchantId, codes);
    addExternalRefs(batch, job.merchantId, fresh.map((f, i) => ({ key: f.key, ref: f.ref, codeId: codes[i].codeId, jobId: job.jobId })), now);
    if (job.publish) publishNewCodesInBatch(batch, job.merchantId, codes, job.createdBy);
    fresh.forEach((f, i) => outcomes.push({ row: f.row, outcome: "created", codeId: codes[i].codeId }));
  }
  outcomes.sort((a, b) => a.row - b.row);
  addChunkDone(batch, job.merchantId, job.jobId, index, outcomes);
  try {
    await batch.commit();
  } catch (error) {
    // Another attempt committed this chunk (or one of its references) first, and nothing of this one
    // exists; or an ambiguous failure, after which images are kept unless this commit is seen applied.
    if ((await settleFailedCommit(job.merchantId, codes, error)) !== "written") throw error;
  }
  return outcomes;
}

/** A selection's chunk: each listed code found in the workspace (reused) or not (failed); nothing is made. */
async function findChunkCodes(job: StoredJob, index: number, rows: Array<{ row: number; value: { codeId: string } }>): Promise<RowOutcome[]> {
  const found = new Set((await readCodes(job.merchantId, rows.map((r) => r.value.codeId))).map((c) => c.codeId));
  const outcomes: RowOutcome[] = rows.map((r) =>
    found.has(r.value.codeId) ? { row: r.row, outcome: "reused", codeId: r.value.codeId } : { row: r.row, outcome: "failed", message: `No code ${r.value.codeId} in this workspace` },
  );
  const batch = db().batch();
  addChunkDone(batch, job.merchantId, job.jobId, index, outcomes);
  await batch.commit();
  return outcomes;
}

// ---- the print package ----
//
// Built in slices so no step draws more than a bounded share of it: each package step draws the next
// codes into a part (jobs/printPackage.ts, writePackagePart) until PACKAGE_SLICE's first limit, writes it
// to Storage, then commits the part's record and the cursor in one transaction and queues the next step.
// A step that dies or fails redoes only its own slice (its uncommitted object is deleted by the retry);
// the last step assembles the ZIP from the parts in order, with no drawing left, and deletes them.

const PACKAGE_READ = 100;

/** Where a slice stops: 1,000 codes, 4 minutes of drawing (the step's limit is 9), or 64 MiB of files. */
export const PACKAGE_SLICE: SliceLimits = { codes: 1_000, budgetMs: 240_000, bytes: 64 * 1024 * 1024 };

/** Options of a step a test may narrow (a slice of a few codes, to cross slices with a handful). */
export interface StepTuning {
  packageSlice?: SliceLimits;
}

/** The package's codes, in its order: each code once, however many rows named it. */
async function packageCodeIds(job: StoredJob): Promise<string[]> {
  const ids = new Set<string>();
  for await (const page of jobCodeIds(job.merchantId, job.jobId, job.chunks)) for (const id of page) ids.add(id);
  return [...ids];
}

/** The codes of `ids` that still exist, read a page at a time as the drawing asks for them. */
async function* codesOf(merchantId: string, ids: string[]): AsyncGenerator<QrCode> {
  for (let i = 0; i < ids.length; i += PACKAGE_READ) yield* await readCodes(merchantId, ids.slice(i, i + PACKAGE_READ));
}

export const packagePath = (merchantId: string, jobId: string) => `packages/${merchantId}/${jobId}.zip`;
const partPath = (merchantId: string, jobId: string, part: number) => `packages/${merchantId}/${jobId}/part-${String(part).padStart(4, "0")}-${randomBytes(4).toString("hex")}.zip`;

const packageOptions = (job: StoredJob): PrintPackageOptions => ({ sideMm: job.print!.sideMm, ...(job.print!.sheets ? { sheets: job.print!.sheets } : {}) });

async function packageJob(job: StoredJob, enqueue: (task: JobStepTask) => Promise<void>, slice: SliceLimits): Promise<void> {
  const ids = await packageCodeIds(job);
  const cursor = job.packageCursor;
  if (cursor.next >= ids.length) return assemblePackage(job, ids);
  const { writePackagePart } = require("./printPackage") as typeof import("./printPackage");
  // An earlier attempt at this slice that died (or lost its commit) left this object: never committed, so unused.
  if (cursor.pending) await imageStore().delete(cursor.pending);
  const path = partPath(job.merchantId, job.jobId, cursor.parts);
  await notePendingPart(job.merchantId, job.jobId, path);
  const { stream, stored } = imageStore().writeStream(path, "application/zip");
  const [written] = await Promise.all([writePackagePart(codesOf(job.merchantId, ids.slice(cursor.next)), packageOptions(job), stream, slice), stored]);
  const end = written.exhausted ? ids.length : ids.indexOf(written.lastCodeId!, cursor.next) + 1;
  if (!(await commitPackagePart(job.merchantId, job.jobId, cursor, { start: cursor.next, end, path }))) {
    await imageStore().delete(path); // another attempt committed this slice first
    return;
  }
  logInfo("job.package_part", "print package part written", { merchantId: job.merchantId, jobId: job.jobId, part: cursor.parts, start: cursor.next, end, codes: written.codes, bytes: written.bytes });
  await enqueue({ merchantId: job.merchantId, jobId: job.jobId, step: "package" });
}

/** The ZIP from the committed parts, which must cover the package's codes in order, each once. */
async function assemblePackage(job: StoredJob, ids: string[]): Promise<void> {
  const { assemblePrintPackage, readPackagePart } = require("./printPackage") as typeof import("./printPackage");
  const parts = await readPackageParts(job.merchantId, job.jobId, job.packageCursor.parts);
  parts.forEach((p, i) => {
    if (p.start !== (i ? parts[i - 1].end : 0)) throw new Error(`package part ${i} of job ${job.jobId} starts at ${p.start}, not where part ${i - 1} ended`);
  });
  if ((parts.at(-1)?.end ?? 0) !== ids.length) throw new Error(`the package parts of job ${job.jobId} end before its ${ids.length} codes`);
  async function* drawn(): AsyncGenerator<CodeFiles> {
    for (const p of parts) {
      const inRange = new Set(ids.slice(p.start, p.end));
      for (const files of readPackagePart(await imageStore().get(p.path))) {
        if (!inRange.delete(files.code.codeId)) throw new Error(`package part ${p.path} holds ${files.code.codeId}, not one of its own codes`);
        yield files;
      }
    }
  }
  const { stream, stored } = imageStore().writeStream(packagePath(job.merchantId, job.jobId), "application/zip");
  const [result, file] = await Promise.all([assemblePrintPackage(drawn(), packageOptions(job), stream), stored]);
  await updateJob(job.merchantId, job.jobId, {
    state: "done",
    packagePath: file.path,
    packageUrl: file.url,
    note: result.undecoded ? `${result.undecoded} codes did not decode back exactly: see manifest.csv` : null,
    finishedAt: new Date(),
  });
  logInfo("job.packaged", "job packaged", { merchantId: job.merchantId, jobId: job.jobId, codes: result.codes, bytes: result.bytes, parts: parts.length });
  // The parts are no longer needed once the ZIP is stored; one left by a failed delete is only bytes.
  await Promise.allSettled(parts.map((p) => imageStore().delete(p.path)));
}

/** Marks a job failed after its step's last attempt, with the reason a person can act on. */
export async function failJob(task: JobStepTask, error: unknown): Promise<void> {
  const reason = error instanceof AppError && error.code !== "INTERNAL" ? error.message : "An internal error stopped the job; codes made so far are kept";
  logError("job.step_failed", `job ${task.jobId} of ${task.merchantId} failed at its ${task.step} step`, error, { merchantId: task.merchantId, jobId: task.jobId, step: task.step });
  await updateJob(task.merchantId, task.jobId, { state: "failed", note: reason, finishedAt: new Date() });
}

/** A job as callers see it. */
export function publicJob(job: StoredJob) {
  return {
    jobId: job.jobId,
    state: job.state,
    total: job.total,
    progress: job.chunks ? Math.round((100 * job.chunksDone) / job.chunks) : 100,
    created: job.created,
    reused: job.reused,
    failed: job.failed,
    errors: job.errors,
    publish: job.publish,
    packageUrl: job.packageUrl,
    note: job.note,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

export async function getJob(merchantId: string, jobId: string) {
  const job = await readJob(merchantId, jobId);
  if (!job) throw new AppError("NOT_FOUND", "No job with this id in this workspace");
  return publicJob(job);
}

/** Every row's outcome, in row order (a report for a person or a tool): at most JOB_MAX_ROWS entries. */
export async function jobReport(merchantId: string, jobId: string): Promise<RowOutcome[]> {
  const job = await readJob(merchantId, jobId);
  if (!job) throw new AppError("NOT_FOUND", "No job with this id in this workspace");
  const out: RowOutcome[] = job.errors.map((e) => ({ row: e.row, outcome: "failed" as const, message: e.column ? `${e.column}: ${e.message}` : e.message }));
  for (let i = 0; i < job.chunks; i++) out.push(...((await readChunk(merchantId, jobId, i))?.outcomes ?? []));
  return out.sort((a, b) => a.row - b.row);
}
