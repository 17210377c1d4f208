// The group commit's gather window (core/coalescer.ts gatherMs): after a call of one item the next goes at
// once; while items overlap, the next call starts no sooner than gatherMs after the last began, with
// everything that came meanwhile, unless maxBatch items wait.
import assert from "node:assert/strict";
import { Coalescer } from "../../functions/src/core/coalescer";

/** A coalescer whose call for item 0 waits for `release`, recording each call's items and start. */
function gated(maxBatch: number, gatherMs: number) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const calls: Array<{ items: number[]; at: number }> = [];
  const coalescer = new Coalescer<number, number>(
    async (items) => {
      calls.push({ items, at: performance.now() });
      if (items[0] === 0) await gate;
      return items;
    },
    maxBatch,
    undefined,
    gatherMs,
  );
  return { coalescer, calls, release };
}

describe("Coalescer gather window", () => {
  it("goes at once after a call of one item, and gathers for gatherMs once items overlap", async () => {
    const { coalescer: c, calls, release } = gated(100, 150);
    const first = c.submit(0);
    const overlapping = [c.submit(1), c.submit(2)];
    release();
    assert.deepEqual(await Promise.all([first, ...overlapping]), [0, 1, 2]);
    assert.ok(calls[1].at - calls[0].at < 150, "the call after a call of one item did not wait");
    assert.equal(await c.submit(3), 3);
    assert.deepEqual(calls.map((k) => k.items), [[0], [1, 2], [3]]);
    assert.ok(calls[2].at - calls[1].at >= 149, `the call after a call of two began ${calls[2].at - calls[1].at} ms after it`);
  });

  it("starts early when maxBatch items wait", async () => {
    const { coalescer: c, calls, release } = gated(3, 60_000);
    const first = c.submit(0);
    const overlapping = [c.submit(1), c.submit(2)];
    release();
    await Promise.all([first, ...overlapping]);
    // Within a 60 s window: only a full batch can start the call before the test's own timeout.
    assert.deepEqual(await Promise.all([c.submit(3), c.submit(4), c.submit(5)]), [3, 4, 5]);
    assert.deepEqual(calls.map((k) => k.items), [[0], [1, 2], [3, 4, 5]]);
  });
});
