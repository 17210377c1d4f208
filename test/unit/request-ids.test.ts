// Every 5xx / INTERNAL answer carries a request id that is also in its log line, and no answer names the
// cause (a secret, a setting, an exception message).
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import express from "express";
import { AppError } from "../../functions/src/core/errors";
import { restErrorHandler } from "../../functions/src/http/rest";
import { rpcError } from "../../functions/src/mcp/protocol";
import { oauthErrorResponse } from "../../functions/src/oauth/errors";
import { quotaFor } from "../../functions/src/sandbox/service";

/** Runs `work` and returns what the functions logger wrote meanwhile (it writes JSON lines to stdout/stderr). */
async function captureLogs(work: () => Promise<void> | void): Promise<string> {
  const written: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const grab = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return written.join("");
}

const SECRET_CAUSE = "connection string postgres://admin:hunter2@db";

describe("request ids on server errors", () => {
  it("REST: a thrown exception answers 500 with a requestId found in the log line, and no cause", async () => {
    const app = express();
    app.get("/boom", () => {
      throw new Error(SECRET_CAUSE);
    });
    app.use(restErrorHandler);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      let status = 0;
      let body: Record<string, unknown> = {};
      const logs = await captureLogs(async () => {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
        status = res.status;
        body = (await res.json()) as Record<string, unknown>;
      });
      assert.equal(status, 500);
      assert.equal(body.code, "INTERNAL");
      assert.match(String(body.requestId), /^req_[\w-]{12}$/);
      assert.ok(!JSON.stringify(body).includes("hunter2"), "the answer never carries the cause");
      const line = logs.split("\n").find((l) => l.includes(String(body.requestId)));
      assert.ok(line, `a log line names ${body.requestId}: ${logs}`);
      assert.ok(line.includes("hunter2"), "the log line holds the cause");
    } finally {
      server.close();
    }
  });

  it("REST: client errors (4xx) carry no requestId", () => {
    assert.equal(new AppError("VALIDATION_FAILED", "bad").requestId, undefined);
    assert.ok(new AppError("UNAVAILABLE", "later").requestId);
  });

  it("MCP: an INTERNAL JSON-RPC error carries data.requestId, logged with its cause", async () => {
    let response: ReturnType<typeof rpcError> | undefined;
    const logs = await captureLogs(() => {
      response = rpcError(7, new Error(SECRET_CAUSE));
    });
    const error = (response as { error: { message: string; data: Record<string, unknown> } }).error;
    assert.equal(error.data.code, "INTERNAL");
    assert.match(String(error.data.requestId), /^req_/);
    assert.ok(!JSON.stringify(response).includes("hunter2"));
    assert.ok(logs.includes(String(error.data.requestId)) && logs.includes("hunter2"));
  });

  it("OAuth: server_error carries request_id", () => {
    const { status, body } = oauthErrorResponse(new Error(SECRET_CAUSE));
    assert.equal(status, 500);
    assert.equal(body.error, "server_error");
    assert.match(String(body.request_id), /^req_/);
    assert.ok(body.error_description.includes(String(body.request_id)));
    assert.ok(!JSON.stringify(body).includes("hunter2"));
  });

  it("sandbox: a deployment without its address-hash secret answers without naming the secret", () => {
    const saved = { project: process.env.GCLOUD_PROJECT, salt: process.env.SANDBOX_IP_SALT, emulator: process.env.FUNCTIONS_EMULATOR };
    process.env.GCLOUD_PROJECT = "prod-merchant-qr";
    delete process.env.SANDBOX_IP_SALT;
    delete process.env.FUNCTIONS_EMULATOR;
    try {
      let thrown: unknown;
      try {
        void quotaFor({ address: "203.0.113.9", viaProxy: false, hops: [], throughGeoHeaderProxy: false });
      } catch (e) {
        thrown = e;
      }
      assert.ok(thrown instanceof AppError, "refuses to count without the secret");
      assert.equal(thrown.code, "UNAVAILABLE");
      assert.ok(thrown.requestId);
      const wire = JSON.stringify({ message: thrown.message, hint: thrown.hint, details: thrown.details });
      assert.ok(!/SALT|secret/i.test(wire), `the answer names no setting: ${wire}`);
      assert.match(String((thrown.cause as Error).message), /SANDBOX_IP_SALT/, "the log line does");
    } finally {
      for (const [k, v] of [["GCLOUD_PROJECT", saved.project], ["SANDBOX_IP_SALT", saved.salt], ["FUNCTIONS_EMULATOR", saved.emulator]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe("a transaction that lost to contention", () => {
  it("is a retryable 503 UNAVAILABLE that says nothing was changed, not an internal error", async () => {
    const { toAppError } = await import("../../functions/src/core/errors");
    // The shape Firestore's client throws once a transaction has used all its attempts (gRPC ABORTED).
    const aborted = Object.assign(new Error("10 ABORTED: Transaction lock timeout"), { code: 10 });
    const mapped = toAppError(aborted);
    assert.equal(mapped.code, "UNAVAILABLE");
    assert.equal(mapped.httpStatus, 503);
    assert.match(mapped.hint ?? "", /nothing was changed/);
    assert.doesNotMatch(mapped.message, /lock timeout/);
    // Any other failure stays INTERNAL, and a string code (a Node system error) is not mistaken for it.
    assert.equal(toAppError(Object.assign(new Error("x"), { code: 13 })).code, "INTERNAL");
    assert.equal(toAppError(Object.assign(new Error("x"), { code: "ECONNRESET" })).code, "INTERNAL");
  });
});
