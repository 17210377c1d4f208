// Counts the Firestore document operations the scan path performs, by kind, so that `npm run bench` can
// print what one scan costs (reads, writes, deletes as Firestore bills them). Plain counters in memory:
// an increment is all it costs on the hot path.
interface OpCounts {
  reads: number;
  writes: number;
  deletes: number;
}

const counts: OpCounts = { reads: 0, writes: 0, deletes: 0 };

export function countOps(ops: Partial<OpCounts>): void {
  counts.reads += ops.reads ?? 0;
  counts.writes += ops.writes ?? 0;
  counts.deletes += ops.deletes ?? 0;
}

export function opCounts(): OpCounts {
  return { ...counts };
}
