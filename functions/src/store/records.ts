// Typed records from stored documents. Each store gives its collections a converter made here
// (`ref.withConverter(...)`), so what it reads is a typed record, never raw document data. A reader is a
// plain field mapping, no schema parse (the redirect and every keyed request read through these): a
// Timestamp becomes a Date, and an optional field an older document lacks reads as null, so it still reads.
import { Timestamp, type DocumentData, type DocumentReference, type DocumentSnapshot, type FirestoreDataConverter, type QueryDocumentSnapshot, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";

/**
 * A converter whose reads map a stored document (and its id) with `read`. Its writes store a record's own
 * fields, Dates as Timestamps; stores that write other fields (server timestamps, expiries) write through
 * the plain reference.
 */
export function recordConverter<T>(read: (data: DocumentData, id: string) => T): FirestoreDataConverter<T> {
  return {
    toFirestore: (record) => Object.fromEntries(Object.entries(record as object).map(([k, v]) => [k, v instanceof Date ? Timestamp.fromDate(v) : v])),
    fromFirestore: (snap: QueryDocumentSnapshot) => read(snap.data(), snap.id),
  };
}

/** A stored time as a Date (a Timestamp, or an ISO string from an early write). */
export const dateOf = (v: unknown): Date => (v instanceof Timestamp ? v.toDate() : new Date(String(v)));
/** A stored time, or null when absent. */
export const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : dateOf(v));
/** A string field, or null when absent (or not a string). */
export const textOrNull = (v: unknown): string | null => (typeof v === "string" ? v : null);
/** An array field, or an empty one when absent. */
export const listOf = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

type RecordsOf<R> = { [K in keyof R]: R[K] extends DocumentReference<infer T> ? T | undefined : never };

/**
 * The records of several documents in one round trip (getAll, in `tx` when given), in the order asked;
 * absent ones undefined. getAll keeps each reference's converter; its declared type does not say so (nor
 * take references of different records), hence the casts.
 */
export async function readRecords<R extends ReadonlyArray<DocumentReference<unknown>>>(refs: readonly [...R], tx?: Transaction): Promise<RecordsOf<R>> {
  if (!refs.length) return [] as unknown as RecordsOf<R>;
  const plain = refs as unknown as DocumentReference[];
  const snaps = tx ? await tx.getAll(...plain) : await db().getAll(...plain);
  return snaps.map((snap) => (snap as DocumentSnapshot<unknown>).data()) as RecordsOf<R>;
}
