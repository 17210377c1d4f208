// The tasks facade's pure parts and the fixtures' gate (docs/mcp.md, "Tasks" and "Test fixtures").
import assert from "node:assert/strict";
import { fixtureTask, negotiatesTasks } from "../../functions/src/mcp/tasks";
import { fixtureTool, FIXTURE_NAMES } from "../../functions/src/mcp/fixtures";
import { listingFor, TOOLS, toolListing, DEFAULT_VIEW, TOOLSET_NAMES } from "../../functions/src/mcp/registry";
import type { FixtureTask } from "../../functions/src/store/mcpTasks";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function task(overrides: Partial<FixtureTask> = {}): FixtureTask {
  return {
    taskId: "tsk_00000000000000000000",
    tool: "slow_compute",
    createdAt: at(0),
    updatedAt: at(0),
    dueAt: at(2000),
    pending: {},
    outcome: { result: { content: [{ type: "text", text: "done" }] } },
    cancelledAt: null,
    ...overrides,
  };
}

describe("MCP tasks", () => {
  it("negotiation: only an object under clientCapabilities.extensions['io.modelcontextprotocol/tasks']", () => {
    assert.equal(negotiatesTasks({ extensions: { "io.modelcontextprotocol/tasks": {} } }), true);
    for (const caps of [undefined, {}, { extensions: {} }, { extensions: { "io.modelcontextprotocol/tasks": true } }, { tasks: {} }]) {
      assert.equal(negotiatesTasks(caps as never), false, JSON.stringify(caps));
    }
  });

  it("a fixture task's status follows from its document and the clock", () => {
    assert.equal(fixtureTask(task(), at(1000)).status, "working");
    const done = fixtureTask(task(), at(2500));
    assert.equal(done.status, "completed");
    assert.equal(done.lastUpdatedAt, at(2000).toISOString());
    assert.deepEqual(done.result, { content: [{ type: "text", text: "done" }] });
    const failed = fixtureTask(task({ outcome: { error: { code: -32603, message: "x" } } }), at(2500));
    assert.deepEqual([failed.status, failed.error, "result" in failed], ["failed", { code: -32603, message: "x" }, false]);
    const asking = fixtureTask(task({ pending: { confirm: { method: "elicitation/create" } } }), at(9000));
    assert.deepEqual([asking.status, Object.keys(asking.inputRequests ?? {})], ["input_required", ["confirm"]]);
    assert.equal(fixtureTask(task({ cancelledAt: at(500) }), at(9000)).status, "cancelled");
  });

  describe("fixtures", () => {
    const saved = { project: process.env.GCLOUD_PROJECT, emulator: process.env.FUNCTIONS_EMULATOR };
    afterEach(() => {
      for (const [name, value] of [["GCLOUD_PROJECT", saved.project], ["FUNCTIONS_EMULATOR", saved.emulator]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it("exist against the emulators, and not in production", () => {
      process.env.FUNCTIONS_EMULATOR = "true";
      for (const name of FIXTURE_NAMES) assert.equal(fixtureTool(name)?.name, name);
      process.env.GCLOUD_PROJECT = "svc-production";
      delete process.env.FUNCTIONS_EMULATOR;
      for (const name of FIXTURE_NAMES) assert.equal(fixtureTool(name), undefined, name);
    });

    it("are in no listing, anywhere", () => {
      const listed = new Set([
        ...TOOLS.map((t) => t.name),
        ...toolListing().map((t) => t.name),
        ...[DEFAULT_VIEW, { toolsets: TOOLSET_NAMES, readOnly: false }].flatMap((view) => listingFor(view as never).map((t) => t.name)),
      ]);
      for (const name of FIXTURE_NAMES) assert.equal(listed.has(name), false, name);
    });
  });
});
