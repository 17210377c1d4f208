// Tasks of the MCP test fixtures (mcp/fixtures/): only ever written when the server runs against the
// emulators. A task's progress is not run by anything in the background: its document says when it is due
// and what it then answers, and every read derives the status from that and the clock (mcp/taskState.ts).
// So any instance answers, and a restart loses nothing.
//
//   workspaces/{m}/mcpTasks/{taskId}   one fixture task: due time, pending input requests, outcome (TTL expiresAt)
import { Timestamp, type DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { dateOf, dateOrNull, recordConverter } from "./records";

/** How long a fixture task is kept (its `ttlMs` on the wire, and the TTL of its document). */
export const FIXTURE_TASK_TTL_MS = 3_600_000;

/** A task's end: the tool's result (tool errors included) or a protocol error. */
export type FixtureOutcome = { result: Record<string, unknown> } | { error: { code: number; message: string } };

export interface FixtureTask {
  taskId: string;
  tool: string;
  createdAt: Date;
  updatedAt: Date;
  /** When it settles on its outcome, once no input is pending. */
  dueAt: Date;
  /** Input requests (MRTR) still unanswered, by key: at most a few, each a small elicitation. */
  pending: Record<string, Record<string, unknown>>;
  outcome: FixtureOutcome;
  cancelledAt: Date | null;
}

const taskRecord = recordConverter<FixtureTask>((d, taskId) => ({
  taskId,
  tool: d.tool,
  createdAt: dateOf(d.createdAt),
  updatedAt: dateOf(d.updatedAt),
  dueAt: dateOf(d.dueAt),
  pending: d.pending ?? {},
  outcome: d.outcome,
  cancelledAt: dateOrNull(d.cancelledAt),
}));

const tasksOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("mcpTasks");
const taskRef = (merchantId: string, taskId: string) => tasksOf(merchantId).doc(taskId).withConverter(taskRecord);

/** Written before the tools/call that created it answers: a tasks/get right after finds it. */
export async function createFixtureTask(merchantId: string, task: Omit<FixtureTask, "updatedAt" | "cancelledAt">): Promise<FixtureTask> {
  const { taskId, createdAt, dueAt, ...rest } = task;
  await tasksOf(merchantId)
    .doc(taskId)
    .create({
      ...rest,
      createdAt: Timestamp.fromDate(createdAt),
      updatedAt: Timestamp.fromDate(createdAt),
      dueAt: Timestamp.fromDate(dueAt),
      cancelledAt: null,
      expiresAt: Timestamp.fromMillis(createdAt.getTime() + FIXTURE_TASK_TTL_MS),
    });
  return { ...task, updatedAt: createdAt, cancelledAt: null };
}

export async function readFixtureTask(merchantId: string, taskId: string): Promise<FixtureTask | undefined> {
  return (await taskRef(merchantId, taskId).get()).data();
}

/**
 * Changes one task in a transaction: `change` sees the stored task and returns the fields to set (or
 * nothing). Undefined when the workspace has no such task.
 */
export async function updateFixtureTask(
  merchantId: string,
  taskId: string,
  change: (task: FixtureTask) => Partial<Pick<FixtureTask, "pending" | "dueAt" | "cancelledAt">> | undefined,
): Promise<FixtureTask | undefined> {
  const ref = taskRef(merchantId, taskId);
  return db().runTransaction(async (tx) => {
    const task = (await tx.get(ref)).data();
    if (!task) return undefined;
    const fields = change(task);
    if (!fields) return task;
    const now = new Date();
    const stored: DocumentData = { updatedAt: Timestamp.fromDate(now) };
    if (fields.pending) stored.pending = fields.pending;
    if (fields.dueAt) stored.dueAt = Timestamp.fromDate(fields.dueAt);
    if (fields.cancelledAt) stored.cancelledAt = Timestamp.fromDate(fields.cancelledAt);
    tx.update(ref, stored);
    return { ...task, ...fields, updatedAt: now };
  });
}
