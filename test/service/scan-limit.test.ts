// The per-client scan limit (scans/clientLimit.ts; docs/scan-stream.md, "Past the per-client limit"), on the
// redirect running in this process (so its arrivals can be counted as it records them) against the stack's
// emulators: one IPv6 client rotating synthetic addresses inside its /64 gets a 302 for every scan, but past
// SCANS_PER_CLIENT_MINUTE in a minute only its marker is recorded, and the consumer counts that as a
// machine's scan (`limited`), never a person's. Another client in the same minute is recorded as usual.
import assert from "node:assert/strict";
import http from "node:http";
import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { eventually } from "../helpers/poll";
import { nextWindowStart, servedAt } from "../helpers/clock";
import { runCases } from "../helpers/fuzz";
import { redirectApp } from "../../functions/src/redirect/app";
import { arrivalCounts } from "../../functions/src/scans/arrival";
import { LIMITED_REASON, SCANS_PER_CLIENT_MINUTE } from "../../functions/src/scans/clientLimit";

const PHONE = (i: number) => `Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${i % 9} Mobile/15E148 Safari/604.1`;
const DESTINATION = "https://example.com/menu";

const recordedSoFar = () => arrivalCounts.published + arrivalCounts.outbox + arrivalCounts.unknown;

describe("the per-client scan limit: past it a scan is answered, not counted", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let server: http.Server;
  let origin: string;
  before(async () => {
    merchant = await createMerchant();
    server = http.createServer(redirectApp);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(`an IPv6 /64 rotating its addresses gets a 302 for each of ${SCANS_PER_CLIENT_MINUTE + 40} scans in a minute; past the limit only its marker is recorded`, async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "flooded", destinationUrl: DESTINATION, dynamic: true }, merchant.apiKey));
    const at = nextWindowStart(60_000); // every scan served in one fresh minute, whatever the run's pace
    const prefix = ["2a02", "6b8", randomInt(0x10000).toString(16), randomInt(0x10000).toString(16)].join(":");
    const address = () => `${prefix}:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}::${randomInt(1, 0x10000).toString(16)}`;
    const scan = async (i: number, from: string) => {
      const res = await fetch(`${origin}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE(i), "X-Forwarded-For": from, ...servedAt(at) } });
      await res.arrayBuffer();
      return { status: res.status, location: res.headers.get("location"), counted: res.headers.get("x-scan-counted") };
    };
    const before = recordedSoFar();
    const answers: Array<Awaited<ReturnType<typeof scan>>> = [];
    const failures = await runCases(Array.from({ length: SCANS_PER_CLIENT_MINUTE + 40 }, (_, i) => i), 8, async (i) => {
      answers[i] = await scan(i, address());
      return answers[i].status === 302 && answers[i].location === DESTINATION ? undefined : `answered ${answers[i].status} ${answers[i].location}`;
    });
    assert.deepEqual(failures, [], "every scan is redirected, past the limit too");
    assert.equal(recordedSoFar() - before, SCANS_PER_CLIENT_MINUTE + 1, "the limit's scans and one marker recorded, nothing more");
    assert.equal(answers.filter((a) => a.counted === "recorded").length, SCANS_PER_CLIENT_MINUTE);
    assert.equal(answers.filter((a) => a.counted === `false; reason=${LIMITED_REASON}`).length, 1, "the marker, recorded as a machine's scan");
    assert.equal(answers.filter((a) => a.counted === `not-recorded; reason=${LIMITED_REASON}`).length, 39);
    // Another client in the same minute is not held by it.
    assert.equal((await scan(0, "73.20.30.40")).counted, "recorded");
    // The consumer counts what was recorded: the marker as a machine's scan, never a person's.
    const rollup = () => firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", code.codeId).get();
    const counted = await eventually(
      async () => {
        const out = { people: 0, repeats: 0, bots: {} as Record<string, number> };
        for (const doc of (await rollup()).docs) {
          out.people += Number(doc.get("n") ?? 0);
          out.repeats += Number(doc.get("r") ?? 0);
          for (const [reason, n] of Object.entries((doc.get("b") ?? {}) as Record<string, number>)) out.bots[reason] = (out.bots[reason] ?? 0) + n;
        }
        return out;
      },
      (c) => c.people + c.repeats + Object.values(c.bots).reduce((a, b) => a + b, 0) >= SCANS_PER_CLIENT_MINUTE + 2,
      { what: "the recorded scans counted", timeoutMs: 60_000 },
    );
    assert.equal(counted.bots[LIMITED_REASON], 1, "one marker, a machine's scan");
    assert.equal(counted.people + counted.repeats + Object.values(counted.bots).reduce((a, b) => a + b, 0), SCANS_PER_CLIENT_MINUTE + 2);
  });
});
