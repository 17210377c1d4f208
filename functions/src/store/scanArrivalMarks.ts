// When the redirect's instances published arrivals: one document per instance, the times of its recent
// arrivals (the first of each ARRIVAL_MARK_MS window), written at most once every ARRIVAL_MARK_MS while it
// publishes, never per scan and never before a scan's answer. The consumer's freshness (scans/freshness.ts)
// sets them beside the consumer's heartbeats: an arrival published after the last time any consumer
// instance was heard from is waiting where no heartbeat shows it (Pub/Sub backing off after failed pushes,
// a consumer refused its pushes or not running).
import { randomBytes } from "node:crypto";
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { logWarn } from "../core/log";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";

/** An instance writes its marks at most this often. */
export const ARRIVAL_MARK_MS = 10_000;
/** How far back an instance's marks go (as far as freshness reads the consumer's heartbeats). */
export const ARRIVAL_MARKS_KEPT_MS = 10 * 60_000;

const INSTANCE = randomBytes(6).toString("base64url");

/** This instance's marks written or being written (oldest first), and the first arrival since the last write. */
let marks: number[] = [];
let unwritten: number | undefined;
let lastWrite = -Infinity;
let timer: NodeJS.Timeout | undefined;
let writing = false;

/** Notes an arrival published at `at` (ms): the first of a window is written at once, or when the window opens. */
export function noteArrivalPublished(at: number): void {
  if (unwritten !== undefined) return;
  unwritten = at;
  schedule();
}

function schedule(): void {
  if (timer || writing) return;
  timer = setTimeout(write, Math.max(0, lastWrite + ARRIVAL_MARK_MS - Date.now())).unref();
}

function write(): void {
  timer = undefined;
  const now = Date.now();
  marks = [...marks.filter((t) => t > now - ARRIVAL_MARKS_KEPT_MS), unwritten!];
  unwritten = undefined;
  lastWrite = now;
  writing = true;
  countOps({ writes: 1 });
  db()
    .collection(COLLECTIONS.scanArrivalMarks)
    .doc(INSTANCE)
    .set({ at: marks.map((t) => Timestamp.fromMillis(t)), updatedAt: Timestamp.fromMillis(now), expiresAt: Timestamp.fromMillis(now + 86_400_000) })
    .catch((error: unknown) => logWarn("scan.arrival_mark_failed", "the redirect's arrival marks were not written", { error: String(error) }))
    .finally(() => {
      writing = false;
      if (unwritten !== undefined) schedule();
    });
}

/** The arrival times every redirect instance marked in the last ARRIVAL_MARKS_KEPT_MS (a handful of documents). */
export async function readArrivalMarks(now: number): Promise<Date[]> {
  const snap = await db()
    .collection(COLLECTIONS.scanArrivalMarks)
    .where("updatedAt", ">=", Timestamp.fromMillis(now - ARRIVAL_MARKS_KEPT_MS))
    .get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.flatMap((d) => ((d.get("at") as Timestamp[] | undefined) ?? []).map((t) => t.toDate()));
}
