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
import { newGtin } from "../helpers/gs1";
import { compressDigitalLink } from "../../functions/src/gs1/grammar";
import { listReportGroups } from "../../functions/src/store/abuse";

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
    // The reporter's words are a stranger's: they never reach the owner or its agent (review 4, L5).
    for (const seenByOwner of [JSON.stringify(repoint), JSON.stringify(seen.body)]) assert.ok(!seenByOwner.includes("card number"), seenByOwner);
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

  it("reports and takes down a GS1 product link by any address the service answers it at; the owner is mailed and cannot change it; a restore undoes it", async () => {
    const gtin = newGtin();
    const put = (body: unknown, method = "POST", path = "/api/gs1/items") =>
      fetch(`${appUrl()}${path}`, { method, headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.apiKey}` }, body: body === undefined ? undefined : JSON.stringify(body) });
    const itemBody = { value: gtin, links: [{ linkType: "gs1:pip", href: "https://brand.example/product", title: "Product", isDefault: true }] };
    const created = await put(itemBody);
    assert.equal(created.status, 201, await created.clone().text());
    const item = (await created.json()) as any;
    const lot = await put({ value: gtin, qualifiers: [{ ai: "10", value: "LOT7" }], links: [{ linkType: "gs1:pip", href: "https://brand.example/lot7", title: "Lot 7", isDefault: true }] });
    assert.equal(lot.status, 201);
    const resolve = (path: string, headers: Record<string, string> = {}) => newClient().fetch(`${baseUrl()}${path}`, { redirect: "manual", headers });
    assert.equal((await resolve(`/01/${gtin}/10/LOT7`)).status, 307);

    // Reported at the GTIN's URI on the public site's host, and at its compressed URI on the app's host.
    const uri = `${baseUrl()}/01/${gtin}`;
    const first = await report({ code: uri, reason: "phishing", details: "The product page asks for a bank login." });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const compressed = compressDigitalLink(`${new URL(appUrl()).origin}/01/${gtin}`);
    const second = await report({ code: compressed, reason: "scam" });
    assert.equal(second.status, 202, JSON.stringify(second.body));
    // The same report again joins the open one: nothing new is stored.
    const again = await report({ code: `${uri}/`, reason: "phishing", details: "The product page asks for a bank login." });
    assert.equal(again.body.reportId, first.body.reportId);
    // A GS1 URI nobody registered, and one that is no GS1 URI, are refused plainly.
    assert.equal((await report({ code: `${baseUrl()}/01/${newGtin()}`, reason: "spam" })).status, 404);
    assert.equal((await report({ code: `${baseUrl()}/01/123`, reason: "spam" })).status, 400);

    // Moderators see one group for the item, found by paging through the grouped queue.
    const subject = `gs1_${item.itemId}`;
    let group: any;
    const seen = new Set<string>();
    for (let cursor: string | null = "", pages = 0; cursor !== null && pages < 40 && !group; pages++) {
      const page = await consoleApi(`/report-groups?status=open${cursor ? `&cursor=${cursor}` : ""}`, admin);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const g of page.body.groups) {
        assert.ok(!seen.has(g.subject), `${g.subject} is on one page only`);
        seen.add(g.subject);
        if (g.subject === subject) group = g;
      }
      cursor = page.body.nextCursor;
    }
    assert.ok(group, "the item's group is in the queue");
    assert.deepEqual([group.kind, group.count, group.reasons, group.merchantId, group.destinationUrl], ["gs1Item", 2, { phishing: 1, scam: 1 }, m.merchantId, "https://brand.example/product"]);
    assert.ok(group.url.endsWith(`/01/${gtin}`), group.url);
    assert.equal((await consoleApi(`/report-groups`, m.idToken)).status, 403, "admins only");

    // Taken down: every level below the GTIN gets the warning page at once, by path, compressed URI and linkset alike.
    const decided = await consoleApi(`/report-groups/${subject}/takedown`, admin, { method: "POST" });
    assert.deepEqual(decided.body, { subject, status: "takenDown", reports: 2 });
    for (const path of [`/01/${gtin}`, `/01/${gtin}/10/LOT7`, new URL(compressed).pathname, `/01/${gtin}?linkType=linkset`]) {
      const answer = await resolve(path);
      assert.equal(answer.status, 410, path);
      assert.equal(answer.headers.get("location"), null);
      const page = await answer.text();
      assert.match(page, /This QR code was disabled/);
      assert.ok(!page.includes("brand.example"), "the page never names the destination");
    }
    // The owner cannot re-point or delete it, and was mailed why and how to appeal.
    const repoint = await put({ ...itemBody, links: [{ ...itemBody.links[0], href: "https://brand.example/other" }] });
    assert.equal(repoint.status, 403);
    assert.match(((await repoint.json()) as any).message, /taken down/);
    assert.equal((await put(undefined, "DELETE", `/api/gs1/items/${item.itemId}`)).status, 403);
    const mail = await eventually(
      async () => (await firestore().collection("mail").where("to", "==", m.email).get()).docs.map((d) => d.data()),
      (mails) => mails.some((x: any) => x.message.text.includes(`/01/${gtin}`)),
      { timeoutMs: 10_000, what: "the owner's takedown mail" },
    );
    const text = mail.find((x: any) => x.message.text.includes(`/01/${gtin}`))!.message.text as string;
    assert.match(text, /Reported as (phishing, scam|scam, phishing)/);
    assert.match(text, /To appeal, write to \S+@\S+/);

    // The operator restores it by its compressed URI; it resolves again. A takedown by URL from the CLI works too.
    const restored = await adminCli("restore", "--code", compressed);
    assert.equal(restored.subject, subject);
    assert.equal((await resolve(`/01/${gtin}/10/LOT7`)).status, 307);
    const cli = await adminCli("takedown", "--code", `${appUrl()}/01/${gtin}/10/LOT7`, "--reason", "Lot page replaced by a lure");
    assert.equal(cli.subject, `gs1_${((await (await put(undefined, "GET", `/api/gs1/items?limit=50`)).json()) as any).items.find((i: any) => i.qualifiers.length === 1).itemId}`);
    assert.equal((await resolve(`/01/${gtin}/10/LOT7`)).status, 410);
    assert.equal((await resolve(`/01/${gtin}`)).status, 307, "the GTIN's own item was not taken down with its lot");
  });
  it("a report filed before grouping (no subject) joins the grouped view after the backfill command, which is safe to run again", async () => {
    const scanId = `legacy${Math.random().toString(36).slice(2, 8).padEnd(6, "x")}`.slice(0, 12);
    const ref = firestore().collection("abuseReports").doc();
    // The shape reports had before `subject`: the code named by its scan id only.
    await ref.set({ uniqueQRCodeID: scanId, merchantId: "m-legacy", codeId: "c-legacy", destinationUrl: "https://legacy.example/", reason: "spam", details: "", contact: null, status: "open", createdAt: new Date(), decidedAt: null, decidedBy: null });
    const groupOf = () => listReportGroups("open", 5, undefined, 500, scanId);
    assert.deepEqual((await groupOf()).groups, [], "not in the grouped view before the backfill");
    const first = await adminCli("backfill-report-subjects");
    assert.ok(first.updated >= 1 && first.read >= first.updated, JSON.stringify(first));
    const { groups } = await groupOf();
    assert.deepEqual(groups.map((g) => [g.subject, g.reports.map((r) => r.reportId)]), [[scanId, [ref.id]]]);
    assert.equal((await ref.get()).get("subject"), scanId);
    assert.equal((await adminCli("backfill-report-subjects")).updated, 0, "a second run changes nothing");
  });
});
