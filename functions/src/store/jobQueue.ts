// The catalogue queue on Cloud Tasks (run by jobs/task.ts, the catalogueJob function): a job's steps, and
// other background passes over a workspace's codes (webhooks/service.ts link sync). Here, below both, so
// that neither jobs/ nor webhooks/ needs the other to queue work.
import { randomBytes } from "node:crypto";
import { Timestamp } from "firebase-admin/firestore";
import { DEFAULT_REGION } from "../core/config";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { adminApp } from "../core/firebase";
import { sealTask } from "../core/taskSeal";
import type { JobProgress } from "./jobs";

const JOB_FUNCTION = "catalogueJob";

export interface JobStepTask {
  merchantId: string;
  jobId: string;
  step: "chunk" | "package";
  chunk?: number;
  /** Counts of the chunks before `chunk`. */
  progress?: JobProgress;
}

/** A workspace's webhook link sync, continued in the background from the link id `after` (webhooks/service.ts). */
export interface LinkSyncTask {
  merchantId: string;
  step: "links";
  after: string;
  /** The sync request the chain serves (readLinkSyncChain): a newer one restarts it from the first link. */
  generation?: number;
}

/** What the catalogue queue runs: a job's steps, and other background passes over a workspace's codes. */
export type JobTask = JobStepTask | LinkSyncTask;

/** `scheduleTime`: a step deferred because its workspace's share of the queue is in use (jobs/task.ts). */
export async function enqueueJobStep(task: JobTask, scheduleTime?: Date): Promise<void> {
  // Required here: the REST and tool functions load this module only when a job starts.
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  const queue = getFunctions(adminApp()).taskQueue<JobTask & { seal: string }>(`locations/${DEFAULT_REGION}/functions/${JOB_FUNCTION}`);
  await queue.enqueue(sealTask(task, "catalogueJob"), { dispatchDeadlineSeconds: 540, ...(scheduleTime ? { scheduleTime } : {}) });
}

// ---- A workspace's share of the catalogue queue (docs/decisions.md, "A workspace's share of the catalogue queue") ----
//   maintenance/jobSlots_{merchantId}   holders: { <jobId or "links">: until (ms) }, at most JOB_SLOTS_PER_WORKSPACE

/** Jobs (or its link sync) of one workspace whose steps may run at once; the queue runs 10 steps in all. */
export const JOB_SLOTS_PER_WORKSPACE = 2;
/** A holder's slot lapses this long after its step began (the step's timeout and a margin): a killed step frees it. */
export const JOB_SLOT_LEASE_MS = 600_000;

const slotsRef = (merchantId: string) => db().collection(COLLECTIONS.maintenance).doc(`jobSlots_${merchantId}`);

/**
 * Takes (or renews) a slot of the workspace for `holder` (a job id, or "links"): a token for its release,
 * or null when the others hold every slot and the step should wait. One transaction on one small document
 * a step (and one to release), whatever the workspace's size. A job's next step, queued by the running
 * one, takes the same holder's slot over; the earlier step's release then leaves it (tokens differ).
 */
export async function takeJobSlot(merchantId: string, holder: string, now = new Date()): Promise<string | null> {
  const token = randomBytes(6).toString("hex");
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(slotsRef(merchantId));
    const live = Object.entries((snap.get("holders") as Record<string, { until: number; token: string }> | undefined) ?? {}).filter(([h, v]) => h !== holder && v.until > now.getTime());
    if (live.length >= JOB_SLOTS_PER_WORKSPACE) return null;
    tx.set(slotsRef(merchantId), { merchantId, holders: Object.fromEntries([...live, [holder, { until: now.getTime() + JOB_SLOT_LEASE_MS, token }]]) });
    return token;
  });
}

/** Gives the holder's slot back once its step ends, unless a later step of the same holder has taken it over. */
export async function releaseJobSlot(merchantId: string, holder: string, token: string): Promise<void> {
  await db().runTransaction(async (tx) => {
    const snap = await tx.get(slotsRef(merchantId));
    const holders = { ...((snap.get("holders") as Record<string, { until: number; token: string }> | undefined) ?? {}) };
    if (holders[holder]?.token !== token) return;
    delete holders[holder];
    tx.set(slotsRef(merchantId), { merchantId, holders });
  });
}

// ---- One link-sync chain per workspace (docs/webhooks.md, "Links name their subscriptions") ----
//   maintenance/linkSync_{merchantId}   generation (bumped by every sync request that needs the background),
//                                       runningAt (the chain's last step, null when none runs)

/** A chain whose last step is older than this is taken for dead (its task out of attempts): a new request starts another. */
export const LINK_SYNC_CHAIN_STALE_MS = 15 * 60 * 1000;

const chainRef = (merchantId: string) => db().collection(COLLECTIONS.maintenance).doc(`linkSync_${merchantId}`);

/**
 * A sync request that needs the background: bumps the generation and answers whether to start a chain
 * (none runs) or not (one runs: it sees the new generation at its next step and starts over).
 */
export async function requestLinkSyncChain(merchantId: string, now = new Date()): Promise<{ generation: number; start: boolean }> {
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(chainRef(merchantId));
    const generation = ((snap.get("generation") as number | undefined) ?? 0) + 1;
    const runningAt = snap.get("runningAt") as Timestamp | null | undefined;
    const running = !!runningAt && now.getTime() - runningAt.toMillis() < LINK_SYNC_CHAIN_STALE_MS;
    tx.set(chainRef(merchantId), { merchantId, generation, runningAt: running ? runningAt : Timestamp.fromDate(now) });
    return { generation, start: !running };
  });
}

/** A chain's step: the generation it should serve now (a newer one means start over), noting that it runs. */
export async function continueLinkSyncChain(merchantId: string, now = new Date()): Promise<number> {
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(chainRef(merchantId));
    const generation = (snap.get("generation") as number | undefined) ?? 0;
    tx.set(chainRef(merchantId), { merchantId, generation, runningAt: Timestamp.fromDate(now) });
    return generation;
  });
}

/** The chain reached the last link serving `generation`: it ends, unless a newer request came meanwhile (then: the generation to restart with). */
export async function endLinkSyncChain(merchantId: string, generation: number): Promise<number | null> {
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(chainRef(merchantId));
    const current = (snap.get("generation") as number | undefined) ?? 0;
    if (current !== generation) return current;
    tx.set(chainRef(merchantId), { merchantId, generation, runningAt: null });
    return null;
  });
}

