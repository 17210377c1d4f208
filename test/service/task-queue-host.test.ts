// The service tier's Cloud Tasks (scripts/lib/taskQueueHost.ts), which runs the catalogue jobs and webhook
// deliveries in place of firebase-tools' tasks emulator: the API firebase-admin calls, retries with the
// function's own retryConfig and Cloud Tasks' headers, and named tasks deduplicated.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { backoffSeconds, TaskQueueHost } from "../../scripts/lib/taskQueueHost";

async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("service host: Cloud Tasks in process", () => {
  it("backs off as Cloud Tasks does: doubling from minBackoff, then linear after maxDoublings, capped", () => {
    const retry = { maxAttempts: 10, minBackoffSeconds: 1, maxBackoffSeconds: 20, maxDoublings: 2 };
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => backoffSeconds(n, retry)), [1, 2, 4, 8, 12, 16, 20]);
  });

  it("dispatches a task to its function, retries a failure with the retry count, and refuses a repeated name", async () => {
    const seen: { retry: string | undefined; body: string }[] = [];
    const fn = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ retry: req.headers["x-cloudtasks-taskretrycount"] as string | undefined, body });
        res.writeHead(seen.length < 3 ? 503 : 204);
        res.end();
      });
    });
    const functions = new Map([["catalogueJob", { __endpoint: { taskQueueTrigger: { retryConfig: { maxAttempts: 5, minBackoffSeconds: 0.05 } } } }]]);
    const host = new TaskQueueHost(functions, () => fn.url);
    const api = await serve((req, res) => host.handle(req, res));
    try {
      const enqueue = () =>
        fetch(`${api.url}/projects/demo-x/locations/us-central1/queues/catalogueJob/tasks`, {
          method: "POST",
          body: JSON.stringify({ task: { name: "projects/demo-x/locations/us-central1/queues/catalogueJob/tasks/t1", httpRequest: { body: Buffer.from('{"data":{"n":1}}').toString("base64") } } }),
        });
      assert.equal((await enqueue()).status, 200);
      for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(seen.map((s) => s.retry), ["0", "1", "2"]);
      assert.deepEqual(JSON.parse(seen[0].body), { data: { n: 1 } });
      assert.equal((await enqueue()).status, 409, "a named task is deduplicated");
      const unknown = await fetch(`${api.url}/projects/demo-x/locations/us-central1/queues/nothing/tasks`, { method: "POST", body: "{}" });
      assert.equal(unknown.status, 404);
    } finally {
      host.stop();
      await Promise.all([fn.close(), api.close()]);
    }
  });
});
