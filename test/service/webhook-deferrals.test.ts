// Deferred webhook deliveries (docs/decisions.md, "Deferrals are scheduled tasks"): the workspace's share
// is taken before anything is read, and a deferral is a new task with a scheduleTime, not an error for the
// queue. The Cloud Tasks emulator ignores scheduleTime, so the enqueue request is checked as sent, and the
// delivery function is called in this process against the emulators.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createMerchant, firestore } from "../helpers/merchants";
import { openTask } from "../../functions/src/core/taskSeal";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { attemptDelivery, DEFERRED_SCANS_MAX_AGE_MS } from "../../functions/src/webhooks/deliver";
import { deferDelivery, type DeliveryQueue, type DeliveryTask } from "../../functions/src/webhooks/queue";
import { targetGuards } from "../../functions/src/webhooks/target";

const guards = targetGuards(true);

describe("webhook deferrals", function () {
  this.timeout(60_000);
  // Seals are made in this process here, under the local stack's key (as the functions make them).
  before(() => {
    process.env.TASK_KEYS_WEBHOOK_DELIVERY ??= /^TASK_KEYS_WEBHOOK_DELIVERY=(.+)$/m.exec(readFileSync("functions/.secret.local", "utf8"))![1];
  });

  it("queues a deferred delivery again as a sealed task with its scheduleTime, keeping when it was first deferred", async () => {
    const sent: Array<{ data: unknown; options: { dispatchDeadlineSeconds: number; scheduleTime?: Date } }> = [];
    const queue: DeliveryQueue = { enqueue: async (data, options) => void sent.push({ data, options }) };
    const task: DeliveryTask = { merchantId: "m1", webhookId: "wh_1", deliveryId: "msg_1", type: "scan.created", count: 3, body: "{}" };
    const now = new Date("2026-11-29T10:00:30Z");
    const at = new Date("2026-11-29T10:01:07Z");
    await deferDelivery(task, at, now, queue);
    await deferDelivery({ ...task, deferredSince: now.getTime() - 5_000 }, at, now, queue);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[0].options, { dispatchDeadlineSeconds: 30, scheduleTime: at });
    assert.deepEqual(openTask(sent[0].data, "webhookDelivery"), { ...task, deferredSince: now.getTime() });
    assert.equal((openTask(sent[1].data, "webhookDelivery") as any).deferredSince, now.getTime() - 5_000, "a deferral deferred again keeps its first time");
  });

  it("once the workspace's share is spent, defers to the next window before reading anything", async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "webhookAttempts", 1);
    const now = new Date();
    // A webhook that does not exist: read, it drops the task; deferred first, nothing is read at all.
    const task: DeliveryTask = { merchantId: m.merchantId, webhookId: "wh_none", deliveryId: "msg_deferral_test", type: "scan.created", count: 1, body: "{}" };
    assert.equal(await attemptDelivery(task, 1_000, guards, now), "dropped", "within the share: read, and dropped");
    const result = await attemptDelivery(task, 1_000, guards, now);
    assert.equal(typeof result, "object", `over the share: deferred, not ${JSON.stringify(result)}`);
    const nextWindow = (Math.floor(now.getTime() / 60_000) + 1) * 60_000;
    const at = (result as { deferUntil: Date }).deferUntil.getTime();
    assert.ok(at >= nextWindow && at < nextWindow + 20_000, `deferred to ${new Date(at).toISOString()}`);
    const logged = await firestore().collection("workspaces").doc(m.merchantId).collection("webhooks").doc("wh_none").collection("deliveries").get();
    assert.equal(logged.size, 0, "nothing written");
    // A scan notice deferred for longer than the bound is dropped instead of queued again.
    assert.equal(await attemptDelivery({ ...task, deferredSince: now.getTime() - DEFERRED_SCANS_MAX_AGE_MS - 1 }, 1_000, guards, now), "dropped");
  });
});
