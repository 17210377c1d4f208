// Codes on a branded domain (docs/domains.md, "Codes on a domain"): a dynamic code naming an active domain
// of its workspace carries its host in its link and PNG (decoded here), refusals write nothing, the
// workspace default applies to new dynamic codes, and a detached domain's codes fall back to the service's
// own host until it verifies again. DNS answers come from the loopback server (test/helpers/dns.ts); the
// detach is driven by verifyDomain with an injected clock.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl, baseUrl } from "../helpers/env";
import { TestDns } from "../helpers/dns";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { decodePng, decodeSvg, fetchPng } from "../helpers/qr";
import { verifyDomain } from "../../functions/src/domains/service";
import type { Caller } from "../../functions/src/auth/caller";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";

const DAY = 86_400_000;
let dns: TestDns;

async function rest(m: TestMerchant, path: string, method = "GET", body?: unknown) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${m.apiKey}`, "X-Test-Dns": dns.address, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const callerOf = (m: TestMerchant): Caller => ({ merchantId: m.merchantId, uid: m.uid, authMethod: "api-key", scopes: [], isAdmin: false });
const uniqueHost = () => `scan.m${randomUUID().slice(0, 8)}.example.com`;

/** Adds a sub-domain and publishes its records; verified unless `verified` is false. */
async function domainOf(m: TestMerchant, verified = true): Promise<{ domainId: string; hostname: string; cname: string }> {
  const added = await rest(m, "/api/domains", "POST", { hostname: uniqueHost() });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const txt = added.body.records.find((r: any) => r.type === "TXT");
  const cname = added.body.records.find((r: any) => r.type === "CNAME").value;
  dns.set(txt.name, { TXT: [txt.value] });
  // Unverified: its TXT is seen, its serving record is not (verifying), whatever checks ran elsewhere.
  if (verified) dns.set(added.body.hostname, { CNAME: cname });
  const checked = await rest(m, `/api/domains/${added.body.domainId}/verify`, "POST", {});
  assert.equal(checked.body.state, verified ? "active" : "verifying", JSON.stringify(checked.body));
  return { domainId: added.body.domainId, hostname: added.body.hostname, cname };
}

const createTool = (m: TestMerchant, args: Record<string, unknown>) => callTool("svc.qr.create", { title: "Menu", destinationUrl: "https://example.com/menu", ...args }, m.apiKey);
const codeCount = async (m: TestMerchant) => (await firestore().collection("workspaces").doc(m.merchantId).collection("codes").count().get()).data().count;
const readCode = async (m: TestMerchant, codeId: string) => (await firestore().collection("workspaces").doc(m.merchantId).collection("codes").doc(codeId).get()).data()!;
const pngPayload = async (url: string) => decodePng(await fetchPng(url)).payload;
/** The code's link on the service's own host, which keeps answering whatever domain the code names. */
const defaultLinkOf = (code: { uniqueQRCodeID: string }) => `${baseUrl()}/qr/${code.uniqueQRCodeID}`;

describe("codes on a branded domain", function () {
  this.timeout(120_000);
  let owner: TestMerchant;
  let other: TestMerchant;
  let domain: { domainId: string; hostname: string; cname: string };

  before(async () => {
    dns = new TestDns();
    await dns.start();
    [owner, other] = await Promise.all([createMerchant(), createMerchant()]);
    for (const m of [owner, other]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    domain = await domainOf(owner);
  });
  after(() => dns.close());

  it("a dynamic code on an active domain carries its host in the link, the PNG and the SVG; the default-host link is answered beside it", async () => {
    const code = toolResult(await createTool(owner, { dynamic: true, domainId: domain.domainId }));
    assert.equal(code.domainId, domain.domainId);
    assert.equal(code.dynamicLink, `https://${domain.hostname}/qr/${code.uniqueQRCodeID}`);
    assert.ok(!defaultLinkOf(code).includes(domain.hostname));
    assert.equal(await pngPayload(code.qrImageUrl), code.dynamicLink);
    const svg = await (await fetch(code.qrSvgUrl)).text();
    assert.equal((await decodeSvg(svg)).payload, code.dynamicLink);
  });

  it("refuses a domain of another workspace (400), one not active (409) and a static code naming one (400), writing nothing", async () => {
    const theirs = await domainOf(other);
    const pending = await domainOf(owner, false);
    const before = await codeCount(owner);
    const foreign = await createTool(owner, { dynamic: true, domainId: theirs.domainId });
    assert.equal(foreign.body.error.data.code, "VALIDATION_FAILED", JSON.stringify(foreign.body));
    const bulkForeign = await rest(owner, "/api/bulk-qr-codes", "POST", { urls: ["https://example.com/a"], domainId: theirs.domainId });
    assert.equal(bulkForeign.status, 400, JSON.stringify(bulkForeign.body));
    assert.equal(bulkForeign.body.details.reason, "unknown_domain");
    const bulkPending = await rest(owner, "/api/bulk-qr-codes", "POST", { urls: ["https://example.com/a"], domainId: pending.domainId });
    assert.equal(bulkPending.status, 409, JSON.stringify(bulkPending.body));
    assert.deepEqual([bulkPending.body.details.reason, bulkPending.body.details.state], ["domain_not_active", "verifying"]);
    assert.match(bulkPending.body.message, /not active/);
    const staticCode = await createTool(owner, { domainId: domain.domainId });
    assert.match(staticCode.body.error.message, /domainId needs a dynamic code/);
    assert.match(foreign.body.error.message, /has no domain/);
    const setPending = await rest(owner, "/api/domains/default", "POST", { domainId: pending.domainId });
    assert.equal(setPending.status, 409);
    assert.equal(await codeCount(owner), before, "no refusal wrote a code");
    assert.equal((await rest(owner, "/api/domains")).body.defaultDomainId, null, "nor a default");
  });

  it("bulk codes naming a domain are dynamic on it; the workspace default applies to new dynamic codes that name none", async () => {
    const bulk = await rest(owner, "/api/bulk-qr-codes", "POST", { urls: ["https://example.com/bulk-a"], domainId: domain.domainId });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.match(bulk.body.codes[0].dynamicLink, new RegExp(`^https://${domain.hostname.replace(/\./g, "\\.")}/qr/`));
    assert.equal(await pngPayload(bulk.body.codes[0].qrImageUrl), bulk.body.codes[0].dynamicLink);

    assert.deepEqual((await rest(owner, "/api/domains/default", "POST", { domainId: domain.domainId })).body, { defaultDomainId: domain.domainId });
    assert.equal((await rest(owner, "/api/domains")).body.defaultDomainId, domain.domainId);
    const byDefault = toolResult(await createTool(owner, { dynamic: true }));
    assert.equal(byDefault.domainId, domain.domainId);
    assert.ok(byDefault.dynamicLink.startsWith(`https://${domain.hostname}/`));
    const optedOut = toolResult(await createTool(owner, { dynamic: true, domainId: null }));
    assert.equal(optedOut.domainId, null);
    assert.equal(optedOut.dynamicLink, defaultLinkOf(optedOut));
    const staticOne = toolResult(await createTool(owner, {}));
    assert.equal(staticOne.domainId, null, "a static code takes no default");
    assert.deepEqual((await rest(owner, "/api/domains/default", "POST", { domainId: null })).body, { defaultDomainId: null });
  });

  it("svc.qr.update moves a code onto a domain and back at the same qrImageUrl", async () => {
    const code = toolResult(await createTool(owner, { dynamic: true, domainId: null }));
    const moved = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, domainId: domain.domainId }, owner.apiKey));
    assert.equal(moved.qrImageUrl, code.qrImageUrl);
    assert.equal(moved.dynamicLink, `https://${domain.hostname}/qr/${code.uniqueQRCodeID}`);
    assert.equal(await pngPayload(moved.qrImageUrl), moved.dynamicLink);
    const back = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, domainId: null }, owner.apiKey));
    assert.equal(back.dynamicLink, defaultLinkOf(code));
    assert.equal(await pngPayload(back.qrImageUrl), defaultLinkOf(code));
  });

  it("a detached domain's codes keep domainId but fall back to the service's host (link and PNG) until it verifies again", async () => {
    const d = await domainOf(owner);
    const code = toolResult(await createTool(owner, { dynamic: true, domainId: d.domainId }));
    const t0 = new Date(Date.now() + DAY);
    dns.set(d.hostname, { CNAME: "shop.other-host.example" });
    const deps = (at: number) => ({ dnsServers: [dns.address], now: new Date(t0.getTime() + at) });
    assert.equal((await verifyDomain(callerOf(owner), d.domainId, deps(0))).state, "invalid");
    // Within its 30 days it still holds its host: codes stay on it.
    assert.equal((await readCode(owner, code.codeId)).dynamicLink, code.dynamicLink);
    assert.equal((await verifyDomain(callerOf(owner), d.domainId, deps(31 * DAY))).state, "detached");
    const fallen = await readCode(owner, code.codeId);
    assert.equal(fallen.domainId, d.domainId);
    assert.equal(fallen.dynamicLink, defaultLinkOf(code));
    assert.equal(await pngPayload(code.qrImageUrl), defaultLinkOf(code));
    const listed = toolResult(await callTool("svc.qr.list", {}, owner.apiKey));
    assert.equal(listed.codes.find((c: any) => c.codeId === code.codeId).dynamicLink, defaultLinkOf(code));

    dns.set(d.hostname, { CNAME: d.cname });
    assert.equal((await verifyDomain(callerOf(owner), d.domainId, deps(32 * DAY))).state, "active");
    assert.equal((await readCode(owner, code.codeId)).dynamicLink, code.dynamicLink);
    assert.equal(await pngPayload(code.qrImageUrl), code.dynamicLink);
  });

  it("deleting a domain puts its codes back on the service's host", async () => {
    const d = await domainOf(owner);
    const code = toolResult(await createTool(owner, { dynamic: true, domainId: d.domainId }));
    assert.equal((await rest(owner, `/api/domains/${d.domainId}`, "DELETE")).status, 200);
    assert.equal((await readCode(owner, code.codeId)).dynamicLink, defaultLinkOf(code));
    assert.equal(await pngPayload(code.qrImageUrl), defaultLinkOf(code));
  });
});
