// The catalogue queue on Cloud Tasks (run by jobs/task.ts, the catalogueJob function): a job's steps, and
// other background passes over a workspace's codes (webhooks/service.ts link sync). Here, below both, so
// that neither jobs/ nor webhooks/ needs the other to queue work.
import { DEFAULT_REGION } from "../core/config";
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
}

/** What the catalogue queue runs: a job's steps, and other background passes over a workspace's codes. */
export type JobTask = JobStepTask | LinkSyncTask;

export async function enqueueJobStep(task: JobTask): Promise<void> {
  // Required here: the REST and tool functions load this module only when a job starts.
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  const queue = getFunctions(adminApp()).taskQueue<JobTask & { seal: string }>(`locations/${DEFAULT_REGION}/functions/${JOB_FUNCTION}`);
  await queue.enqueue(sealTask(task), { dispatchDeadlineSeconds: 540 });
}
