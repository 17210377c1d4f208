// Cloud Tasks for the service tier: the queue API firebase-admin calls when CLOUD_TASKS_EMULATOR_HOST is set
// (`POST /projects/<p>/locations/<l>/queues/<function>/tasks`, and DELETE of a named task), dispatching each
// task as an HTTP POST to its function with the headers Cloud Tasks sends, retried with the function's own
// retryConfig (the backoff arithmetic of firebase-tools' task queue emulator and of Cloud Tasks: doubling
// from minBackoff up to maxDoublings, then linear, capped at maxBackoff). A 2xx finishes a task; anything
// else, or no answer within the dispatch deadline, is retried until maxAttempts. A named task's name
// stays taken after it ran (Cloud Tasks deduplicates names), so a repeated enqueue answers 409.
import type http from "node:http";

interface RetryConfig {
  maxAttempts: number;
  minBackoffSeconds: number;
  maxBackoffSeconds: number;
  maxDoublings: number;
}

/** Cloud Tasks' defaults where a function sets none (firebase-tools uses the same). */
const RETRY_DEFAULTS: RetryConfig = { maxAttempts: 3, minBackoffSeconds: 0.1, maxBackoffSeconds: 3600, maxDoublings: 16 };

interface QueuedTask {
  name: string;
  queue: string;
  body: string;
  headers: Record<string, string>;
  deadlineSeconds: number;
  attempt: number;
}

type TaskFunction = { __endpoint?: { taskQueueTrigger?: { retryConfig?: Partial<RetryConfig>; rateLimits?: { maxConcurrentDispatches?: number } } } };

/** Seconds to wait before attempt `attempt + 1`, after `attempt` failed (1-based). */
export function backoffSeconds(attempt: number, retry: RetryConfig): number {
  const doubled = Math.pow(2, Math.min(attempt - 1, retry.maxDoublings));
  const linear = Math.max(0, attempt - retry.maxDoublings - 1) * Math.pow(2, retry.maxDoublings);
  return Math.min(retry.maxBackoffSeconds, (doubled + linear) * retry.minBackoffSeconds);
}

export class TaskQueueHost {
  private readonly names = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, QueuedTask[]>();
  private sequence = 0;
  private stopped = false;

  constructor(
    private readonly functions: Map<string, TaskFunction>,
    private readonly functionUrl: (name: string) => string,
  ) {}

  private retryConfig(queue: string): RetryConfig {
    const set = this.functions.get(queue)?.__endpoint?.taskQueueTrigger?.retryConfig ?? {};
    const defined = Object.fromEntries(Object.entries(set).filter(([, v]) => typeof v === "number"));
    return { ...RETRY_DEFAULTS, ...defined };
  }

  private maxConcurrent(queue: string): number {
    return this.functions.get(queue)?.__endpoint?.taskQueueTrigger?.rateLimits?.maxConcurrentDispatches ?? 1000;
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const match = /^\/projects\/[^/]+\/locations\/[^/]+\/queues\/([^/]+)\/tasks(?:\/([^/?]+))?/.exec(req.url ?? "");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (!match || !this.functions.has(match[1])) return answer(404, { error: { code: 404, message: `no queue at ${req.url}` } });
      if (req.method === "DELETE" && match[2]) {
        const removed = this.names.delete(`${match[1]}/${match[2]}`);
        return answer(removed ? 200 : 404, {});
      }
      if (req.method !== "POST") return answer(405, { error: { code: 405, message: "method not allowed" } });
      let task: { name?: string; dispatchDeadline?: string; scheduleTime?: string; httpRequest?: { body?: string; headers?: Record<string, string> } };
      try {
        task = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { task: typeof task }).task;
      } catch {
        return answer(400, { error: { code: 400, message: "body is not JSON" } });
      }
      const queue = match[1];
      const id = task.name?.split("/").pop() ?? `task-${Date.now()}-${++this.sequence}`;
      const key = `${queue}/${id}`;
      if (this.names.has(key)) return answer(409, { error: { code: 409, message: `task ${id} already exists`, status: "ALREADY_EXISTS" } });
      this.names.add(key);
      const queued: QueuedTask = {
        name: id,
        queue,
        body: Buffer.from(task.httpRequest?.body ?? "", "base64").toString("utf8"),
        headers: task.httpRequest?.headers ?? {},
        deadlineSeconds: Number.parseInt(task.dispatchDeadline ?? "60", 10) || 60,
        attempt: 0,
      };
      const delay = task.scheduleTime ? Math.max(0, Date.parse(task.scheduleTime) - Date.now()) : 0;
      this.later(() => this.enqueue(queued), delay);
      answer(200, { name: `queues/${queue}/tasks/${id}` });
    });
  }

  private later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) run();
    }, ms);
    this.timers.add(timer);
  }

  private enqueue(task: QueuedTask): void {
    if (!this.names.has(`${task.queue}/${task.name}`)) return; // deleted before it ran
    const list = this.waiting.get(task.queue) ?? [];
    list.push(task);
    this.waiting.set(task.queue, list);
    this.pump(task.queue);
  }

  private pump(queue: string): void {
    const list = this.waiting.get(queue) ?? [];
    while (list.length && (this.running.get(queue) ?? 0) < this.maxConcurrent(queue)) {
      const task = list.shift()!;
      this.running.set(queue, (this.running.get(queue) ?? 0) + 1);
      void this.dispatch(task).finally(() => {
        this.running.set(queue, (this.running.get(queue) ?? 1) - 1);
        this.pump(queue);
      });
    }
  }

  private async dispatch(task: QueuedTask): Promise<void> {
    task.attempt++;
    let ok = false;
    try {
      const answer = await fetch(this.functionUrl(task.queue), {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-CloudTasks-QueueName": task.queue,
          "X-CloudTasks-TaskName": task.name,
          "X-CloudTasks-TaskRetryCount": String(task.attempt - 1),
          "X-CloudTasks-TaskExecutionCount": String(task.attempt - 1),
          ...task.headers,
        },
        body: task.body,
        signal: AbortSignal.timeout(task.deadlineSeconds * 1000),
      });
      await answer.arrayBuffer();
      ok = answer.ok;
    } catch {
      ok = false;
    }
    const retry = this.retryConfig(task.queue);
    // A finished task's name stays taken, as Cloud Tasks keeps it for deduplication.
    if (ok || task.attempt >= retry.maxAttempts) return;
    this.later(() => this.enqueue(task), backoffSeconds(task.attempt, retry) * 1000);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
