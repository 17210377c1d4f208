// Putting catalogue job steps on their Cloud Tasks queue (jobs/task.ts).
import { DEFAULT_REGION } from "../core/config";
import { adminApp } from "../core/firebase";
import { sealTask } from "../core/taskSeal";
import type { JobTask } from "./service";

const JOB_FUNCTION = "catalogueJob";

export async function enqueueJobStep(task: JobTask): Promise<void> {
  // Required here: the REST and tool functions load this module only when a job starts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { getFunctions } = require("firebase-admin/functions") as typeof import("firebase-admin/functions");
  const queue = getFunctions(adminApp()).taskQueue<JobTask & { seal: string }>(`locations/${DEFAULT_REGION}/functions/${JOB_FUNCTION}`);
  await queue.enqueue(sealTask(task), { dispatchDeadlineSeconds: 540 });
}
