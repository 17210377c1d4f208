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
