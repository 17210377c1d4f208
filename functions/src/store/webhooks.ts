// Webhook subscriptions and their delivery log.
//   workspaces/{m}/webhooks/{webhookId}                       the endpoint: url, events, narrowing, sealed secrets, status
//   workspaces/{m}/webhooks/{webhookId}/deliveries/{msgId}    one delivery (its webhook-id), body and attempts; TTL 30 days
// Links carry `webhookIds`: the active scan.created subscriptions that match their code, so the redirect
// (which reads the link anyway) knows without another read whether a scan must be delivered anywhere.
import { FieldPath, FieldValue, Timestamp, type DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { queueMail, type MailMessage } from "./listings";
import { timeOrderedPage } from "./pageCursor";
import { dateOf, dateOrNull, listOf, recordConverter } from "./records";

export const WEBHOOK_EVENTS = ["scan.created", "code.created", "code.updated", "code.published"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A signing secret, sealed (webhooks/secrets.ts); an old one keeps signing until `expiresAt` after a rotation. */
export interface StoredSecret {
  sealed: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface Webhook {
  webhookId: string;
  merchantId: string;
  url: string;
  events: WebhookEvent[];
  /** Only these codes, or these campaigns (null: every code). */
  codeIds: string[] | null;
  campaigns: string[] | null;
  /** Also told about scans that are not a person's (bots, link previews, HEAD requests); off unless asked for. */
  machineScans: boolean;
  secrets: StoredSecret[];
  status: "active" | "disabled";
  /** When the first of the current run of failed attempts happened; null after a success. */
  failingSince: Date | null;
  /** Failed attempts in the current run (0 after a success). */
  failedRun: number;
  /** While failing: no attempt goes out before this time, so a failing endpoint takes one dispatch at a time. */
  probeAfter: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
  createdBy: string;
  /** The credential that created it: an API key's `key_…` or an OAuth grant's `grant_…`; null from a console session. */
  createdWith: string | null;
  /** Why it was disabled, shown to the owner; null while active. */
  disabledReason: WebhookDisabledReason | null;
}

/**
 * `failing`: a day of failed deliveries; `creator-left`: its creator is no longer a member;
 * `creator-disabled`: its creator's account is disabled or deleted; `credential-revoked`: the key or OAuth
 * grant that created it was revoked.
 */
export const WEBHOOK_DISABLED_REASONS = ["failing", "creator-left", "creator-disabled", "credential-revoked"] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

interface DeliveryAttempt {
  at: Date;
  attempt: number;
  ok: boolean;
  responseCode: number | null;
  latencyMs: number;
  /** At most 1 KB of the response body, or why there was no response. */
  detail: string;
}

export interface Delivery {
  deliveryId: string;
  webhookId: string;
  type: WebhookEvent;
  /** Events in the delivery (scans are batched). */
  count: number;
  body: string;
  status: "pending" | "retrying" | "succeeded" | "failed";
  attempts: DeliveryAttempt[];
  createdAt: Date;
}

const DELIVERY_LOG_DAYS = 30;
/** Attempts kept per delivery: a day of backoff capped at an hour is about 30. */
const ATTEMPTS_KEPT = 40;

const date = (v: unknown) => (v instanceof Timestamp ? v.toDate() : null);

/** A webhook as stored under its workspace `merchantId`; an older one lacks the later fields (null, 0, false). */
const webhookRecord = (merchantId: string) => recordConverter<Webhook>((d, id) => ({
  webhookId: id,
  merchantId,
  url: d.url,
  events: listOf<WebhookEvent>(d.events),
  codeIds: d.codeIds ?? null,
  campaigns: d.campaigns ?? null,
  machineScans: d.machineScans === true,
  secrets: listOf<DocumentData>(d.secrets).map((s) => ({ sealed: s.sealed, createdAt: dateOf(s.createdAt), expiresAt: dateOrNull(s.expiresAt) })),
  status: d.status,
  failingSince: date(d.failingSince),
  failedRun: typeof d.failedRun === "number" ? d.failedRun : 0,
  probeAfter: date(d.probeAfter),
  disabledAt: date(d.disabledAt),
  createdAt: dateOf(d.createdAt),
  createdBy: d.createdBy,
  createdWith: typeof d.createdWith === "string" ? d.createdWith : null,
  disabledReason: d.status === "disabled" ? ((d.disabledReason as WebhookDisabledReason | undefined) ?? "failing") : null,
}));

const webhooksOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("webhooks");
const webhookRecords = (merchantId: string) => webhooksOf(merchantId).withConverter(webhookRecord(merchantId));
const deliveriesOf = (merchantId: string, webhookId: string) => webhooksOf(merchantId).doc(webhookId).collection("deliveries");

const secretsData = (secrets: StoredSecret[]) =>
  secrets.map((s) => ({ sealed: s.sealed, createdAt: Timestamp.fromDate(s.createdAt), expiresAt: s.expiresAt ? Timestamp.fromDate(s.expiresAt) : null }));

export function newWebhookId(merchantId: string): string {
  return `wh_${webhooksOf(merchantId).doc().id}`;
}

/**
 * Saves a new webhook unless the workspace already has `max`: the count and the write are one transaction,
 * so concurrent creations can never pass the cap together. False when the cap is reached. The count locks the
 * collection's range, so creations racing in one workspace queue behind each other: 30 attempts (the SDK's
 * default is 5) let a burst of them all finish instead of failing with a contention error.
 */
export async function saveNewWebhook(w: Webhook, max: number): Promise<boolean> {
  return db().runTransaction(async (tx) => {
    if ((await tx.get(webhooksOf(w.merchantId).count())).data().count >= max) return false;
    tx.create(webhooksOf(w.merchantId).doc(w.webhookId), {
      url: w.url,
      events: w.events,
      codeIds: w.codeIds,
      campaigns: w.campaigns,
      machineScans: w.machineScans,
      secrets: secretsData(w.secrets),
      status: w.status,
      failingSince: null,
      failedRun: 0,
      probeAfter: null,
      disabledAt: null,
      createdAt: Timestamp.fromDate(w.createdAt),
      createdBy: w.createdBy,
      createdWith: w.createdWith,
      disabledReason: null,
    });
    return true;
  }, { maxAttempts: 30 });
}

export async function readWebhook(merchantId: string, webhookId: string): Promise<Webhook | undefined> {
  return (await webhookRecords(merchantId).doc(webhookId).get()).data();
}

export async function listWebhooks(merchantId: string): Promise<Webhook[]> {
  const snap = await webhookRecords(merchantId).orderBy("createdAt", "desc").limit(100).get();
  return snap.docs.map((d) => d.data());
}

export async function deleteWebhook(merchantId: string, webhookId: string): Promise<boolean> {
  const ref = webhooksOf(merchantId).doc(webhookId);
  const snap = await ref.get();
  if (!snap.exists) return false;
  await db().recursiveDelete(ref);
  return true;
}

export async function saveSecrets(merchantId: string, webhookId: string, secrets: StoredSecret[]): Promise<void> {
  await webhooksOf(merchantId).doc(webhookId).update({ secrets: secretsData(secrets) });
}

/**
 * After an attempt: a success clears the failure run (one write, only if one was running); a failure
 * starts or extends it and holds further attempts until `probeAfter`. While failing, at most one attempt
 * per interval goes out (claimProbe), so this writes about once per interval, never per queued delivery.
 */
export async function noteAttemptOutcome(merchantId: string, webhookId: string, ok: boolean, at: Date, failingSince: Date | null, probeAfter: Date | null = null): Promise<void> {
  if (ok && failingSince === null) return;
  const ref = webhooksOf(merchantId).doc(webhookId);
  if (ok) await ref.update({ failingSince: null, failedRun: 0, probeAfter: null });
  else await ref.update({ failingSince: Timestamp.fromDate(failingSince ?? at), failedRun: FieldValue.increment(1), probeAfter: probeAfter ? Timestamp.fromDate(probeAfter) : null });
}

/**
 * Claims the one attempt a failing endpoint may make until `until`: true for exactly one of any number of
 * concurrent callers (an update conditioned on the document's last update time, no transaction to contend).
 */
export async function claimProbe(merchantId: string, webhookId: string, now: Date, until: Date): Promise<boolean> {
  const ref = webhooksOf(merchantId).doc(webhookId);
  const snap = await ref.get();
  const after = date(snap.get("probeAfter"));
  if (!snap.exists || snap.get("status") !== "active" || (after && after > now)) return false;
  try {
    await ref.update({ probeAfter: Timestamp.fromDate(until) }, { lastUpdateTime: snap.updateTime! });
    return true;
  } catch {
    return false; // another attempt claimed it first
  }
}

export async function setWebhookStatus(merchantId: string, webhookId: string, status: Webhook["status"], at: Date, reason: WebhookDisabledReason = "failing"): Promise<void> {
  await webhooksOf(merchantId)
    .doc(webhookId)
    .update(
      status === "disabled"
        ? { status, disabledAt: Timestamp.fromDate(at), disabledReason: reason, probeAfter: null }
        : { status, disabledAt: null, failingSince: null, failedRun: 0, probeAfter: null, disabledReason: null },
    );
}

/** Disables an endpoint and queues its mail in one transaction; false if it was already disabled (one mail). */
export async function disableWithMail(merchantId: string, webhookId: string, at: Date, mail: (ownerUid: string) => Promise<MailMessage | null>): Promise<boolean> {
  const ref = webhooksOf(merchantId).doc(webhookId);
  const ownerUid = (await db().collection(COLLECTIONS.workspaces).doc(merchantId).get()).get("ownerUid") as string | undefined;
  const message = ownerUid ? await mail(ownerUid) : null;
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists || snap.get("status") === "disabled") return false;
    tx.update(ref, { status: "disabled", disabledAt: Timestamp.fromDate(at), disabledReason: "failing", probeAfter: null });
    if (message) queueMail(tx, message);
    return true;
  });
}

// ---- links: which scan subscriptions each code has ----

/** A link's scan subscriptions: every scan goes to `webhookIds`, a scan that is not a person's only to `machineWebhookIds`. */
export interface LinkSubscriptions {
  webhookIds: string[];
  machineWebhookIds: string[];
}

interface LinkTarget extends LinkSubscriptions {
  uniqueQRCodeID: string;
  codeId: string;
  campaign: string | null;
}

/** One page of a workspace's links with their current webhook ids, in id order after `after`; `next` is null on the last. */
export async function workspaceLinksPage(merchantId: string, after: string | null, limit: number): Promise<{ links: LinkTarget[]; next: string | null }> {
  let q = db().collection(COLLECTIONS.links).where("merchantId", "==", merchantId).orderBy(FieldPath.documentId()).limit(limit).select("codeId", "campaign", "webhookIds", "machineWebhookIds");
  if (after) q = q.startAfter(after);
  const snap = await q.get();
  const links = snap.docs.map((d) => ({ uniqueQRCodeID: d.id, codeId: d.get("codeId"), campaign: d.get("campaign") ?? null, webhookIds: d.get("webhookIds") ?? [], machineWebhookIds: d.get("machineWebhookIds") ?? [] }));
  return { links, next: snap.size === limit ? snap.docs[snap.size - 1].id : null };
}

/** Sets links' webhook ids, 500 writes per batch; an empty list removes its field (the redirect then does nothing). */
export async function setLinkWebhooks(changes: Array<{ uniqueQRCodeID: string } & LinkSubscriptions>): Promise<void> {
  for (let i = 0; i < changes.length; i += 500) {
    const batch = db().batch();
    for (const c of changes.slice(i, i + 500)) {
      batch.update(db().collection(COLLECTIONS.links).doc(c.uniqueQRCodeID), {
        webhookIds: c.webhookIds.length ? c.webhookIds : FieldValue.delete(),
        machineWebhookIds: c.machineWebhookIds.length ? c.machineWebhookIds : FieldValue.delete(),
      });
    }
    await batch.commit();
  }
}

// ---- the delivery log ----

/** A delivery as stored under its webhook `webhookId`. */
const deliveryRecord = (webhookId: string) =>
  recordConverter<Delivery>((d, id) => ({
    deliveryId: id,
    webhookId,
    type: d.type,
    count: d.count,
    body: d.body,
    status: d.status,
    // Attempts are written back whole by recordAttempt: each keeps every field it was stored with.
    attempts: listOf<DocumentData>(d.attempts).map((a) => ({ ...(a as DeliveryAttempt), at: dateOf(a.at) })),
    createdAt: dateOf(d.createdAt),
  }));
const deliveryRecords = (merchantId: string, webhookId: string) => deliveriesOf(merchantId, webhookId).withConverter(deliveryRecord(webhookId));

export async function readDelivery(merchantId: string, webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
  return (await deliveryRecords(merchantId, webhookId).doc(deliveryId).get()).data();
}

/** Writes a delivery's first record unless it exists (a retried task finds its own). */
export async function createDeliveryOnce(merchantId: string, d: Omit<Delivery, "attempts" | "status">): Promise<Delivery> {
  const ref = deliveriesOf(merchantId, d.webhookId).doc(d.deliveryId);
  try {
    await ref.create({
      type: d.type,
      count: d.count,
      body: d.body,
      status: "pending",
      attempts: [],
      createdAt: Timestamp.fromDate(d.createdAt),
      expiresAt: Timestamp.fromMillis(d.createdAt.getTime() + DELIVERY_LOG_DAYS * 86_400_000),
    });
    return { ...d, status: "pending", attempts: [] };
  } catch (error) {
    const existing = await readDelivery(merchantId, d.webhookId, d.deliveryId);
    if (!existing) throw error;
    return existing;
  }
}

export async function recordAttempt(merchantId: string, delivery: Delivery, attempt: DeliveryAttempt, status: Delivery["status"]): Promise<void> {
  const attempts = [...delivery.attempts, attempt].slice(-ATTEMPTS_KEPT).map((a) => ({ ...a, at: Timestamp.fromDate(a.at) }));
  await deliveriesOf(merchantId, delivery.webhookId).doc(delivery.deliveryId).update({ status, attempts });
}

/** One page of a webhook's delivery log, newest first (createdAt, then id), after `cursor` (store/pageCursor.ts). */
export async function listDeliveries(merchantId: string, webhookId: string, page: { limit: number; cursor?: string }): Promise<{ deliveries: Delivery[]; nextCursor: string | null }> {
  const { docs, nextCursor } = await timeOrderedPage(deliveryRecords(merchantId, webhookId), "createdAt", `deliveries:${webhookId}`, page);
  return { deliveries: docs.map((d) => d.data()), nextCursor };
}

/** A queued delivery that will never be attempted (its endpoint was disabled first): failed, kept for redelivery. */
export async function markUndelivered(merchantId: string, webhookId: string, deliveryId: string): Promise<void> {
  const ref = deliveriesOf(merchantId, webhookId).doc(deliveryId);
  await db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (snap.exists && (snap.get("status") === "pending" || snap.get("status") === "retrying")) tx.update(ref, { status: "failed" });
  });
}

/** A delivery set back to pending for a redelivery (same webhook-id, so receivers can tell it is the same message). */
export async function markRedelivery(merchantId: string, webhookId: string, deliveryId: string): Promise<void> {
  await deliveriesOf(merchantId, webhookId).doc(deliveryId).update({ status: "pending" });
}
