// Counts the Firestore document operations the scan path performs, by kind, so that `npm run bench` can
// print what one scan costs (reads, writes, deletes as Firestore bills them). Plain counters in memory:
// an increment is all it costs on the hot path.
interface OpCounts {
  reads: number;
  writes: number;
  deletes: number;
  /** Bytes of the documents read, where a path counts them (the code list). */
  bytesRead: number;
}

const counts: OpCounts = { reads: 0, writes: 0, deletes: 0, bytesRead: 0 };

export function countOps(ops: Partial<OpCounts>): void {
  counts.reads += ops.reads ?? 0;
  counts.writes += ops.writes ?? 0;
  counts.deletes += ops.deletes ?? 0;
  counts.bytesRead += ops.bytesRead ?? 0;
}

const countingBytes = process.env.SVC_COUNT_BYTES_READ === "1";

/** Counts the bytes of documents read (their JSON), only when SVC_COUNT_BYTES_READ=1 (the catalogue bench). */
export function countBytesRead(docs: ReadonlyArray<{ data(): unknown }>): void {
  if (countingBytes) for (const d of docs) counts.bytesRead += Buffer.byteLength(JSON.stringify(d.data()));
}

export function opCounts(): OpCounts {
  return { ...counts };
}

// Writes per document per clock second, for the traffic bench (the busiest document and its rate). Off
// unless SVC_COUNT_DOCUMENT_WRITES=1, so the scan path pays nothing for it in production.
let countingDocuments = process.env.SVC_COUNT_DOCUMENT_WRITES === "1";

/** Turns the per-document count on or off in a running process (store tests; a bench sets the variable). */
export function countDocumentWrites(on: boolean): void {
  countingDocuments = on;
}
const DOCUMENTS_TRACKED_MAX = 200_000;
const documentWrites = new Map<string, { second: number; inSecond: number; most: number; total: number }>();
let largestWrite = { bytes: 0, path: "" };

/** Notes one write of the document at `path` at time `now` (ms). */
export function countDocumentWrite(path: string, now: number, bytes = 0): void {
  if (!countingDocuments) return;
  const second = Math.floor(now / 1000);
  let d = documentWrites.get(path);
  if (!d) {
    if (documentWrites.size >= DOCUMENTS_TRACKED_MAX) documentWrites.clear();
    documentWrites.set(path, (d = { second, inSecond: 0, most: 0, total: 0 }));
  }
  if (d.second !== second) {
    d.second = second;
    d.inSecond = 0;
  }
  d.inSecond++;
  d.total++;
  d.most = Math.max(d.most, d.inSecond);
  if (bytes > largestWrite.bytes) largestWrite = { bytes, path };
}

/** The document written most often within one clock second, and the largest write seen. */
export function documentWriteStats(): { busiest: { path: string; writesInOneSecond: number; total: number } | null; documents: number; largestWrite: { bytes: number; path: string } } {
  let busiest: { path: string; writesInOneSecond: number; total: number } | null = null;
  for (const [path, d] of documentWrites) if (!busiest || d.most > busiest.writesInOneSecond || (d.most === busiest.writesInOneSecond && d.total > busiest.total)) busiest = { path, writesInOneSecond: d.most, total: d.total };
  return { busiest, documents: documentWrites.size, largestWrite };
}

export function resetDocumentWriteStats(): void {
  documentWrites.clear();
  largestWrite = { bytes: 0, path: "" };
}
