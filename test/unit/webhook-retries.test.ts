// A failed webhook attempt is queued again by the service (webhooks/queue.ts), not left to Cloud Tasks'
// retries: the dispatch answers 2xx, so one tenant's failing receivers never answer the shared queue 503.
import assert from "node:assert/strict";
import { openTask } from "../../functions/src/core/taskSeal";
import { DELIVERY_ATTEMPTS_MAX, DELIVERY_RETRY_WINDOW_MS, nextRetryAt, retryDelivery, type DeliveryQueue, type DeliveryTask } from "../../functions/src/webhooks/queue";

const RING = "unit-test-delivery-key-0123456789abcdef";
const NOW = new Date("2026-11-29T10:00:00Z");
const task: DeliveryTask = { merchantId: "m_1", webhookId: "wh_a", deliveryId: "msg_1", type: "code.updated", count: 1, body: "{}" };

describe("webhook retries on the service's own schedule", () => {
  it("backs off from the first step, doubling up to an hour, and gives up after its attempts or 25 hours", () => {
    const after = (retries: number, retrySince?: number) => nextRetryAt({ ...task, retries, ...(retrySince === undefined ? {} : { retrySince }) }, 30_000, NOW)?.getTime();
    assert.equal(after(0), NOW.getTime() + 30_000);
    assert.equal(after(1, NOW.getTime()), NOW.getTime() + 60_000);
    assert.equal(after(3, NOW.getTime()), NOW.getTime() + 240_000);
    assert.equal(after(12, NOW.getTime()), NOW.getTime() + 3_600_000, "at most an hour");
    assert.equal(after(DELIVERY_ATTEMPTS_MAX - 1, NOW.getTime()), undefined, "its attempts spent");
    assert.equal(after(5, NOW.getTime() - DELIVERY_RETRY_WINDOW_MS), undefined, "its 25 hours spent");
    assert.equal(after(5, NOW.getTime() - DELIVERY_RETRY_WINDOW_MS + 1), NOW.getTime() + 960_000);
  });

  it("queues the retry as a sealed task with its scheduleTime, counting the attempt and keeping when the first failed", async () => {
    const saved = process.env.TASK_KEYS_WEBHOOK_DELIVERY;
    process.env.TASK_KEYS_WEBHOOK_DELIVERY = RING;
    try {
      const sent: Array<{ data: unknown; options: { dispatchDeadlineSeconds: number; scheduleTime?: Date } }> = [];
      const queue: DeliveryQueue = { enqueue: async (data, options) => void sent.push({ data, options }) };
      const at = new Date(NOW.getTime() + 30_000);
      await retryDelivery(task, at, NOW, queue);
      await retryDelivery({ ...task, retries: 1, retrySince: NOW.getTime() - 5_000 }, at, NOW, queue);
      assert.deepEqual(sent.map((s) => s.options), [
        { dispatchDeadlineSeconds: 30, scheduleTime: at },
        { dispatchDeadlineSeconds: 30, scheduleTime: at },
      ]);
      assert.deepEqual(openTask(sent[0].data, "webhookDelivery", NOW, RING), { ...task, retries: 1, retrySince: NOW.getTime() });
      assert.deepEqual(openTask(sent[1].data, "webhookDelivery", NOW, RING), { ...task, retries: 2, retrySince: NOW.getTime() - 5_000 });
    } finally {
      if (saved === undefined) delete process.env.TASK_KEYS_WEBHOOK_DELIVERY;
      else process.env.TASK_KEYS_WEBHOOK_DELIVERY = saved;
    }
  });
});
