// The instance memory's bound (core/lru.ts): past its size it forgets the entry used longest ago, so an
// entry in use stays however many others pass by (a FIFO would forget it first).
import assert from "node:assert/strict";
import { LruMap } from "../../functions/src/core/lru";

describe("least-recently-used memory", () => {
  it("keeps an entry used again while many others pass, and forgets the one used longest ago", () => {
    const lru = new LruMap<string, number>(3);
    lru.set("hot", 1).set("a", 2).set("b", 3);
    for (let i = 0; i < 100; i++) {
      assert.equal(lru.get("hot"), 1, `still known after ${i} others`);
      lru.set(`cold${i}`, i);
      assert.ok(lru.size <= 3);
    }
    assert.equal(lru.has("a"), false);
    assert.equal(lru.get("cold98"), 98);
    lru.set("new", 0); // hot was last used before cold99 was set and cold98 read: it goes
    assert.equal(lru.has("hot"), false);
    assert.deepEqual([lru.has("cold98"), lru.has("cold99"), lru.has("new")], [true, true, true]);
    // Setting an entry again is a use and keeps the size.
    lru.set("cold99", 7);
    assert.equal(lru.size, 3);
    assert.equal(lru.delete("new"), true);
    assert.equal(lru.size, 2);
  });
});
