import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { eventually } from "../helpers/poll";
import { NODE22 } from "../../scripts/lib/stack";
import { pullScans, subscribeToScans } from "../helpers/pubsub";
import { scaled } from "../helpers/scale";

const ROOT = path.resolve(__dirname, "..", "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "dying-redirect.ts");

/** Starts an instance that dies right after its first redirect; resolves with its port and its end. */
function dyingInstance(): Promise<{ port: number; ended: Promise<NodeJS.Signals | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, ["--import", "tsx", FIXTURE], { cwd: ROOT, env: process.env, stdio: ["ignore", "pipe", "inherit"] });
    const ended = new Promise<NodeJS.Signals | null>((r) => child.once("exit", (_code, signal) => r(signal)));
    child.stdout.once("data", (chunk: Buffer) => resolve({ port: Number(chunk.toString().trim()), ended }));
    child.once("error", reject);
  });
}

describe("scan durability", function () {
  this.timeout(180_000);

  it(`loses no scan when the serving process dies right after each of ${scaled(20, 5)} redirect responses`, async () => {
    const merchant = await createMerchant();
    const code = toolResult(await callTool("svc.qr.create", { title: "d", destinationUrl: "https://example.com/durable", dynamic: true }, merchant.apiKey));
    // 20 deaths at full size; 5 on every change (one round of five instances at once).
    const rounds = scaled(20, 5);
    const subscription = await subscribeToScans();
    for (let i = 0; i < rounds; i += 5) {
      await Promise.all(
        Array.from({ length: 5 }, async () => {
          const client = newClient(); // a person each: one person's scans beyond a few a minute would be repeats
          const instance = await dyingInstance();
          const res = await client.fetch(`http://127.0.0.1:${instance.port}/qr/${code.uniqueQRCodeID}`, {
            redirect: "manual",
            headers: { "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile/15E148" },
          });
          assert.equal(res.status, 302);
          assert.equal(res.headers.get("location"), "https://example.com/durable");
          assert.equal(await instance.ended, "SIGKILL", "the instance died after answering");
        }),
      );
    }
    // A scan's writes finish before its 302 and nothing runs for it afterwards (no trigger, no retry), so
    // once every answered scan is counted the state is settled: a count past `rounds` would be a double.
    const settled = await eventually(
      async () => toolResult(await callTool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 }, merchant.apiKey)),
      (a: any) => a.totalScans >= rounds,
      { what: `${rounds} scans counted` },
    );
    assert.equal(settled.totalScans, rounds, "every answered scan was counted, and none twice");
    assert.equal(settled.scans.length, rounds);
    // Each scan's stream event was published before its 302 too: all of them are on the topic, though every
    // instance died the moment it answered.
    const messages = await pullScans(subscription, rounds);
    assert.equal(new Set(messages.map((m) => m.event.scan_id)).size, rounds);
    assert.ok(messages.every((m) => m.event.code_id === code.codeId));
  });
});
