// Catalogue jobs: thousands of codes made in the background (jobs/service.ts).
//
//   workspaces/{m}/jobs/{jobId}                  the job: state, counts, the first row errors, options
//   workspaces/{m}/jobs/{jobId}/chunks/{nnnn}    up to CHUNK_ROWS rows each, then each row's outcome
//   workspaces/{m}/jobs/{jobId}/packageParts/{nnnn}   the print package's parts, a slice of its codes each
//   workspaces/{m}/externalRefs/{hash}           which code a row's external reference made (never two)
//
// A chunk is done in one commit: its new codes, their references, its outcomes and the job's counts.
// So a chunk that dies midway leaves nothing, and its retry finds each reference it already wrote.
import { FieldValue, Timestamp, type DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../core/hash";
import { COLLECTIONS } from "./collections";
import { dateOf, dateOrNull, listOf, recordConverter } from "./records";

/** Rows per chunk: a commit of 100 codes, 100 links, 100 references and a few counters stays under 500 writes. */
export const CHUNK_ROWS = 100;
/** Row errors kept on the job document (all of them are in the chunks' outcomes and the job's report). */
export const JOB_ERRORS_KEPT = 100;
/** Days a job and its chunks are kept (TTL). */
export const JOB_RETENTION_DAYS = 30;

const jobsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("jobs");
const refsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("externalRefs");
export const jobRef = (merchantId: string, jobId: string) => jobsOf(merchantId).doc(jobId);
export const chunkRef = (merchantId: string, jobId: string, chunk: number) => jobRef(merchantId, jobId).collection("chunks").doc(String(chunk).padStart(4, "0"));
export const externalRefDoc = (merchantId: string, key: string) => refsOf(merchantId).doc(sha256Hex(key).slice(0, 40));

export type JobState = "running" | "packaging" | "done" | "failed";

export interface RowOutcome {
  row: number;
  outcome: "created" | "reused" | "failed";
  codeId?: string;
  message?: string;
}

export interface StoredJob {
  jobId: string;
  merchantId: string;
  state: JobState;
  /** rows: codes made from rows; codes: a print package of existing codes. */
  kind: "rows" | "codes";
  total: number;
  chunks: number;
  chunksDone: number;
  created: number;
  reused: number;
  failed: number;
  errors: Array<{ row: number; column?: string; message: string }>;
  publish: boolean;
  designPreset: string | null;
  print: { sideMm: number; sheets: { paper: "a4" | "letter"; labelMm?: number } | null } | null;
  packageUrl: string | null;
  packagePath: string | null;
  /** How far the print package's parts have come (jobs/service.ts). */
  packageCursor: PackageCursor;
  note: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

const expiry = (now: Date) => Timestamp.fromMillis(now.getTime() + JOB_RETENTION_DAYS * 86_400_000);

/** A job as stored under its workspace `merchantId`; counts an older job lacks read as 0. */
const jobRecord = (merchantId: string) =>
  recordConverter<StoredJob>((d, jobId) => ({
    jobId,
    merchantId,
    state: d.state,
    kind: d.kind === "codes" ? "codes" : "rows",
    total: d.total,
    chunks: d.chunks,
    chunksDone: d.chunksDone ?? 0,
    created: d.created ?? 0,
    reused: d.reused ?? 0,
    failed: (d.refused ?? 0) + (d.runFailed ?? 0),
    errors: listOf<StoredJob["errors"][number]>(d.errors),
    publish: Boolean(d.publish),
    designPreset: d.designPreset ?? null,
    print: d.print ?? null,
    packageUrl: d.packageUrl ?? null,
    packagePath: d.packagePath ?? null,
    packageCursor: { next: d.packageNext ?? 0, parts: d.packageParts ?? 0, pending: d.packagePending ?? null },
    note: d.note ?? null,
    createdBy: d.createdBy,
    createdAt: dateOf(d.createdAt),
    updatedAt: dateOf(d.updatedAt),
    finishedAt: dateOrNull(d.finishedAt),
  }));

/**
 * Writes a new job: its chunks first (in commits of about 1 MB), then the job document, so a job that
 * exists always has all its rows. Rows that failed validation are counted as failed from the start.
 */
export async function createJob(
  job: Pick<StoredJob, "jobId" | "merchantId" | "kind" | "total" | "publish" | "designPreset" | "print" | "createdBy" | "errors"> & { failed: number },
  chunks: DocumentData[][],
  now = new Date(),
): Promise<void> {
  const expiresAt = expiry(now);
  for (let i = 0; i < chunks.length; i += 20) {
    const batch = db().batch();
    chunks.slice(i, i + 20).forEach((rows, k) => batch.create(chunkRef(job.merchantId, job.jobId, i + k), { rows, done: false, expiresAt }));
    await batch.commit();
  }
  await jobRef(job.merchantId, job.jobId).create({
    state: "running",
    kind: job.kind,
    total: job.total,
    chunks: chunks.length,
    chunksDone: 0,
    created: 0,
    reused: 0,
    refused: job.failed,
    runFailed: 0,
    errors: job.errors.slice(0, JOB_ERRORS_KEPT),
    publish: job.publish,
    designPreset: job.designPreset,
    print: job.print,
    packageUrl: null,
    packagePath: null,
    note: null,
    createdBy: job.createdBy,
    createdAt: Timestamp.fromDate(now),
    updatedAt: Timestamp.fromDate(now),
    finishedAt: null,
    expiresAt,
  });
}

export async function readJob(merchantId: string, jobId: string): Promise<StoredJob | undefined> {
  return (await jobRef(merchantId, jobId).withConverter(jobRecord(merchantId)).get()).data();
}

export async function readChunk(merchantId: string, jobId: string, chunk: number): Promise<{ rows: DocumentData[]; done: boolean; outcomes: RowOutcome[] } | undefined> {
  const snap = await chunkRef(merchantId, jobId, chunk).get();
  return snap.exists ? { rows: snap.get("rows") ?? [], done: Boolean(snap.get("done")), outcomes: snap.get("outcomes") ?? [] } : undefined;
}

/** Which codes these external references already made (by key), in one round trip. */
export async function readExternalRefs(merchantId: string, keys: string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const snaps = await db().getAll(...keys.map((k) => externalRefDoc(merchantId, k)));
  const found = new Map<string, string>();
  snaps.forEach((s, i) => {
    if (s.exists) found.set(keys[i], s.get("codeId"));
  });
  return found;
}

/** Adds to a chunk's commit: the references of its new codes (create: a second writer fails the commit). */
export function addExternalRefs(batch: FirebaseFirestore.WriteBatch, merchantId: string, refs: Array<{ key: string; ref: string | null; codeId: string; jobId: string }>, now: Date): void {
  for (const r of refs) batch.create(externalRefDoc(merchantId, r.key), { ref: r.ref, codeId: r.codeId, jobId: r.jobId, createdAt: Timestamp.fromDate(now) });
}

/** Adds to a chunk's commit: its outcomes. The job's counts are set by its runner, at most once a second. */
export function addChunkDone(batch: FirebaseFirestore.WriteBatch, merchantId: string, jobId: string, chunk: number, outcomes: RowOutcome[]): void {
  batch.update(chunkRef(merchantId, jobId, chunk), { done: true, outcomes, rows: FieldValue.delete() });
}

export interface JobProgress {
  chunksDone: number;
  created: number;
  reused: number;
  /** Rows failed while running (rows refused before it are the job's `refused`). */
  failed: number;
}

export async function updateJob(
  merchantId: string,
  jobId: string,
  fields: Partial<Pick<StoredJob, "state" | "packageUrl" | "packagePath" | "note">> & { finishedAt?: Date; progress?: JobProgress },
): Promise<void> {
  const { progress, finishedAt, ...rest } = fields;
  const data: DocumentData = { ...rest, updatedAt: Timestamp.now() };
  if (finishedAt) data.finishedAt = Timestamp.fromDate(finishedAt);
  if (progress) Object.assign(data, { chunksDone: progress.chunksDone, created: progress.created, reused: progress.reused, runFailed: progress.failed });
  await jobRef(merchantId, jobId).update(data);
}

/** The codes a job's chunks made or reused, chunk by chunk (for its print package). */
export async function* jobCodeIds(merchantId: string, jobId: string, chunks: number): AsyncGenerator<string[]> {
  for (let i = 0; i < chunks; i++) {
    const c = await readChunk(merchantId, jobId, i);
    yield (c?.outcomes ?? []).flatMap((o) => (o.codeId ? [o.codeId] : []));
  }
}

// ---- the print package's parts ----

/**
 * `next`: the place, in the package's list of codes, of the first code no committed part holds; `parts`:
 * parts committed; `pending`: the object a slice is writing (or was, when its step died), deleted by the
 * next attempt so no half-written or uncommitted part is left behind.
 */
export interface PackageCursor {
  next: number;
  parts: number;
  pending: string | null;
}

/** A committed part: the codes of the list from `start` to before `end` (those that still exist), in `path`. */
export interface PackagePart {
  start: number;
  end: number;
  path: string;
}

const partRef = (merchantId: string, jobId: string, part: number) => jobRef(merchantId, jobId).collection("packageParts").doc(String(part).padStart(4, "0"));

/** Notes the object a slice is about to write (so a later attempt can delete it if this one dies). */
export async function notePendingPart(merchantId: string, jobId: string, path: string | null): Promise<void> {
  await jobRef(merchantId, jobId).update({ packagePending: path, updatedAt: Timestamp.now() });
}

/**
 * Commits a written part, if the cursor is still where the slice began (else another attempt got there
 * first: false, and the caller deletes its own object). One transaction: the part's record and the cursor.
 */
export async function commitPackagePart(merchantId: string, jobId: string, from: Pick<PackageCursor, "next" | "parts">, part: PackagePart, now = new Date()): Promise<boolean> {
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(jobRef(merchantId, jobId));
    if ((snap.get("packageNext") ?? 0) !== from.next || (snap.get("packageParts") ?? 0) !== from.parts) return false;
    tx.create(partRef(merchantId, jobId, from.parts), { ...part, expiresAt: expiry(now) });
    tx.update(jobRef(merchantId, jobId), { packageNext: part.end, packageParts: from.parts + 1, packagePending: null, updatedAt: Timestamp.fromDate(now) });
    return true;
  });
}

/** The committed parts, in order (at most one per slice of the package). */
export async function readPackageParts(merchantId: string, jobId: string, parts: number): Promise<PackagePart[]> {
  const out: PackagePart[] = [];
  for (let i = 0; i < parts; i += 100) {
    const refs = Array.from({ length: Math.min(100, parts - i) }, (_, k) => partRef(merchantId, jobId, i + k));
    for (const snap of await db().getAll(...refs)) {
      if (!snap.exists) throw new Error(`package part ${snap.id} of job ${jobId} is missing`);
      out.push({ start: snap.get("start"), end: snap.get("end"), path: snap.get("path") });
    }
  }
  return out;
}
