// The group commit's queue bounds (core/coalescer.ts): past maxQueued a submission is refused at once, and
// an item that waited past maxWaitMs for its call is refused unsent; what fits goes as before.
import assert from "node:assert/strict";
import { Coalescer } from "../../functions/src/core/coalescer";

describe("Coalescer bounds", () => {
  const refuse = (why: string) => Object.assign(new Error(why), { why });

  it("refuses a submission past maxQueued at once, and runs the rest in groups", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: number[][] = [];
    const c = new Coalescer<number, number>(
      async (items) => {
        calls.push(items);
        await gate;
        return items.map((i) => i * 2);
      },
      100,
      { maxQueued: 3, maxWaitMs: 60_000, refuse },
    );
    const first = c.submit(0); // in flight: the queue is empty again
    assert.equal(c.busy, true);
    const queued = [c.submit(1), c.submit(2), c.submit(3)];
    await assert.rejects(c.submit(4), { why: "queue-full" });
    assert.equal(c.queued, 3);
    release();
    assert.deepEqual(await Promise.all([first, ...queued]), [0, 2, 4, 6]);
    assert.deepEqual(calls, [[0], [1, 2, 3]]);
    assert.equal(c.busy, false);
  });

  it("refuses unsent an item that waited past maxWaitMs behind a slow call", async () => {
    const sent: number[] = [];
    const c = new Coalescer<number, number>(
      async (items) => {
        sent.push(...items);
        if (items.includes(0)) await new Promise((r) => setTimeout(r, 120));
        return items;
      },
      100,
      { maxQueued: 10, maxWaitMs: 50, refuse },
    );
    const slow = c.submit(0);
    const stale = c.submit(1); // waits 120 ms behind the first call: past its 50 ms
    assert.equal(await slow, 0);
    await assert.rejects(stale, { why: "waited-too-long" });
    assert.equal(await c.submit(2), 2, "a fresh item goes as usual");
    assert.deepEqual(sent, [0, 2], "the stale item was never sent");
  });
});
