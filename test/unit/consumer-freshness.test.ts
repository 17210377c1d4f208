// The scan consumer's lag from its instances' heartbeats, the outbox and the redirect's arrival marks (scans/freshness.ts): what every analytics answer
// says as `lagSeconds` and `pending`. Time is passed in.
import assert from "node:assert/strict";
import { consumerLag, PENDING_LAG_MS, UNHEARD_MS } from "../../functions/src/scans/freshness";

const NOW = Date.parse("2026-11-29T12:00:00Z");
const beat = (instance: string, watermarkAgo: number, beatAgo: number, inFlight: number) => ({ instance, watermark: new Date(NOW - watermarkAgo), updatedAt: new Date(NOW - beatAgo), inFlight });

describe("scan consumer freshness", () => {
  it("no instance seen, or idle ones caught up when they last beat: no lag, not pending", () => {
    assert.deepEqual(consumerLag([], NOW), { lagging: false, lagSeconds: 0 });
    // Idle for five minutes: its watermark was its beat; the time since is not lag.
    assert.deepEqual(consumerLag([beat("a", 300_000, 300_000, 0)], NOW), { lagging: false, lagSeconds: 0 });
  });

  it("an instance holding arrivals is as far behind as the oldest, and falls further behind while it holds them", () => {
    assert.deepEqual(consumerLag([beat("a", 1_500, 500, 3)], NOW), { lagging: false, lagSeconds: 1 }, "its ordinary batching");
    assert.deepEqual(consumerLag([beat("a", PENDING_LAG_MS + 1, 0, 3)], NOW).lagging, true);
    // Died holding arrivals 40 s old, 60 s ago: 100 s behind now.
    assert.deepEqual(consumerLag([beat("a", 100_000, 60_000, 7)], NOW), { lagging: true, lagSeconds: 100 });
  });

  it("the consumer is as far behind as its furthest instance", () => {
    assert.deepEqual(consumerLag([beat("a", 0, 0, 0), beat("b", 12_400, 1_000, 2), beat("c", 5_000, 4_000, 0)], NOW), { lagging: true, lagSeconds: 12 });
  });

  it("arrivals waiting in the outbox (their publish failed: no instance holds them) count as lag, with no heartbeat at all", () => {
    assert.deepEqual(consumerLag([], NOW, { outboxSince: new Date(NOW - 45_000) }), { lagging: true, lagSeconds: 45 });
    assert.deepEqual(consumerLag([beat("a", 0, 0, 0)], NOW, { outboxSince: new Date(NOW - 500) }), { lagging: false, lagSeconds: 0 }, "one just written: the consumer's ordinary second");
    assert.deepEqual(consumerLag([beat("a", 12_400, 1_000, 2)], NOW, { outboxSince: new Date(NOW - 3_000) }), { lagging: true, lagSeconds: 12 }, "the larger of the two");
  });

  it("arrivals published after the last heartbeat of any instance (none received them) count as lag from the oldest of them", () => {
    const ago = (ms: number) => new Date(NOW - ms);
    // No consumer heard from at all (never deployed, or every push refused): the redirect's marks alone.
    assert.deepEqual(consumerLag([], NOW, { arrivals: [ago(40_000), ago(30_000), ago(1_000)] }), { lagging: true, lagSeconds: 40 });
    // Heard from 25 s ago, idle: the arrivals after that are waiting, not the one it had received.
    assert.deepEqual(consumerLag([beat("a", 25_000, 25_000, 0)], NOW, { arrivals: [ago(40_000), ago(20_000), ago(10_000)] }), { lagging: true, lagSeconds: 20 });
    // One instance heard from since, even another than the one that went quiet: they reached a consumer.
    assert.deepEqual(consumerLag([beat("a", 60_000, 60_000, 0), beat("b", 500, 500, 0)], NOW, { arrivals: [ago(40_000), ago(20_000), ago(1_000)] }), { lagging: false, lagSeconds: 0 });
    // Published within UNHEARD_MS: a consumer keeping up may not have beaten for it yet.
    assert.deepEqual(consumerLag([beat("a", 60_000, 60_000, 0)], NOW, { arrivals: [ago(UNHEARD_MS)] }), { lagging: false, lagSeconds: 0 });
    assert.deepEqual(consumerLag([beat("a", 60_000, 60_000, 0)], NOW, { arrivals: [ago(UNHEARD_MS + 1)] }), { lagging: true, lagSeconds: 3 });
  });
});
