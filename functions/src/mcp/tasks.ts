// MCP tasks (the 2026-07-28 extension io.modelcontextprotocol/tasks, SEP-2663) over the service's own
// background work. A client that declares the extension in a request's `_meta` clientCapabilities gets a
// task from a tools/call of a task-running tool (svc.job.start: the task id is the job id), and follows it
// with tasks/get (the tool's result inlined once it is done), tasks/update and tasks/cancel. Every task is
// read from Firestore in the caller's workspace: no state lives in an instance, and another workspace's
// task id is as unknown as one never issued. Clients without the extension keep the job id and
// svc.job.get. Rules and sources: docs/mcp.md, "Tasks".
import { z } from "zod";
import { AppError } from "../core/errors";
import { isLocal } from "../core/config";
import { parseOrThrow } from "../core/validation";
import { logTaskCancelled } from "../core/log";
import { requireScope, type Caller } from "../auth/caller";
import { readJob, JOB_RETENTION_DAYS } from "../store/jobs";
import { FIXTURE_TASK_TTL_MS, readFixtureTask, updateFixtureTask, type FixtureTask } from "../store/mcpTasks";
import { publicJob } from "../jobs/service";
import { callToolResult, type TaskView } from "./tool";
import { jobGetTool } from "./tools/jobGet";
import { TASKS_EXTENSION } from "./era2026";


const JOB_TASK = /^job_[0-9a-f]{20}$/;
export const FIXTURE_TASK = /^tsk_[0-9a-f]{20}$/;
const JOB_POLL_MS = 2_000;
const FIXTURE_POLL_MS = 200;

/** True when a request's clientCapabilities declare the tasks extension. */
export function negotiatesTasks(clientCapabilities: Record<string, unknown> | undefined): boolean {
  const extensions = clientCapabilities?.extensions;
  return typeof extensions === "object" && extensions !== null && typeof (extensions as Record<string, unknown>)[TASKS_EXTENSION] === "object";
}

/** -32021 (MissingRequiredClientCapability) naming the extension, as SEP-2575 and SEP-2663 ask. */
export function tasksCapabilityMissing(what: string): AppError {
  return new AppError("MISSING_CLIENT_CAPABILITY", `${what} needs the ${TASKS_EXTENSION} extension, which this request did not declare`, {
    hint: `Declare it in _meta["io.modelcontextprotocol/clientCapabilities"].extensions["${TASKS_EXTENSION}"] (protocol 2026-07-28).`,
    details: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  });
}

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });
const TaskUpdateParams = z.looseObject({ taskId: z.string().min(1).max(200), inputResponses: z.record(z.string().max(200), z.unknown()) });

const unknownTask = () =>
  new AppError("TASK_NOT_FOUND", "No task with this id in this workspace", { hint: "Task ids come from a tools/call answered with resultType \"task\", with a key of the same workspace." });

/** The CreateTaskResult of a tools/call: the task's fields at the top level, never its result. */
export function createTaskResult(task: TaskView): Record<string, unknown> {
  const { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, statusMessage } = task;
  return { resultType: "task", taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs, ...(statusMessage ? { statusMessage } : {}) };
}

// ---- Catalogue jobs as tasks: the job is the task (same id, same document, same retention).

type PublicJob = ReturnType<typeof publicJob>;

/** A job as a task: running and packaging are working; done and failed jobs completed with svc.job.get's result. */
export function jobTask(job: PublicJob): TaskView {
  const finished = job.state === "done" || job.state === "failed";
  return {
    taskId: job.jobId,
    status: finished ? "completed" : "working",
    createdAt: job.createdAt,
    lastUpdatedAt: job.updatedAt,
    ttlMs: JOB_RETENTION_DAYS * 86_400_000,
    pollIntervalMs: JOB_POLL_MS,
    ...(job.note ? { statusMessage: job.note } : {}),
    // A job that failed ran and reported it: a tool error (isError), not a protocol failure.
    ...(finished ? { result: callToolResult({ result: job, summary: jobGetTool.summarize(job) }, job.state === "failed") } : {}),
  };
}

async function readJobTask(caller: Caller, taskId: string, method: string): Promise<TaskView> {
  requireScope(caller, jobGetTool.scope, `${method} of a catalogue job`);
  const job = await readJob(caller.merchantId, taskId);
  if (!job) throw unknownTask();
  return jobTask(publicJob(job));
}

// ---- Fixture tasks (emulators only): the status follows from the document and the clock.

export function fixtureTask(task: FixtureTask, now = new Date()): TaskView {
  const base = {
    taskId: task.taskId,
    createdAt: task.createdAt.toISOString(),
    ttlMs: FIXTURE_TASK_TTL_MS,
    pollIntervalMs: FIXTURE_POLL_MS,
  };
  const updated = (at: Date) => ({ lastUpdatedAt: (at > task.updatedAt ? at : task.updatedAt).toISOString() });
  if (task.cancelledAt) return { ...base, ...updated(task.cancelledAt), status: "cancelled" };
  if (Object.keys(task.pending).length) return { ...base, ...updated(task.updatedAt), status: "input_required", inputRequests: task.pending };
  if (now < task.dueAt) return { ...base, ...updated(task.updatedAt), status: "working" };
  const settled = updated(task.dueAt);
  return "error" in task.outcome ? { ...base, ...settled, status: "failed", error: task.outcome.error } : { ...base, ...settled, status: "completed", result: task.outcome.result };
}

const isTerminal = (task: TaskView) => task.status === "completed" || task.status === "failed" || task.status === "cancelled";

async function fixtureOrUnknown<T>(found: Promise<T | undefined>): Promise<T> {
  const task = await found;
  if (!task) throw unknownTask();
  return task;
}

// ---- The three methods. Each answers only the caller's workspace.

/** tasks/get: the DetailedTask (result or error inlined once terminal). */
async function getTask(caller: Caller, taskId: string): Promise<TaskView> {
  if (JOB_TASK.test(taskId)) return readJobTask(caller, taskId, "tasks/get");
  if (FIXTURE_TASK.test(taskId) && isLocal()) return fixtureTask(await fixtureOrUnknown(readFixtureTask(caller.merchantId, taskId)));
  throw unknownTask();
}

/** tasks/update: answers to a task's input requests; answered keys leave `inputRequests`, unknown keys are ignored. */
async function updateTask(caller: Caller, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
  // A job asks for no input: there is nothing to answer, but the task must exist.
  if (JOB_TASK.test(taskId)) return void (await readJobTask(caller, taskId, "tasks/update"));
  if (!(FIXTURE_TASK.test(taskId) && isLocal())) throw unknownTask();
  await fixtureOrUnknown(
    updateFixtureTask(caller.merchantId, taskId, (task) => {
      const answered = Object.keys(inputResponses).filter((key) => Object.hasOwn(task.pending, key));
      if (!answered.length || isTerminal(fixtureTask(task))) return undefined;
      const pending = Object.fromEntries(Object.entries(task.pending).filter(([key]) => !answered.includes(key)));
      // The last answer starts the clock: the task settles now.
      return Object.keys(pending).length ? { pending } : { pending, dueAt: new Date() };
    }),
  );
}

/**
 * tasks/cancel: an active fixture task becomes cancelled; a terminal task is left as it is (the same empty
 * acknowledgement). A catalogue job cannot be stopped halfway (its chunks commit codes as they go): a
 * running one is refused with CONFLICT, a finished one acknowledged.
 */
async function cancelTask(caller: Caller, taskId: string): Promise<void> {
  if (JOB_TASK.test(taskId)) {
    const task = await readJobTask(caller, taskId, "tasks/cancel");
    if (isTerminal(task)) return;
    throw new AppError("CONFLICT", "A catalogue job cannot be cancelled: it finishes on its own", { hint: "Follow it with tasks/get; codes it made are drafts you can delete." });
  }
  if (!(FIXTURE_TASK.test(taskId) && isLocal())) throw unknownTask();
  let cancelled = false;
  await fixtureOrUnknown(
    updateFixtureTask(caller.merchantId, taskId, (task) => {
      if (isTerminal(fixtureTask(task))) return undefined;
      cancelled = true;
      return { cancelledAt: new Date() };
    }),
  );
  if (cancelled) logTaskCancelled({ merchantId: caller.merchantId, taskId });
}

/** Serves one tasks/* request of a caller whose request declared the extension. */
export async function taskMethod(caller: Caller, method: string, params: unknown): Promise<Record<string, unknown>> {
  if (method === "tasks/update") {
    const { taskId, inputResponses } = parseOrThrow(TaskUpdateParams, params, "params of tasks/update");
    await updateTask(caller, taskId, inputResponses);
    return {};
  }
  const { taskId } = parseOrThrow(TaskParams, params, `params of ${method}`);
  if (method === "tasks/cancel") {
    await cancelTask(caller, taskId);
    return {};
  }
  return { ...(await getTask(caller, taskId)) };
}
