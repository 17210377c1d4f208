// The scan consumer's writes (scans/consume.ts): one transaction per batch of arrivals reads the guard
// documents of its people's scans and writes, atomically, the counted scans' events (each the guard of its
// visitor's day or minute slot, holding the scan's id `sid`), the newcomer slots, the batch's rollup
// changes (one merged change per rollup, in the consumer instance's own shards: store/rollups.ts) and the
// deletion of the outbox documents it drained. A redelivered scan finds its own id in a guard and is not
// counted again; a transaction that meets another instance's writes is retried by Firestore from its reads.
import { randomBytes } from "node:crypto";
import { Timestamp, type DocumentReference, type Transaction } from "firebase-admin/firestore";
import { db, withTimeout } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";
import { whenShardsFree, addRollupWrite } from "./rollups";
import { COMMIT_MARK_RETENTION_MS, commitLanded, eventData, mergedChanges, scanCommitMarks, scanEvents, type ScanClass, type ScanFacts } from "./scans";

/** What a guard document holds: the id of the scan it counted (`sid`; absent in a newcomer slot). */
export interface Guard {
  sid?: string;
}

export interface CountTransaction {
  /** Reads guard documents among a workspace's scan events, by id; absent ones map to null. */
  read(wanted: Array<{ merchantId: string; id: string }>): Promise<Map<string, Guard | null>>;
  /** Creates a counted person's event (its guard). */
  createEvent(facts: ScanFacts, eventId: string, unique: boolean, scanId: string): void;
  /** Creates a newcomer slot (scans/guards.ts), as store/scans.ts claimSlot does outside a transaction. */
  createSlot(merchantId: string, id: string, expiresAt: Date): void;
  /** Whether each outbox document still exists (read in the transaction, so two drains of one entry count it once). */
  present(refs: DocumentReference[]): Promise<boolean[]>;
  deleteOutbox(ref: DocumentReference): void;
}

/**
 * The longest one read of the transaction may take: past it the attempt fails (and is tried again by the
 * consumer, scans/consume.ts consumeHeld), where the SDK alone would wait for a read for minutes.
 */
export const COUNT_READ_MS = 5_000;

/** The key of a guard in `read`'s answer. */
export const guardKey = (merchantId: string, id: string) => `${merchantId}/${id}`;

/**
 * Transaction attempts before a batch is failed. Few: consumer instances rarely meet (their shards are their
 * own, guards are per visitor), and the SDK's backoff between attempts grows by half each time, so with ten
 * a batch met by a Firestore outage would still be backing off long after it ended. The consumer holds the
 * push and tries the batch again itself, at most a second apart (scans/consume.ts consumeHeld).
 */
const ATTEMPTS = 3;

/**
 * Runs `decide` in a transaction, then writes the rollup changes of the scans it returns (bots, repeats and
 * people alike) in this instance's free shards. Each batch proves its commit as the redirect's batches do
 * (store/scans.ts proofOf): its first person's event carries the batch's id (`cm`), or a batch without one
 * creates a mark `scanCommits/{id}`. A commit whose answer was lost (the SDK re-sends it and the closed
 * transaction refuses it, or Firestore aborts it after it landed) is read back: found, the batch is counted,
 * not failed, so Pub/Sub does not deliver it again and its machines and repeats count once.
 */
export async function countInTransaction(decide: (tx: CountTransaction) => Promise<Array<{ facts: ScanFacts; cls: ScanClass }>>): Promise<void> {
  const commitId = randomBytes(12).toString("base64url");
  let proof: DocumentReference | undefined;
  try {
    await db().runTransaction(
      async (tx: Transaction) => {
        // An attempt after a failed commit: if that commit landed, there is nothing left to write (and
        // `decide` is not run again, so its caller keeps the outcomes of the attempt that landed).
        if (proof) {
          const landed = await withTimeout(tx.get(proof), COUNT_READ_MS, "the consumer's commit proof read");
          countOps({ reads: 1 });
          if (landed.exists && landed.get("cm") === commitId) return;
        }
        proof = undefined;
        let reads = 0;
        let writes = 0;
        const api: CountTransaction = {
          async read(wanted) {
            const found = new Map<string, Guard | null>();
            if (!wanted.length) return found;
            const refs = wanted.map((w) => scanEvents(w.merchantId).doc(w.id));
            const snaps = await withTimeout(tx.getAll(...refs), COUNT_READ_MS, "the consumer's guard read");
            reads += refs.length;
            snaps.forEach((snap, i) => found.set(guardKey(wanted[i].merchantId, wanted[i].id), snap.exists ? { sid: snap.get("sid") as string | undefined } : null));
            return found;
          },
          createEvent(facts, eventId, unique, scanId) {
            const ref = scanEvents(facts.merchantId).doc(eventId);
            tx.create(ref, { ...eventData(facts, unique, commitId), sid: scanId });
            proof ??= ref;
            writes++;
          },
          createSlot(merchantId, id, expiresAt) {
            tx.create(scanEvents(merchantId).doc(id), { expiresAt: Timestamp.fromDate(expiresAt) });
            writes++;
          },
          async present(refs) {
            if (!refs.length) return [];
            const snaps = await withTimeout(tx.getAll(...refs), COUNT_READ_MS, "the consumer's outbox read");
            reads += refs.length;
            return snaps.map((snap) => snap.exists);
          },
          deleteOutbox(ref) {
            tx.delete(ref);
            writes++;
          },
        };
        const counted = await decide(api);
        const changes = mergedChanges(counted);
        if (!proof && changes.size) {
          // Only rollup increments would double if applied twice; outbox deletes repeat harmlessly.
          proof = scanCommitMarks(counted[0].facts.merchantId).doc(commitId);
          tx.create(proof, { cm: commitId, expiresAt: Timestamp.fromMillis(Date.now() + COMMIT_MARK_RETENTION_MS) });
          writes++;
        }
        await whenShardsFree([...changes.values()].map((c) => c.target), (now) => {
          for (const { target, counts } of changes.values()) addRollupWrite(tx, target, counts, now);
        });
        countOps({ reads, writes: writes + changes.size });
      },
      { maxAttempts: ATTEMPTS },
    );
  } catch (error) {
    if (proof && (await commitLanded(proof, commitId))) return;
    throw error;
  }
}

/** One scan consumer instance's heartbeat: its watermark and when it wrote it (at most once a second). */
export async function writeConsumerHeartbeat(instance: string, beat: { watermark: Date; inFlight: number; deadLetters?: number }): Promise<void> {
  const now = Date.now();
  await db()
    .collection(COLLECTIONS.scanConsumers)
    .doc(instance)
    .set({ watermark: Timestamp.fromDate(beat.watermark), inFlight: beat.inFlight, updatedAt: Timestamp.fromMillis(now), expiresAt: Timestamp.fromMillis(now + 86_400_000) });
  countOps({ writes: 1 });
}

export interface ConsumerHeartbeat {
  instance: string;
  watermark: Date;
  inFlight: number;
  updatedAt: Date;
}

/** The consumer instances' heartbeats of the last `withinMs` (a handful of documents). */
export async function readConsumerHeartbeats(now: number, withinMs: number): Promise<ConsumerHeartbeat[]> {
  const snap = await db()
    .collection(COLLECTIONS.scanConsumers)
    .where("updatedAt", ">=", Timestamp.fromMillis(now - withinMs))
    .get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ instance: d.id, watermark: (d.get("watermark") as Timestamp).toDate(), inFlight: d.get("inFlight") as number, updatedAt: (d.get("updatedAt") as Timestamp).toDate() }));
}
