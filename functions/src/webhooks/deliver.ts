// One attempt of one delivery, as the queue function runs it: sign, send, log the attempt. A failure asks
// the queue to retry (its backoff). A failing endpoint is a tripped circuit: one attempt per probe interval
// goes out and every other delivery for it is queued again, unsent, for its next probe, so a slow or
// broken receiver holds at most one of the shared queue's dispatches, not one per queued event. After a
// run of failures (an hour and DISABLE_AFTER_FAILURES attempts without a success) it is disabled and the
// workspace's owner gets a mail.
import { getConfig } from "../core/config";
import { auth } from "../core/firebase";
import { logWarn, logWebhookCreatorGone, logWebhookDisabled } from "../core/log";
import {
  createDeliveryOnce,
  claimProbe,
  disableWithMail,
  markUndelivered,
  noteAttemptOutcome,
  readDelivery,
  readWebhook,
  recordAttempt,
  setWebhookStatus,
  type Webhook,
} from "../store/webhooks";
import { RateLimiter } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";
import { creatorVerdict } from "./creator";
import type { DeliveryTask } from "./queue";
import { openSecret, secretBinding, signatureHeader, signingSecrets } from "./secrets";
import { syncLinkWebhooks } from "./service";
import { postToTarget, targetGuards, type TargetGuards } from "./target";

/** An endpoint is disabled once it has failed this long and this many attempts in a row, without a success. */
export const DISABLE_AFTER_MS = 60 * 60 * 1000;
export const DISABLE_AFTER_FAILURES = 10;

let limiter: RateLimiter | undefined;

/** The shortest attempt worth sending: with less of its claim left, a failing endpoint's attempt waits for the next. */
export const MIN_CLAIMED_ATTEMPT_MS = 1_000;

/** What is left of a claimed attempt's deadline once `spentMs` have passed since its claim began; null if too little. */
export function deadlineWithinClaim(deadlineMs: number, spentMs: number): number | null {
  const left = deadlineMs - Math.max(0, spentMs);
  return left >= MIN_CLAIMED_ATTEMPT_MS ? left : null;
}

/**
 * `deferUntil`: back to the queue, unsent, as a new task dispatched then (queue.ts deferDelivery): the
 * workspace has spent its share of the queue this minute (`webhookAttempts`), or the endpoint is failing
 * and another attempt holds its probe.
 */
export type AttemptResult = "delivered" | "retry" | "dropped" | { deferUntil: Date };

/** A deferred scan notice older than this is dropped (logged): a flooded workspace's backlog stays bounded. */
export const DEFERRED_SCANS_MAX_AGE_MS = 60 * 60 * 1000;
/** Deferred tasks of one window spread over this much of the next, instead of all arriving at its first instant. */
const DEFER_SPREAD_MS = 20_000;

function signedHeaders(webhook: Webhook, deliveryId: string, body: string, now: Date): Record<string, string> {
  const secrets = signingSecrets(webhook.secrets, now).map((s) => openSecret(s.sealed, secretBinding(webhook)));
  const timestamp = Math.floor(now.getTime() / 1000);
  return { "webhook-id": deliveryId, "webhook-timestamp": String(timestamp), "webhook-signature": signatureHeader(secrets, deliveryId, timestamp, body) };
}

/**
 * `probeIntervalMs`: while an endpoint fails, the time between its attempts (the queue's first backoff step,
 * so a delivery handed back comes round again about when the next probe may go).
 */
export async function attemptDelivery(task: DeliveryTask, probeIntervalMs: number, guards: TargetGuards = targetGuards(getConfig().isEmulator), now = new Date()): Promise<AttemptResult> {
  const startedAt = Date.now();
  // The workspace's share first, before any read or write: a workspace over it costs the shared queue one
  // limiter check per task (most answered from the instance's memory), not the reads below and a log write.
  limiter ??= new RateLimiter(firestoreQuotaStore);
  const share = await limiter.take("webhookAttempts", { merchantId: task.merchantId }, now.getTime());
  if (!share.allowed) {
    if (task.type === "scan.created" && task.deferredSince !== undefined && now.getTime() - task.deferredSince > DEFERRED_SCANS_MAX_AGE_MS) {
      logWarn("webhook.deferral_dropped", "deferred scan notice dropped: its workspace was over its share for too long", { merchantId: task.merchantId, webhookId: task.webhookId, deliveryId: task.deliveryId, count: task.count, deferredSince: new Date(task.deferredSince).toISOString() });
      return "dropped";
    }
    return { deferUntil: new Date(share.resetAt.getTime() + Math.floor(Math.random() * DEFER_SPREAD_MS)) };
  }
  const webhook = await readWebhook(task.merchantId, task.webhookId);
  if (!webhook) return "dropped"; // deleted since: nothing to send, nothing to keep
  if (webhook.status !== "active") {
    // Disabled since it was queued: kept in the log as failed, for a redelivery once it is enabled again.
    await markUndelivered(task.merchantId, task.webhookId, task.deliveryId);
    return "dropped";
  }
  const gone = await creatorVerdict(webhook);
  if (gone) {
    await setWebhookStatus(task.merchantId, task.webhookId, "disabled", now, gone);
    logWebhookCreatorGone({ merchantId: task.merchantId, webhookId: task.webhookId, reason: gone });
    await syncLinkWebhooks(task.merchantId); // its links stop naming it: scans stop queueing for it
    return "dropped";
  }
  const delivery = task.body
    ? await createDeliveryOnce(task.merchantId, { deliveryId: task.deliveryId, webhookId: task.webhookId, type: task.type, count: task.count, body: task.body, createdAt: now })
    : await readDelivery(task.merchantId, task.webhookId, task.deliveryId);
  if (!delivery) return "dropped"; // a redelivery of a log entry that expired
  if (delivery.status === "succeeded" && task.body) return "delivered"; // the queue ran a finished task again
  // The claim covers the attempt itself (its deadline) and one interval after: one attempt in flight at a time.
  // It runs from when the attempt starts, not from the task's arrival: the reads above can take seconds on a
  // busy instance, and a claim spent on them would let a second attempt start beside this one.
  const claimedAt = Date.now();
  const claimFrom = new Date(now.getTime() + (claimedAt - startedAt));
  const claimUntil = new Date(claimFrom.getTime() + guards.deadlineMs + probeIntervalMs);
  // A failing endpoint's other deliveries come back when its next probe may go (the share unit stays spent:
  // a workspace whose endpoint fails cannot loop deferrals faster than its share).
  if (webhook.failingSince && !(await claimProbe(task.merchantId, task.webhookId, claimFrom, claimUntil))) return { deferUntil: claimUntil };
  // A claimed attempt ends within its claim: taking the claim and the limiter's share can themselves take
  // seconds on a busy instance, and an attempt that outlived its claim would overlap the next one.
  const deadlineMs = webhook.failingSince ? deadlineWithinClaim(guards.deadlineMs, Date.now() - claimedAt) : guards.deadlineMs;
  if (deadlineMs === null) return { deferUntil: claimUntil };

  const outcome = await postToTarget(webhook.url, signedHeaders(webhook, delivery.deliveryId, delivery.body, now), delivery.body, { ...guards, deadlineMs });
  const attempt = { at: now, attempt: delivery.attempts.length + 1, ...outcome };
  if (outcome.ok) {
    await Promise.all([recordAttempt(task.merchantId, delivery, attempt, "succeeded"), noteAttemptOutcome(task.merchantId, task.webhookId, true, now, webhook.failingSince)]);
    return "delivered";
  }
  const failingSince = webhook.failingSince ?? now;
  if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS && webhook.failedRun + 1 >= DISABLE_AFTER_FAILURES) {
    await recordAttempt(task.merchantId, delivery, attempt, "failed");
    if (await disableWithMail(task.merchantId, task.webhookId, now, (uid) => disabledMail(uid, webhook))) {
      logWebhookDisabled({ merchantId: task.merchantId, webhookId: task.webhookId, failingSince: failingSince.toISOString() });
      await syncLinkWebhooks(task.merchantId); // its links stop naming it: scans stop queueing for it
    }
    return "dropped";
  }
  await Promise.all([recordAttempt(task.merchantId, delivery, attempt, "retrying"), noteAttemptOutcome(task.merchantId, task.webhookId, false, now, webhook.failingSince, new Date(claimFrom.getTime() + outcome.latencyMs + probeIntervalMs))]);
  return "retry";
}

async function disabledMail(ownerUid: string, webhook: Webhook) {
  const email = (await auth().getUser(ownerUid)).email;
  if (!email) return null;
  const settings = `${getConfig().createUrl}#settings`;
  const text =
    `Your webhook endpoint ${webhook.url} (${webhook.webhookId}) has failed every delivery for over an hour (${DISABLE_AFTER_FAILURES} attempts in a row), so it has been disabled.\n` +
    `Deliveries that failed are kept in its log for 30 days. Fix the endpoint, enable it again and redeliver them in Settings → Webhooks: ${settings}\n`;
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return { to: email, message: { subject: "Webhook endpoint disabled", text, html: `<p>${esc(text).replace(/\n/g, "<br>")}</p>` } };
}
