// The rate limiter is shared across instances through Firestore: two limiters with their own instance
// ids (as two Cloud Functions instances would be) against the real emulator enforce one limit together.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { RateLimiter } from "../../functions/src/core/rateLimit";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { createMerchant } from "../helpers/merchants";

describe("rate limits across instances", () => {
  it("two instances that sync on every call share one budget exactly", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "toolCalls", 10);
    const a = new RateLimiter("instance-a", 0);
    const b = new RateLimiter("instance-b", 0);
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid, keyId: `key_${randomUUID().slice(0, 8)}` };
    const now = Date.now();
    const allowed: boolean[] = [];
    for (let i = 0; i < 16; i++) allowed.push((await (i % 2 ? a : b).take("toolCalls", subject, now)).allowed);
    assert.equal(allowed.filter(Boolean).length, 10);
    assert.deepEqual(allowed.slice(10), [false, false, false, false, false, false]);
    const standing = await a.peek("toolCalls", subject, now);
    assert.equal(standing.remaining, 0);
    assert.equal(standing.limit, 10);
  });

  it("instances that sync once a second overshoot by at most what they admitted in between", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "toolCalls", 20);
    const instances = [new RateLimiter("i1"), new RateLimiter("i2"), new RateLimiter("i3")];
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid };
    const start = Date.now();
    let admitted = 0;
    // Three rounds a second apart, each instance taking 10 calls per round.
    for (let round = 0; round < 3; round++) {
      for (const limiter of instances) for (let i = 0; i < 10; i++) if ((await limiter.take("toolCalls", subject, start + round * 1100)).allowed) admitted++;
    }
    assert.ok(admitted >= 20, `admitted ${admitted}`);
    assert.ok(admitted <= 20 + instances.length * 10, `admitted ${admitted}: bounded by one sync interval per instance`);
  });

  it("a new window starts a new budget", async () => {
    const merchant = await createMerchant();
    await writeRateLimitOverride(merchant.merchantId, "bulk", 1);
    const limiter = new RateLimiter("instance-w", 0);
    const subject = { merchantId: merchant.merchantId, uid: merchant.uid };
    const t = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
    assert.equal((await limiter.take("bulk", subject, t)).allowed, true);
    const refused = await limiter.take("bulk", subject, t + 1000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 58);
    assert.equal((await limiter.take("bulk", subject, t + 60_000)).allowed, true);
  });
});
