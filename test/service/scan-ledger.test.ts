// The code list's stored 7- and 30-day people-scans come from the fold's deltas (the code's ledger,
// store/scanLedger.ts), never from re-reading its 30 day documents: after every fold and every local
// midnight they equal a count from scratch over the code's day rollups, at both windows' edges, for a
// workspace far from UTC. Time is passed in (the fold's `now`: the maintenance without its secrets'
// expiry, which a later `now` would apply to the stack's live secrets); nothing waits for a clock.
import assert from "node:assert/strict";
import { FieldValue } from "firebase-admin/firestore";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { foldAndCount } from "../../functions/src/scans/maintenance";
import { nextLocalMidnight, recountCodeScans } from "../../functions/src/scans/codeScanCounts";
import { localWindow } from "../../functions/src/scans/localTime";
import { LEDGER_DAYS_MAX } from "../../functions/src/store/scanLedger";
import { opCounts } from "../../functions/src/store/opCounter";

const ZONE = "Pacific/Auckland";

describe("scan ledger: the code list's 7- and 30-day scans from the fold's deltas", function () {
  this.timeout(180_000);
  let m: TestMerchant;
  let codeId: string;
  const ws = () => firestore().collection("workspaces").doc(m.merchantId);
  let slot = 0;

  /** A shard of the code's day holding `n` people's scans, as a consumer instance leaves it. */
  const shard = async (day: string, n: number) => {
    const id = `test${slot++}~0~${codeId}~${day}`;
    await ws().collection("codeDays").doc(id).create({ codeId, day, k: "none", shard: true, timeZone: ZONE, expiresAt: new Date(Date.parse(day) + 400 * 86_400_000), n, u: n });
  };
  /** The days `back` local days before `at`'s (0: today). */
  const dayBack = (at: Date, back: number) => localWindow(back + 1, ZONE, at)[0];
  /** The code's counts from scratch: every day rollup of the code (folded or not) in the window at `at`. */
  const fromScratch = async (at: Date) => {
    const window = localWindow(30, ZONE, at);
    const week = window[window.length - 7];
    const docs = (await ws().collection("codeDays").where("codeId", "==", codeId).get()).docs;
    let scans7 = 0;
    let scans30 = 0;
    for (const d of docs) {
      const day = d.get("day") as string;
      if (day < window[0] || day > window[window.length - 1]) continue;
      scans30 += d.get("n") as number;
      if (day >= week) scans7 += d.get("n") as number;
    }
    return { scans7, scans30 };
  };
  const stored = async () => {
    const doc = await ws().collection("codes").doc(codeId).get();
    return { scans7: doc.get("scans7") as number, scans30: doc.get("scans30") as number, ledger: doc.get("scansByDay") as Record<string, number> | undefined };
  };
  const agrees = async (at: Date, expected: { scans7: number; scans30: number }, label: string) => {
    const { scans7, scans30, ledger } = await stored();
    assert.deepEqual({ scans7, scans30 }, await fromScratch(at), `${label}: stored against from scratch`);
    assert.deepEqual({ scans7, scans30 }, expected, label);
    assert.ok(ledger && Object.keys(ledger).length <= LEDGER_DAYS_MAX, `${label}: ledger bounded`);
    assert.ok(Object.keys(ledger).every((day) => day >= localWindow(30, ZONE, at)[0]), `${label}: no day left the window in the ledger`);
  };

  before(async () => {
    m = await createMerchant();
    await ws().update({ timeZone: ZONE });
    codeId = toolResult(await callTool("svc.qr.create", { title: "Ledger", destinationUrl: "https://ledger.example/" }, m.apiKey)).codeId;
  });

  it("agree with a count from scratch after each fold, across local midnights and at both windows' edges", async () => {
    const now = new Date();
    // Today, the 7-day window's first day, the day before it, the 30-day window's first day and the day before it.
    await shard(dayBack(now, 0), 2);
    await shard(dayBack(now, 0), 1);
    await shard(dayBack(now, 6), 3);
    await shard(dayBack(now, 7), 5);
    await shard(dayBack(now, 29), 7);
    await shard(dayBack(now, 30), 11);
    const first = await foldAndCount(now);
    assert.ok(first.ledgersMoved >= 4, JSON.stringify(first));
    await agrees(now, { scans7: 6, scans30: 18 }, "first fold");

    // A second fold adds to folded days, today's and the edge's.
    await shard(dayBack(now, 0), 4);
    await shard(dayBack(now, 29), 1);
    await foldAndCount(now);
    await agrees(now, { scans7: 10, scans30: 23 }, "second fold");

    // The local midnight: the 7-day window's first day (3) and the 30-day window's first day (8) leave.
    const tomorrow = new Date(nextLocalMidnight(now, ZONE).getTime() + 60_000);
    assert.notEqual(dayBack(tomorrow, 0), dayBack(now, 0));
    const moved = await foldAndCount(tomorrow);
    assert.ok(moved.staleRecounted >= 1, JSON.stringify(moved));
    await agrees(tomorrow, { scans7: 7, scans30: 15 }, "after midnight");
    // A late shard of a day already out of the window is folded into its day and counts nowhere.
    await shard(dayBack(tomorrow, 30), 100);
    // And one of the new day.
    await shard(dayBack(tomorrow, 0), 2);
    await foldAndCount(tomorrow);
    await agrees(tomorrow, { scans7: 9, scans30: 17 }, "late shard");

    // Six more midnights: today's scans of the first day (7) are the last left in the 7-day window, then leave it.
    const later = new Date(tomorrow.getTime() + 5 * 86_400_000 + 3_600_000);
    await foldAndCount(later);
    await agrees(later, await fromScratch(later), "five days on");
    assert.equal((await stored()).scans7, 9);
    const week = new Date(nextLocalMidnight(later, ZONE).getTime() + 60_000);
    await foldAndCount(week);
    await agrees(week, { scans7: 2, scans30: 17 }, "a week on");
  });

  it("sums the ledger again with one read when the window moves, and seeds a code from before the ledger once", async () => {
    const now = new Date();
    const before = opCounts().reads;
    assert.ok(await recountCodeScans(m.merchantId, codeId, ZONE, now));
    assert.equal(opCounts().reads - before, 1, "the code document alone, no day rollup");

    // A code from before the ledger: its folded days are read once, then the fold keeps it.
    await ws().collection("codes").doc(codeId).update({ scansByDay: FieldValue.delete(), scans7: 0, scans30: 0 });
    await shard(dayBack(now, 1), 5);
    const run = await foldAndCount(now);
    assert.ok(run.ledgersSeeded >= 1, JSON.stringify(run));
    await agrees(now, await fromScratch(now), "seeded");
    assert.ok((await stored()).scans30 > 5, "the days folded before the ledger are counted");
    await shard(dayBack(now, 0), 1);
    const next = await foldAndCount(now);
    assert.ok(next.ledgersMoved >= 1);
    await agrees(now, await fromScratch(now), "after seeding, by delta");
  });
});
