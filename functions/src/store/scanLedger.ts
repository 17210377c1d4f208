// The code list's 7- and 30-day people-scans (`scans7`, `scans30` on each code document, for its scans
// sorts: store/catalogue.ts), kept from the fold's deltas instead of re-read from the day rollups:
//
//   workspaces/{m}/codes/{codeId}   scansByDay   people-scans per local day of the code's 30-day window, as
//                                                folded (at most LEDGER_DAYS_MAX entries, index-exempt)
//
// The fold sets the day it folds to the folded document's new `n` in the same transaction (foldRollup), so
// the ledger holds exactly what the folded days hold, once; `scans7`/`scans30` are its sums over the
// window, recomputed whenever it is written. When the window moves (the workspace's local midnight,
// `scansStaleAt`) the maintenance drops the day that left and sums again from the ledger: one read of the
// code document. A code from before the ledger is seeded once from its folded days (refreshCodeScans).
import { FieldValue, Timestamp, type DocumentData, type DocumentReference, type DocumentSnapshot, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";

/** The ledger's field on a code document. */
export const LEDGER_FIELD = "scansByDay";
/** Days a ledger keeps at most: the 30 of the window and a couple ahead of it (a workspace's zone moved east). */
export const LEDGER_DAYS_MAX = 32;

/** The days a code's stored counts cover (the workspace's local days) and when they next move. */
export interface ScanWindow {
  /** The window's first day (30 days ago, local). */
  first: string;
  /** The first of its last 7 days. */
  week: string;
  /** Today, local. */
  last: string;
  /** The next local midnight. */
  movesAt: Date;
}

export const codeDocRef = (merchantId: string, codeId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codes").doc(codeId);

/** The stored counts from a ledger: its days still in (or ahead of) the window, and their sums over the last 7 and 30 days. */
export function ledgerFields(ledger: Record<string, number>, window: ScanWindow): DocumentData & { scans7: number; scans30: number } {
  const days = Object.entries(ledger)
    .filter(([day, n]) => day >= window.first && typeof n === "number" && n > 0)
    .sort((a, b) => b[0].localeCompare(a[0]))
    .slice(0, LEDGER_DAYS_MAX);
  let scans7 = 0;
  let scans30 = 0;
  for (const [day, n] of days) {
    if (day > window.last) continue; // counted once the window reaches it
    scans30 += n;
    if (day >= window.week) scans7 += n;
  }
  // scansStaleAt: when the window moves next; none for an empty ledger (nothing to move).
  return { [LEDGER_FIELD]: Object.fromEntries(days), scans7, scans30, scansStaleAt: days.length ? Timestamp.fromDate(window.movesAt) : FieldValue.delete() };
}

const ledgerOf = (code: DocumentSnapshot): Record<string, number> | undefined => code.get(LEDGER_FIELD) as Record<string, number> | undefined;

/**
 * In a fold's transaction (store/rollups.ts foldRollup): the code's ledger with `day` set to the folded
 * day's new people-scans. "unseeded": the code has no ledger yet (seed it with refreshCodeScans); "gone":
 * no such code (a GS1 item's rollups, a deleted code).
 */
export function foldIntoLedger(tx: Transaction, code: DocumentSnapshot, day: string, n: number, window: ScanWindow): "written" | "unseeded" | "gone" {
  if (!code.exists) return "gone";
  const ledger = ledgerOf(code);
  if (!ledger) return "unseeded";
  tx.update(code.ref, ledgerFields({ ...ledger, [day]: n }, window));
  return "written";
}

/**
 * Sums a code's ledger over the window as it now is (the window moved), or seeds the ledger of a code from
 * before it from its folded days (one query of at most 30 documents, once per code), in one transaction
 * with the folds. Undefined if the code is gone.
 */
export async function refreshCodeScans(merchantId: string, codeId: string, window: ScanWindow): Promise<{ scans7: number; scans30: number } | undefined> {
  const ref: DocumentReference = codeDocRef(merchantId, codeId);
  return db().runTransaction(async (tx) => {
    const code = await tx.get(ref);
    countOps({ reads: 1 });
    if (!code.exists) return undefined;
    let ledger = ledgerOf(code);
    if (!ledger) {
      const folded = await tx.get(
        db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("codeDays").where("codeId", "==", codeId).where("shard", "==", false).where("day", ">=", window.first).where("day", "<=", window.last),
      );
      countOps({ reads: Math.max(1, folded.size) });
      ledger = Object.fromEntries(folded.docs.map((d) => [d.get("day") as string, Number(d.get("n") ?? 0)]));
    }
    const fields = ledgerFields(ledger, window);
    tx.update(ref, fields);
    countOps({ writes: 1 });
    return { scans7: fields.scans7, scans30: fields.scans30 };
  });
}
