// Managing subscriptions (the MCP tools and the console call these) and emitting code events.
import { z } from "zod";
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { ids } from "../core/ids";
import { httpUrl, text } from "../core/validation";
import { logError, logWebhookSecretIssued, logWebhookTargetRefused } from "../core/log";
import type { QrCode } from "../store/codes";
import {
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  markRedelivery,
  newWebhookId,
  readDelivery,
  readWebhook,
  saveNewWebhook,
  saveSecrets,
  setLinkWebhooks,
  setWebhookStatus,
  WEBHOOK_EVENTS,
  workspaceLinksPage,
  type Delivery,
  type LinkSubscriptions,
  type Webhook,
  type WebhookEvent,
} from "../store/webhooks";
import { covers, eventBody, newMessageId, type CodeNotice } from "./events";
import { enqueueDelivery } from "./queue";
import type { JobTask } from "../store/jobQueue";
import { afterRotation, newSigningSecret, sealSecret, secretBinding } from "./secrets";
import { targetProblem } from "./target";
import { getWorkspace } from "../store/workspaces";

/** Webhooks per workspace: few enough that svc.webhook.list answers them all at once, without pages. */
export const MAX_WEBHOOKS = 10;
export const MAX_OVERLAP_HOURS = 168;

export const webhookIdSchema = z.string().regex(/^wh_[A-Za-z0-9]{20}$/, "Must be a webhookId: wh_ and 20 letters and digits").describe("Webhook id from svc.webhook.create or svc.webhook.list");
export const deliveryIdSchema = z.string().regex(/^msg_[A-Za-z0-9_-]{16}$/, "Must be a deliveryId: msg_ and 16 characters").describe("Delivery id (its webhook-id header) from svc.webhook.deliveries");

export const NewWebhookSchema = z
  .object({
    url: httpUrl(2048).describe("Where deliveries are POSTed: https, port 443, a public address"),
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length).describe(`Events to receive: ${WEBHOOK_EVENTS.join(", ")}`),
    codeIds: z.array(ids.codeId).min(1).max(100).optional().describe("Only these codes (with campaigns: either matches)"),
    campaigns: z.array(text(100)).min(1).max(20).optional().describe("Only codes of these campaigns"),
    machineScans: z.boolean().optional().describe("Also send scans that are not a person's (bots, link previews, HEAD requests: human false). Default false"),
  })
  .strict();

export type NewWebhook = z.infer<typeof NewWebhookSchema>;

/** What callers see of an endpoint: never a secret. */
export function publicWebhook(w: Webhook) {
  return {
    webhookId: w.webhookId,
    url: w.url,
    events: w.events,
    codeIds: w.codeIds,
    campaigns: w.campaigns,
    machineScans: w.machineScans,
    status: w.status,
    failingSince: w.failingSince?.toISOString() ?? null,
    disabledAt: w.disabledAt?.toISOString() ?? null,
    disabledReason: w.disabledReason,
    createdAt: w.createdAt.toISOString(),
    secretsInUse: w.secrets.filter((s) => s.expiresAt === null || s.expiresAt > new Date()).length,
  };
}

const publicAttempt = (a: Delivery["attempts"][number]) => ({ at: a.at.toISOString(), attempt: a.attempt, ok: a.ok, responseCode: a.responseCode, latencyMs: a.latencyMs, detail: a.detail });

/** A delivery as callers see it: its last attempt, and with `allAttempts` every attempt the log keeps (up to 40, oldest first). */
export function publicDelivery(d: Delivery, allAttempts = false) {
  const last = d.attempts.at(-1);
  return {
    deliveryId: d.deliveryId,
    type: d.type,
    events: d.count,
    status: d.status,
    attempts: d.attempts.length,
    createdAt: d.createdAt.toISOString(),
    last: last ? publicAttempt(last) : null,
    ...(allAttempts ? { attemptLog: d.attempts.map(publicAttempt) } : {}),
  };
}

async function mustRead(merchantId: string, webhookId: string): Promise<Webhook> {
  const w = await readWebhook(merchantId, webhookId);
  if (!w) throw new AppError("NOT_FOUND", "Webhook not found");
  return w;
}

/** The scan subscriptions (active, scan.created) that cover a code, as its link keeps them, sorted. */
function subscriptionsOf(scanHooks: readonly Webhook[], code: { codeId: string; campaign: string | null }): LinkSubscriptions {
  const covering = scanHooks.filter((w) => covers(w, code));
  return { webhookIds: covering.map((w) => w.webhookId).sort(), machineWebhookIds: covering.filter((w) => w.machineScans).map((w) => w.webhookId).sort() };
}

/** Links a request syncs itself (a shop's whole workspace); a bigger one goes on in the background. */
export const LINK_SYNC_IN_REQUEST = 2_000;
/** Links one background task syncs before it hands the rest to the next. */
const LINK_SYNC_PER_TASK = 50_000;
const LINK_PAGE = 500;

type EnqueueJobStep = (task: JobTask) => Promise<void>;
const jobQueue = () => require("../store/jobQueue") as typeof import("../store/jobQueue");

/** Syncs links from `after`, up to `budget`; answers where it stopped (null when every link is done). */
async function syncLinkPages(merchantId: string, after: string | null, budget: number): Promise<string | null> {
  const hooks = await listWebhooks(merchantId);
  const scanHooks = hooks.filter((w) => w.status === "active" && w.events.includes("scan.created"));
  let cursor = after;
  let seen = 0;
  do {
    const page = await workspaceLinksPage(merchantId, cursor, Math.min(LINK_PAGE, budget));
    const same = (a: string[], b: string[]) => a.join() === [...b].sort().join();
    const changes = page.links.flatMap((link) => {
      const wanted = subscriptionsOf(scanHooks, link);
      return same(wanted.webhookIds, link.webhookIds) && same(wanted.machineWebhookIds, link.machineWebhookIds) ? [] : [{ uniqueQRCodeID: link.uniqueQRCodeID, ...wanted }];
    });
    await setLinkWebhooks(changes);
    cursor = page.next;
    seen += page.links.length;
  } while (cursor && seen < budget);
  return cursor;
}

/**
 * Points the workspace's links at their matching active scan subscriptions (and nothing else), so the
 * redirect learns from the link it reads anyway; only links whose list changes are written. Pages of 500
 * by cursor: up to `budget` links here, the rest by background tasks (jobs/task.ts), each reading the
 * subscriptions afresh. One background chain per workspace at a time: while one runs, a new request only
 * tells it to start over from the first link (store/jobQueue.ts requestLinkSyncChain), so a burst of
 * webhook changes costs one chain, not one each. Returns where the background goes on, or null when all
 * are done here.
 */
export async function syncLinkWebhooks(merchantId: string, budget = LINK_SYNC_IN_REQUEST, enqueue: EnqueueJobStep = (t) => jobQueue().enqueueJobStep(t)): Promise<string | null> {
  const cursor = await syncLinkPages(merchantId, null, budget);
  if (cursor) {
    const { generation, start } = await jobQueue().requestLinkSyncChain(merchantId);
    if (start) await enqueue({ merchantId, step: "links", after: cursor, generation });
  }
  return cursor;
}

/** A background step of a workspace's link sync (jobs/task.ts): from `after`, or from the first link when a newer request came. */
export async function continueLinkSync(merchantId: string, after: string, generation = 0, enqueue: EnqueueJobStep = (t) => jobQueue().enqueueJobStep(t), budget = LINK_SYNC_PER_TASK): Promise<void> {
  const current = await jobQueue().continueLinkSyncChain(merchantId);
  const from = current === generation ? after : null;
  let cursor = await syncLinkPages(merchantId, from, budget);
  let serving = current;
  while (!cursor) {
    const restart = await jobQueue().endLinkSyncChain(merchantId, serving);
    if (restart === null) return;
    serving = restart;
    cursor = await syncLinkPages(merchantId, null, budget);
  }
  await enqueue({ merchantId, step: "links", after: cursor, generation: serving });
}

/** `createdWith`: the caller's key or grant id (Caller.keyId), which the webhook then follows (creator.ts). */
export async function createWebhook(merchantId: string, uid: string, input: NewWebhook, createdWith: string | null = null): Promise<{ webhook: Webhook; secret: string }> {
  const local = getConfig().isEmulator;
  const problem = targetProblem(input.url, local);
  if (problem) {
    logWebhookTargetRefused({ merchantId, host: new URL(input.url).host, reason: problem });
    throw new AppError("VALIDATION_FAILED", `The webhook URL ${problem}`, { hint: "Use an https URL on port 443 at a public address." });
  }
  const full = () => new AppError("CONFLICT", `A workspace has at most ${MAX_WEBHOOKS} webhooks; delete one first`);
  if ((await listWebhooks(merchantId)).length >= MAX_WEBHOOKS) throw full(); // before sealing a secret; the transaction below decides
  const webhookId = newWebhookId(merchantId);
  const secret = newSigningSecret();
  const now = new Date();
  const webhook: Webhook = {
    webhookId,
    merchantId,
    url: input.url,
    events: [...new Set(input.events)],
    codeIds: input.codeIds ?? null,
    campaigns: input.campaigns ?? null,
    machineScans: input.machineScans ?? false,
    secrets: [{ sealed: sealSecret(secret, secretBinding({ merchantId, webhookId })), createdAt: now, expiresAt: null }],
    status: "active",
    failingSince: null,
    failedRun: 0,
    probeAfter: null,
    disabledAt: null,
    createdAt: now,
    createdBy: uid,
    createdWith,
    disabledReason: null,
  };
  if (!(await saveNewWebhook(webhook, MAX_WEBHOOKS))) throw full();
  logWebhookSecretIssued({ merchantId, webhookId, uid, rotated: false });
  if (webhook.events.includes("scan.created")) await syncLinkWebhooks(merchantId);
  return { webhook, secret };
}

/**
 * Removing a webhook or rotating its secret belongs to the member who added it and to the workspace's
 * owner, as with keys and connected apps: another member cannot cut off or take over someone else's.
 */
async function mustControl(merchantId: string, webhookId: string, uid: string): Promise<Webhook> {
  const webhook = await mustRead(merchantId, webhookId);
  if (webhook.createdBy === uid || (await getWorkspace(merchantId))?.ownerUid === uid) return webhook;
  throw new AppError("FORBIDDEN", "Only the member who added this webhook, or the workspace's owner, can remove it or rotate its secret");
}

export async function removeWebhook(merchantId: string, uid: string, webhookId: string): Promise<void> {
  await mustControl(merchantId, webhookId, uid);
  if (!(await deleteWebhook(merchantId, webhookId))) throw new AppError("NOT_FOUND", "Webhook not found");
  await syncLinkWebhooks(merchantId);
}

export async function enableWebhook(merchantId: string, webhookId: string): Promise<Webhook> {
  await mustRead(merchantId, webhookId);
  await setWebhookStatus(merchantId, webhookId, "active", new Date());
  await syncLinkWebhooks(merchantId);
  return mustRead(merchantId, webhookId);
}

/** A new secret signs from now on; the previous one keeps signing for `overlapHours` (both signatures sent); older ones end. */
export async function rotateSecret(merchantId: string, uid: string, webhookId: string, overlapHours: number): Promise<{ secret: string; previousValidUntil: string }> {
  const webhook = await mustControl(merchantId, webhookId, uid);
  const now = new Date();
  const until = new Date(now.getTime() + overlapHours * 3_600_000);
  const secret = newSigningSecret();
  const fresh = { sealed: sealSecret(secret, secretBinding(webhook)), createdAt: now, expiresAt: null };
  await saveSecrets(merchantId, webhookId, afterRotation(webhook.secrets, fresh, now, until));
  logWebhookSecretIssued({ merchantId, webhookId, uid, rotated: true });
  return { secret, previousValidUntil: until.toISOString() };
}

/** Queues a `webhook.test`-style ping: a code.updated-shaped body is not invented; the test event names itself. */
export async function sendTestEvent(merchantId: string, webhookId: string): Promise<{ deliveryId: string }> {
  const webhook = await mustRead(merchantId, webhookId);
  if (webhook.status !== "active") throw new AppError("CONFLICT", "This webhook is disabled; enable it first");
  const deliveryId = newMessageId();
  const type = webhook.events[0];
  await enqueueDelivery({ merchantId, webhookId, deliveryId, type, count: 0, body: eventBody(type, { test: true, webhookId }, new Date()) });
  return { deliveryId };
}

/** A page of the delivery log, newest first; `nextCursor` (null on the last page) continues it. */
export async function deliveriesPage(merchantId: string, webhookId: string, page: { limit: number; cursor?: string }) {
  await mustRead(merchantId, webhookId);
  const { deliveries, nextCursor } = await listDeliveries(merchantId, webhookId, page);
  return { deliveries: deliveries.map((d) => publicDelivery(d)), nextCursor };
}

/** How many deliveries a list shows when the caller names no limit: one default for the console and the tool. */
export const DELIVERIES_LISTED = 20;

/** The newest `limit` deliveries (the console's list). */
export async function deliveriesOf(merchantId: string, webhookId: string, limit = DELIVERIES_LISTED) {
  return (await deliveriesPage(merchantId, webhookId, { limit })).deliveries;
}

/** One delivery with every attempt the log keeps: a receiver that answered 500 three times, then 204, sees all four. */
export async function deliveryAttempts(merchantId: string, webhookId: string, deliveryId: string) {
  await mustRead(merchantId, webhookId);
  const delivery = await readDelivery(merchantId, webhookId, deliveryId);
  if (!delivery) throw new AppError("NOT_FOUND", "Delivery not found (the log keeps 30 days)");
  return publicDelivery(delivery, true);
}

/** Sends a logged delivery again, same webhook-id and body, signed afresh. */
export async function redeliver(merchantId: string, webhookId: string, deliveryId: string): Promise<void> {
  const webhook = await mustRead(merchantId, webhookId);
  if (webhook.status !== "active") throw new AppError("CONFLICT", "This webhook is disabled; enable it first");
  const delivery = await readDelivery(merchantId, webhookId, deliveryId);
  if (!delivery) throw new AppError("NOT_FOUND", "Delivery not found (the log keeps 30 days)");
  await markRedelivery(merchantId, webhookId, deliveryId);
  await enqueueDelivery({ merchantId, webhookId, deliveryId, type: delivery.type, count: delivery.count });
}

function codeNotice(code: QrCode): CodeNotice {
  return {
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    title: code.title ?? null,
    campaign: code.campaign ?? null,
    destinationUrl: code.destinationUrl,
    dynamic: code.dynamic,
    status: code.status,
  };
}

/**
 * Tells subscribers about changed codes (one query of the workspace's subscriptions per change, never per
 * scan). New codes also get their links' scan subscriptions here, since the code's writer does not know
 * them. Never fails the change.
 */
export async function emitCodeEvents(event: Exclude<WebhookEvent, "scan.created">, codes: readonly QrCode[]): Promise<void> {
  if (!codes.length) return;
  const merchantId = codes[0].merchantId;
  try {
    const active = (await listWebhooks(merchantId)).filter((w) => w.status === "active");
    const coversCode = (w: Webhook, c: QrCode) => covers(w, { codeId: c.codeId, campaign: c.campaign ?? null });
    if (event === "code.created") {
      const scanHooks = active.filter((w) => w.events.includes("scan.created"));
      const changes = codes.flatMap((c) => {
        const wanted = subscriptionsOf(scanHooks, { codeId: c.codeId, campaign: c.campaign ?? null });
        return wanted.webhookIds.length ? [{ uniqueQRCodeID: c.uniqueQRCodeID, ...wanted }] : [];
      });
      await setLinkWebhooks(changes);
    }
    const now = new Date();
    await Promise.all(
      active
        .filter((w) => w.events.includes(event))
        .flatMap((w) => {
          const covered = codes.filter((c) => coversCode(w, c));
          return covered.length ? [enqueueDelivery({ merchantId, webhookId: w.webhookId, deliveryId: newMessageId(), type: event, count: covered.length, body: eventBody(event, { codes: covered.map(codeNotice) }, now) })] : [];
        }),
    );
  } catch (error) {
    logError("webhook.code_event_failed", "webhook code event failed", error);
  }
}
