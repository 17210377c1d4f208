// Catalogue jobs as MCP tasks (the 2026-07-28 tasks extension) through HTTP, and the job id plus status
// tool for everyone else (docs/mcp.md, "Tasks").
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { callTool, ENVELOPE_2026, rpc, rpc2026, toolResult, type HttpResult } from "../helpers/rpc";
import { createMerchant, mintKey, type TestMerchant } from "../helpers/merchants";
import { eventually } from "../helpers/poll";

const TASKS = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { ...ENVELOPE_2026, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };

const items = () => [{ destinationUrl: "https://example.com/task-job", externalRef: `task-${randomUUID()}` }];

function withTasks(method: string, params: Record<string, unknown>, credential: string, meta: Record<string, unknown> = WITH_TASKS): Promise<HttpResult> {
  const headers: Record<string, string> = typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {};
  return rpc2026(method, params, { credential, meta, headers });
}

function result(res: HttpResult): any {
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.result, res.text);
  return res.body.result;
}

describe("MCP tasks: catalogue jobs as tasks", function () {
  this.timeout(120_000);
  let a: TestMerchant;
  let b: TestMerchant;

  before(async () => {
    [a, b] = await Promise.all([createMerchant(), createMerchant()]);
  });

  it("server/discover offers the extension", async () => {
    const discovered = result(await rpc2026("server/discover", {}));
    assert.deepEqual(discovered.capabilities.extensions, { [TASKS]: {} });
  });

  it("a job started as a task reaches completed, with svc.job.get's result inlined", async () => {
    const created = result(await withTasks("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, a.apiKey));
    assert.equal(created.resultType, "task");
    assert.match(created.taskId, /^job_[0-9a-f]{20}$/);
    assert.equal(created.status, "working");
    for (const field of ["result", "error", "inputRequests", "task", "content"]) assert.equal(field in created, false, field);
    assert.ok(Number.isInteger(created.ttlMs) && created.ttlMs > 0);
    assert.ok(Number.isInteger(created.pollIntervalMs) && created.pollIntervalMs > 0);

    const done = await eventually(
      async () => result(await withTasks("tasks/get", { taskId: created.taskId }, a.apiKey)),
      (task) => task.status !== "working",
      { what: "the job's task to finish", intervalMs: 500, timeoutMs: 60_000 },
    );
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.equal(done.resultType, "complete");
    assert.equal(done.taskId, created.taskId);
    assert.equal(done.result.isError, undefined);
    assert.equal(done.result.structuredContent.jobId, created.taskId);
    assert.equal(done.result.structuredContent.state, "done");
    assert.equal(done.result.structuredContent.created, 1);
    // The status tool tells the same story.
    assert.equal(toolResult(await callTool("svc.job.get", { jobId: created.taskId }, a.apiKey)).state, "done");
    // A finished job's cancel is acknowledged and changes nothing; tasks/update has nothing to answer.
    assert.deepEqual(Object.keys(result(await withTasks("tasks/cancel", { taskId: created.taskId }, a.apiKey))).sort(), ["_meta", "resultType"]);
    assert.equal(result(await withTasks("tasks/update", { taskId: created.taskId, inputResponses: {} }, a.apiKey)).resultType, "complete");
    assert.equal(result(await withTasks("tasks/get", { taskId: created.taskId }, a.apiKey)).status, "completed");
  });

  it("another workspace's key gets the same error for A's task id as for an unknown id", async () => {
    const created = result(await withTasks("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, a.apiKey));
    const unknownId = `job_${"0".repeat(20)}`;
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      const params = (taskId: string) => (method === "tasks/update" ? { taskId, inputResponses: {} } : { taskId });
      const foreign = await withTasks(method, params(created.taskId), b.apiKey);
      const unknown = await withTasks(method, params(unknownId), b.apiKey);
      assert.equal(foreign.status, unknown.status, method);
      assert.equal(foreign.body.error.code, -32602, foreign.text);
      assert.deepEqual(foreign.body.error, unknown.body.error, method);
      assert.equal(foreign.body.error.data.code, "TASK_NOT_FOUND");
    }
    // A still reads it.
    assert.equal(result(await withTasks("tasks/get", { taskId: created.taskId }, a.apiKey)).taskId, created.taskId);
  });

  it("a running job cannot be cancelled: CONFLICT, and the job goes on", async () => {
    const created = result(await withTasks("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, a.apiKey));
    const cancel = await withTasks("tasks/cancel", { taskId: created.taskId }, a.apiKey);
    if (cancel.body.error) {
      assert.equal(cancel.body.error.data.code, "CONFLICT", cancel.text);
    } else {
      // The job may have finished already: then the cancel is the terminal task's acknowledgement.
      assert.equal(result(await withTasks("tasks/get", { taskId: created.taskId }, a.apiKey)).status, "completed");
    }
    await eventually(async () => result(await withTasks("tasks/get", { taskId: created.taskId }, a.apiKey)).status, (s) => s === "completed", { intervalMs: 500, timeoutMs: 60_000 });
  });

  it("tasks/get of a job needs svc.job.get's scope", async () => {
    const created = result(await withTasks("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, a.apiKey));
    const writer = await mintKey(a, ["qr:write"]);
    const refused = await withTasks("tasks/get", { taskId: created.taskId }, writer);
    assert.equal(refused.body.error?.data?.code, "INSUFFICIENT_SCOPE", refused.text);
  });

  it("2026-07-28 without the extension: the job id and svc.job.get, and tasks/* answer -32021", async () => {
    const started = result(await rpc2026("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, { credential: a.apiKey }));
    assert.equal(started.resultType, "complete");
    assert.equal(started.taskId, undefined);
    assert.match(started.structuredContent.jobId, /^job_[0-9a-f]{20}$/);
    const job = await eventually(
      async () => toolResult(await callTool("svc.job.get", { jobId: started.structuredContent.jobId }, a.apiKey)),
      (j) => j.state === "done",
      { intervalMs: 500, timeoutMs: 60_000 },
    );
    assert.equal(job.created, 1);
    const gated = await rpc2026("tasks/get", { taskId: job.jobId }, { credential: a.apiKey, headers: { "mcp-name": job.jobId } });
    assert.equal(gated.status, 400, gated.text);
    assert.equal(gated.body.error.code, -32021);
    assert.deepEqual(gated.body.error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });
  });

  it("2025-03-26: the job id and svc.job.get, and no tasks methods", async () => {
    const started = toolResult(await callTool("svc.job.start", { format: "json", items: items() }, a.apiKey));
    assert.match(started.jobId, /^job_[0-9a-f]{20}$/);
    const job = await eventually(async () => toolResult(await callTool("svc.job.get", { jobId: started.jobId }, a.apiKey)), (j) => j.state === "done", { intervalMs: 500, timeoutMs: 60_000 });
    assert.equal(job.created, 1);
    const res = await rpc("tasks/get", { taskId: started.jobId }, a.apiKey);
    assert.equal(res.body.error.code, -32601, res.text);
  });

  it("tasks/get refuses an Mcp-Name header that is not its taskId", async () => {
    const created = result(await withTasks("tools/call", { name: "svc.job.start", arguments: { format: "json", items: items() } }, a.apiKey));
    const res = await rpc2026("tasks/get", { taskId: created.taskId }, { credential: a.apiKey, meta: WITH_TASKS, headers: { "mcp-name": "job_other" } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, -32020);
  });
});

// What a client sees of a task's status (our own test: the official suite's tasks-status-notifications only
// reports itself skipped). The server sends no notifications/tasks (optional in SEP-2663; docs/mcp.md): a
// client learns a task's status from tasks/get alone, so every change must show there, in order, with
// lastUpdatedAt moving to the moment of the change and a terminal status never changing again. Against the
// emulator-only fixture tasks, whose status follows from the stored task and the clock.
describe("MCP tasks: the status a client sees", function () {
  this.timeout(60_000);
  let m: TestMerchant;
  before(async () => {
    m = await createMerchant();
  });
  const get = async (taskId: string) => result(await withTasks("tasks/get", { taskId }, m.apiKey));
  const start = async (name: string, args: Record<string, unknown>) => {
    const res = await withTasks("tools/call", { name, arguments: args }, m.apiKey);
    // One JSON answer: no event stream on which a status notification could come.
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const created = result(res);
    assert.equal(created.resultType, "task", res.text);
    return created;
  };

  it("working until done, then completed with the result, lastUpdatedAt at the moment it settled, and completed for good", async () => {
    const created = await start("slow_compute", { seconds: 2, label: "status" });
    assert.equal(created.status, "working");
    const seen: string[] = [];
    let task: any;
    do {
      task = await get(created.taskId);
      seen.push(task.status);
      if (task.status === "working") {
        assert.equal(task.lastUpdatedAt, created.lastUpdatedAt, "nothing changed yet");
        for (const field of ["result", "error", "inputRequests"]) assert.equal(field in task, false, field);
        await new Promise((r) => setTimeout(r, task.pollIntervalMs));
      }
    } while (task.status === "working" && seen.length < 200);
    assert.equal(seen[0], "working", "a 2 s task is seen working first");
    assert.deepEqual([...new Set(seen)], ["working", "completed"], `statuses seen in order: ${seen.join(", ")}`);
    const settledAfter = Date.parse(task.lastUpdatedAt) - Date.parse(task.createdAt);
    assert.ok(settledAfter >= 2000 && settledAfter < 10_000, `lastUpdatedAt ${settledAfter} ms after createdAt`);
    assert.equal(task.result.content[0].text, "Computed status in 2 s");
    // Terminal: a cancel is acknowledged and changes nothing.
    result(await withTasks("tasks/cancel", { taskId: created.taskId }, m.apiKey));
    const after = await get(created.taskId);
    assert.deepEqual([after.status, after.lastUpdatedAt], ["completed", task.lastUpdatedAt]);
  });

  it("input_required with its requests, then completed once answered; a failing tool completes with isError", async () => {
    const created = await start("confirm_delete", { filename: "status.txt" });
    const waiting = await eventually(() => get(created.taskId), (t) => t.status !== "working", { intervalMs: 200, timeoutMs: 10_000, what: "the task to ask" });
    assert.equal(waiting.status, "input_required");
    const [key] = Object.keys(waiting.inputRequests);
    assert.equal(waiting.inputRequests[key].method, "elicitation/create");
    result(await withTasks("tasks/update", { taskId: created.taskId, inputResponses: { [key]: { action: "accept", content: { confirm: true } } } }, m.apiKey));
    const done = await eventually(() => get(created.taskId), (t) => t.status !== "input_required" && t.status !== "working", { intervalMs: 200, timeoutMs: 10_000, what: "the answered task to finish" });
    assert.equal(done.status, "completed");
    assert.equal("inputRequests" in done, false, "nothing is asked any more");
    assert.ok(Date.parse(done.lastUpdatedAt) >= Date.parse(waiting.lastUpdatedAt));

    const failing = await start("failing_job", {});
    const failed = await eventually(() => get(failing.taskId), (t) => t.status !== "working", { intervalMs: 200, timeoutMs: 10_000, what: "the failing job to settle" });
    assert.equal(failed.status, "completed", "a tool that reports a failure completed: the failure is in its result");
    assert.equal(failed.result.isError, true);
  });

  it("cancelled at once on tasks/cancel, with lastUpdatedAt at the cancel, and cancelled for good", async () => {
    const created = await start("slow_compute", { seconds: 60, label: "cancel-me" });
    const cancelAt = Date.now();
    result(await withTasks("tasks/cancel", { taskId: created.taskId }, m.apiKey));
    const cancelled = await get(created.taskId);
    assert.equal(cancelled.status, "cancelled");
    assert.equal("result" in cancelled, false);
    assert.ok(Date.parse(cancelled.lastUpdatedAt) > Date.parse(created.lastUpdatedAt), "the change moved lastUpdatedAt");
    assert.ok(Math.abs(Date.parse(cancelled.lastUpdatedAt) - cancelAt) < 30_000);
    // A second cancel and an answer change nothing.
    result(await withTasks("tasks/cancel", { taskId: created.taskId }, m.apiKey));
    const again = await get(created.taskId);
    assert.deepEqual([again.status, again.lastUpdatedAt], ["cancelled", cancelled.lastUpdatedAt]);
  });
});
