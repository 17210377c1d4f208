// Cursor pages over lists ordered by a time field, then document id (the tie-break), as indexed Firestore
// queries: each page is one query that starts after the previous page's last document, so every item comes
// exactly once however long the list. The cursor is opaque to callers: base64url of JSON
// [list, order, time in microseconds, document id], the same style as the code list's (codes/directory.ts).
// It names its list, so another list's cursor is refused; a forged or damaged one is VALIDATION_FAILED.
import { FieldPath, Timestamp, type Query, type QueryDocumentSnapshot } from "firebase-admin/firestore";
import { AppError } from "../core/errors";

type Order = "asc" | "desc";

const DOC_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Timestamp's own bounds (0001-01-01 to 9999-12-31), in microseconds: Firestore keeps microseconds. */
const MIN_MICROS = -62_135_596_800 * 1e6;
const MAX_MICROS = 253_402_300_799 * 1e6 + 999_999;

const microsOf = (t: Timestamp) => t.seconds * 1e6 + Math.floor(t.nanoseconds / 1000);

function timestampOf(micros: number): Timestamp {
  const seconds = Math.floor(micros / 1e6);
  return new Timestamp(seconds, (micros - seconds * 1e6) * 1000);
}

export function encodeTimeCursor(list: string, order: Order, at: Timestamp, id: string): string {
  return Buffer.from(JSON.stringify([list, order, microsOf(at), id]), "utf8").toString("base64url");
}

/** The four members of a cursor (base64url of a JSON array), or `invalid()` thrown. */
export function cursorParts(raw: string, invalid: () => AppError): [unknown, unknown, unknown, unknown] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  return parsed as [unknown, unknown, unknown, unknown];
}

export function decodeTimeCursor(raw: string, list: string, order: Order): [Timestamp, string] {
  const invalid = () => new AppError("VALIDATION_FAILED", "This cursor is not one this list gave", { hint: "Start again without a cursor." });
  const [l, o, micros, id] = cursorParts(raw, invalid);
  if (l !== list || o !== order || typeof micros !== "number" || !Number.isSafeInteger(micros) || micros < MIN_MICROS || micros > MAX_MICROS || typeof id !== "string" || !DOC_ID.test(id)) throw invalid();
  return [timestampOf(micros), id];
}

/**
 * One page of `query` ordered by `field` (a Timestamp) then document id, both in `order`, after `cursor`:
 * reads at most `limit + 1` documents. The single-field index on `field` serves it (the id follows the
 * field's direction), so no composite index is needed while `query` has no filters.
 */
export async function timeOrderedPage<T>(
  query: Query<T>,
  field: string,
  list: string,
  page: { limit: number; cursor?: string; order?: Order },
): Promise<{ docs: QueryDocumentSnapshot<T>[]; nextCursor: string | null }> {
  const order = page.order ?? "desc";
  let q = query.orderBy(field, order).orderBy(FieldPath.documentId(), order);
  if (page.cursor) q = q.startAfter(...decodeTimeCursor(page.cursor, list, order));
  const snap = await q.limit(page.limit + 1).get();
  const docs = snap.docs.slice(0, page.limit);
  const last = docs[docs.length - 1];
  const at = last?.get(field);
  if (last && !(at instanceof Timestamp)) throw new Error(`${list}: ${field} of ${last.id} is not a timestamp`);
  return { docs, nextCursor: snap.size > page.limit && last ? encodeTimeCursor(list, order, at as Timestamp, last.id) : null };
}
