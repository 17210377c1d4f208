// Abuse defence through the local front end: the public report, an operator's takedown (console and CLI)
// that the very next scan honours with a warning page, the owner told why and unable to re-point, restore,
// and destinations on the blocklist refused on every path that makes or re-points a code.
import assert from "node:assert/strict";
import { adminCli } from "../helpers/admin";
import { newClient } from "../helpers/clients";
import { consoleApi } from "../helpers/consoleApi";
import { appUrl, baseUrl } from "../helpers/env";
import { adminToken, createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { eventually } from "../helpers/poll";

const scan = (id: string) => fetch(`${appUrl()}/qr/${id}`, { redirect: "manual", headers: { "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1" } });

async function report(body: unknown, client = newClient()) {
  const res = await client.fetch(`${baseUrl()}/api/reports`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe("abuse: reports, takedown and the destination blocklist", function () {
  this.timeout(180_000);
  let m: TestMerchant;
  let admin: string;
  let code: any;

  before(async () => {
    m = await createMerchant();
    admin = await adminToken();
    code = toolResult(await callTool("svc.qr.create", { title: "Parcel notice", destinationUrl: "https://parcels.example/track", dynamic: true }, m.apiKey));
  });

  it("takes a reported code down: its next scan gets the warning page, its owner sees why and cannot re-point it, and a restore undoes it", async () => {
    const before = await scan(code.uniqueQRCodeID);
    assert.equal(before.status, 302);

    const filed = await report({ code: code.dynamicLink, reason: "phishing", details: "Asks for my card number to release a parcel." });
    assert.equal(filed.status, 202, JSON.stringify(filed.body));
    assert.match(filed.body.reportId, /^rep_[0-9a-f]{20}$/);

    // Only admins see the queue.
    assert.equal((await consoleApi("/reports", m.idToken)).status, 403);
    const queue = await consoleApi("/reports?status=open", admin);
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    const mine = queue.body.reports.find((r: any) => r.reportId === filed.body.reportId);
    assert.deepEqual([mine.uniqueQRCodeID, mine.merchantId, mine.destinationUrl, mine.reason], [code.uniqueQRCodeID, m.merchantId, "https://parcels.example/track", "phishing"]);

    // A member cannot decide; an admin takes it down.
    assert.equal((await consoleApi(`/reports/${filed.body.reportId}/takedown`, m.idToken, { method: "POST" })).status, 403);
    const decided = await consoleApi(`/reports/${filed.body.reportId}/takedown`, admin, { method: "POST" });
    assert.deepEqual(decided.body, { reportId: filed.body.reportId, status: "takenDown" });

    // The very next scan: a warning page, no redirect, nothing of the destination in it.
    const after = await scan(code.uniqueQRCodeID);
    assert.equal(after.status, 410);
    assert.equal(after.headers.get("location"), null);
    const page = await after.text();
    assert.match(page, /This QR code was disabled/);
    assert.ok(!page.includes("parcels.example"), "the page never names the destination");
    assert.match(after.headers.get("content-security-policy") ?? "", /default-src 'none'|default-src/);

    // The owner sees why, and cannot re-point it (tool and console alike); a title change is still fine.
    const seen = await consoleApi(`/codes/${code.codeId}`, m.idToken);
    assert.match(seen.body.takenDown.reason, /Reported as phishing/);
    const repoint = await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: "https://parcels.example/other" }, m.apiKey);
    assert.match(JSON.stringify(repoint), /FORBIDDEN/);
    assert.match(JSON.stringify(repoint), /taken down/);
    const viaConsole = await consoleApi(`/codes/${code.codeId}`, m.idToken, { body: { destinationUrl: "https://parcels.example/other" } });
    assert.equal(viaConsole.status, 403, JSON.stringify(viaConsole.body));
    assert.match(viaConsole.body.message, /taken down/);
    const renamed = await consoleApi(`/codes/${code.codeId}`, m.idToken, { body: { title: "Parcel notice (disabled)" } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await scan(code.uniqueQRCodeID)).status, 410, "a rename keeps the takedown");

    // The report left the open queue.
    const open = await consoleApi("/reports?status=open", admin);
    assert.ok(!open.body.reports.some((r: any) => r.reportId === filed.body.reportId));

    // The CLI restores it: the next scan redirects again.
    const restored = await adminCli("restore", "--code", code.dynamicLink);
    assert.equal(restored.uniqueQRCodeID, code.uniqueQRCodeID);
    const back = await scan(code.uniqueQRCodeID);
    assert.equal(back.status, 302);
    assert.equal(back.headers.get("location"), "https://parcels.example/track");
    assert.equal((await consoleApi(`/codes/${code.codeId}`, m.idToken)).body.takenDown, null);
  });

  it("takes a code down from the CLI by its scan id, with the reason the owner sees", async () => {
    const other = toolResult(await callTool("svc.qr.create", { title: "Prize", destinationUrl: "https://prize.example/claim", dynamic: true }, m.apiKey));
    assert.equal((await scan(other.uniqueQRCodeID)).status, 302, "scanned once: this instance remembers the link");
    const done = await adminCli("takedown", "--code", other.uniqueQRCodeID, "--reason", "Fake prize draw collecting card numbers");
    assert.equal(done.takenDown.reason, "Fake prize draw collecting card numbers");
    assert.equal((await scan(other.uniqueQRCodeID)).status, 410);
    assert.equal((await scan(other.uniqueQRCodeID)).status, 410);
    const stored = await firestore().collection("links").doc(other.uniqueQRCodeID).get();
    assert.equal(stored.data()!.takenDown.reason, "Fake prize draw collecting card numbers");
  });

  it("refuses reports that name no code of this service, and limits reports per address", async () => {
    const refused = [
      [{ code: "https://elsewhere.example/qr/Ab12Cd34Ef56", reason: "phishing" }, 400],
      [{ code: "not a url", reason: "phishing" }, 400],
      [{ code: code.dynamicLink, reason: "because" }, 400],
      [{ code: code.dynamicLink, reason: "spam", contact: "not-an-email" }, 400],
      [{ code: code.dynamicLink, reason: "spam", extra: 1 }, 400],
      [{ code: `${appUrl()}/qr/ZZZZZZZZZZZZ`, reason: "spam" }, 404],
    ] as const;
    for (const [body, status] of refused) {
      const answer = await report(body);
      assert.equal(answer.status, status, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.ok(answer.body.code && answer.body.message, "a clear error");
    }
    const one = newClient();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await report({ code: code.uniqueQRCodeID, reason: "spam" }, one)).status);
    assert.deepEqual(statuses, [...Array(10).fill(202), 429]);
    assert.equal((await report({ code: code.uniqueQRCodeID, reason: "spam" })).status, 202, "another address is not limited");
    const dismissed = await consoleApi("/reports?status=open", admin);
    for (const r of dismissed.body.reports.filter((x: any) => x.uniqueQRCodeID === code.uniqueQRCodeID).slice(0, 3)) {
      assert.deepEqual((await consoleApi(`/reports/${r.reportId}/dismiss`, admin, { method: "POST" })).body, { reportId: r.reportId, status: "dismissed" });
    }
    assert.equal((await scan(code.uniqueQRCodeID)).status, 302, "dismissing leaves the code alone");
  });

  it("refuses a blocklisted destination on every path that makes or re-points a code, and writes nothing", async () => {
    const blocked = ["https://login.phishing.test/account", "https://lure.test/login?next=1", "http://MALWARE-DEMO.invalid./x"];
    const count = async () => (await firestore().collection("workspaces").doc(m.merchantId).collection("codes").count().get()).data().count;
    const before = await count();
    for (const url of blocked) {
      const tool = await callTool("svc.qr.create", { title: "Blocked", destinationUrl: url }, m.apiKey);
      assert.match(JSON.stringify(tool), /DESTINATION_BLOCKED/, `tool: ${url}`);
      const bulk = await fetch(`${appUrl()}/api/bulk-qr-codes`, { method: "POST", headers: { Authorization: `Bearer ${m.apiKey}`, "Content-Type": "application/json" }, body: JSON.stringify({ urls: ["https://fine.example/a", url] }) });
      assert.equal(bulk.status, 422, `bulk: ${url}`);
      assert.equal(((await bulk.json()) as any).code, "DESTINATION_BLOCKED");
      const sandbox = await newClient().fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url }) });
      assert.equal(sandbox.status, 422, `sandbox: ${url}`);
    }
    const viaConsole = await consoleApi("/codes", m.idToken, { body: { title: "Blocked", destinationUrl: blocked[0] } });
    assert.equal(viaConsole.status, 422, JSON.stringify(viaConsole.body));
    assert.equal(await count(), before, "nothing was written");

    // Re-pointing a live code to a blocked page is refused; the code keeps its destination.
    const live = toolResult(await callTool("svc.qr.create", { title: "Menu", destinationUrl: "https://menu.example/", dynamic: true }, m.apiKey));
    assert.match(JSON.stringify(await callTool("svc.qr.update", { codeId: live.codeId, destinationUrl: blocked[1] }, m.apiKey)), /DESTINATION_BLOCKED/);
    assert.equal((await scan(live.uniqueQRCodeID)).headers.get("location"), "https://menu.example/");

    // A job fails only the blocked rows.
    const job = await fetch(`${appUrl()}/api/jobs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${m.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ format: "json", items: [{ destinationUrl: "https://fine.example/1" }, { destinationUrl: blocked[0] }, { destinationUrl: "https://fine.example/2" }] }),
    });
    const { jobId } = (await job.json()) as any;
    const done = await eventually(
      async () => (await (await fetch(`${appUrl()}/api/jobs/${jobId}/report`, { headers: { Authorization: `Bearer ${m.apiKey}` } })).json()) as any,
      (r) => r.rows?.length === 3,
      { timeoutMs: 60_000, what: "the job's rows" },
    );
    assert.deepEqual(done.rows.map((r: any) => r.outcome), ["created", "failed", "created"]);
    assert.match(done.rows[1].message, /phishing or malware/);
  });
});
