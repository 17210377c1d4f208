// Named UTM templates (issue 38, item 4) written by REST and MCP through the local front end, named by a
// code's campaign settings and appended by the redirect; refusals change nothing; one workspace's
// templates are its own.
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const client = newClient();

async function rest(merchant: TestMerchant, path: string, method = "GET", body?: unknown) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const stored = async (merchant: TestMerchant) => ((await firestore().collection("workspaces").doc(merchant.merchantId).get()).get("utmTemplates") ?? []) as Array<{ name: string }>;

async function scanLocation(uniqueQRCodeID: string): Promise<string> {
  const res = await client.fetch(`${baseUrl()}/qr/${uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
  await res.arrayBuffer();
  assert.equal(res.status, 302);
  return res.headers.get("location")!;
}

describe("campaign UTM templates: written by REST and MCP, appended by the redirect", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let other: TestMerchant;
  before(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
  });

  it("creates, replaces, lists and removes templates, and a code's rules append the one they name", async () => {
    const created = await rest(merchant, "/api/utm-templates", "POST", { name: "poster", source: "qr", medium: "print", campaign: "winter" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.created, true);
    const replaced = await rest(merchant, "/api/utm-templates", "POST", { name: "poster", source: "qr", medium: "print", campaign: "spring", content: "door" });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.created, false);
    const byTool = toolResult(await callTool("svc.utm.set_template", { template: { name: "flyer", source: "qr", medium: "flyer" } }, merchant.apiKey));
    assert.deepEqual(byTool.templates.map((t: { name: string }) => t.name), ["flyer", "poster"]);
    const listed = await rest(merchant, "/api/utm-templates");
    assert.deepEqual(listed.body.templates, [
      { name: "flyer", source: "qr", medium: "flyer" },
      { name: "poster", source: "qr", medium: "print", campaign: "spring", content: "door" },
    ]);

    // A code names it: every URL it sends people to gets the parameters it lacks, its own kept.
    const code = toolResult(await callTool("svc.qr.create", { title: "Door", destinationUrl: "https://example.com/menu?utm_source=door#top", dynamic: true }, merchant.apiKey));
    toolResult(await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [], utmTemplate: "poster", fallbackUrl: "https://example.com/after" } }, merchant.apiKey));
    assert.equal(await scanLocation(code.uniqueQRCodeID), "https://example.com/menu?utm_source=door&utm_medium=print&utm_campaign=spring&utm_content=door#top");

    // Removing the template leaves the code with the parameters it was set with; naming it again is refused.
    const removed = toolResult(await callTool("svc.utm.set_template", { remove: "poster" }, merchant.apiKey));
    assert.equal(removed.deleted, "poster");
    assert.deepEqual(removed.templates.map((t: { name: string }) => t.name), ["flyer"]);
    assert.match(await scanLocation(code.uniqueQRCodeID), /utm_campaign=spring/);
    const again = await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [], utmTemplate: "poster" } }, merchant.apiKey);
    assert.match(JSON.stringify(again.body), /no UTM template named \\"poster\\"/);
    const gone = await rest(merchant, "/api/utm-templates/poster", "DELETE");
    assert.equal(gone.status, 404);
    assert.match(gone.body.hint, /flyer/);
    const deleted = await rest(merchant, "/api/utm-templates/flyer", "DELETE");
    assert.deepEqual([deleted.status, deleted.body.deleted, deleted.body.templates], [200, true, []]);
  });

  it("refuses bad templates and the 51st with a clear error, writing nothing", async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ name: "Poster", source: "qr", medium: "print" }, /name/],
      [{ name: "poster", source: "qr" }, /medium/],
      [{ name: "poster", source: "qr", medium: "print", channel: "x" }, /unknown UTM field/],
      [{ name: "poster", source: "x".repeat(101), medium: "print" }, /source/],
      [{ name: "poster", source: "", medium: "print" }, /source/],
    ];
    for (const [body, reason] of bad) {
      const res = await rest(other, "/api/utm-templates", "POST", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, "VALIDATION_FAILED");
      assert.match(res.body.message, reason, JSON.stringify(body));
    }
    const both = await callTool("svc.utm.set_template", { template: { name: "a", source: "s", medium: "m" }, remove: "a" }, other.apiKey);
    assert.match(JSON.stringify(both.body), /not both/);
    assert.deepEqual(await stored(other), []);

    // Concurrent writers lose nothing (one transaction each), and the cap holds: 40 stored beforehand, 10 at once.
    const seeded = Array.from({ length: 40 }, (_, i) => ({ name: `s${String(i).padStart(2, "0")}`, source: "qr", medium: "print" }));
    await firestore().collection("workspaces").doc(other.merchantId).update({ utmTemplates: seeded });
    const names = Array.from({ length: 10 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    const results = await Promise.all(names.map((name) => rest(other, "/api/utm-templates", "POST", { name, source: "qr", medium: "print" })));
    assert.deepEqual(results.map((r) => r.status), names.map(() => 201));
    assert.deepEqual((await stored(other)).map((t) => t.name).sort(), [...seeded.map((t) => t.name), ...names].sort());
    const over = await rest(other, "/api/utm-templates", "POST", { name: "one-more", source: "qr", medium: "print" });
    assert.equal(over.status, 409);
    assert.equal(over.body.code, "CONFLICT");
    assert.equal((await stored(other)).length, 50);
    // Replacing one of the 50 is still allowed.
    assert.equal((await rest(other, "/api/utm-templates", "POST", { name: "t07", source: "qr", medium: "radio" })).status, 200);
  });

  it("keeps each workspace's templates to itself", async () => {
    const third = await createMerchant();
    await rest(merchant, "/api/utm-templates", "POST", { name: "mine", source: "qr", medium: "print" });
    assert.deepEqual((await rest(third, "/api/utm-templates")).body.templates, []);
    assert.equal((await rest(third, "/api/utm-templates/mine", "DELETE")).status, 404);
    const code = toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl: "https://example.com/x", dynamic: true }, third.apiKey));
    const named = await callTool("svc.qr.set_rules", { codeId: code.codeId, settings: { rules: [], utmTemplate: "mine" } }, third.apiKey);
    assert.match(JSON.stringify(named.body), /no UTM template named/);
    assert.ok((await stored(merchant)).some((t) => t.name === "mine"));
  });
});
