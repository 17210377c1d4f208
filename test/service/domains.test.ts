// Branded domains (docs/domains.md): REST /api/domains and the domains toolset, checked against a real DNS
// server on loopback (test/helpers/dns.ts), the only DNS server any of these checks asks. Checks through
// HTTP name it in X-Test-Dns; the hourly job and the certificate timeout are called in this process with
// an injected clock (the emulator runs no schedules).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl, mcpUrl } from "../helpers/env";
import { TestDns } from "../helpers/dns";
import { createMerchant, firestore, mintKey, signUp, type TestMerchant } from "../helpers/merchants";
import { postRaw, rpc, toolResult } from "../helpers/rpc";
import { addMember } from "../../functions/src/store/workspaces";
import { removeDomain, runDomainChecks, verifyDomain, MAX_DOMAINS } from "../../functions/src/domains/service";
import type { CertificateIssuer } from "../../functions/src/domains/issuer";
import type { Caller } from "../../functions/src/auth/caller";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";

const DAY = 86_400_000;
let dns: TestDns;

async function rest(credential: string, path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const add = (m: TestMerchant, hostname: string) => rest(m.apiKey, "/api/domains", "POST", { hostname });
const verify = (m: TestMerchant, id: string) => rest(m.apiKey, `/api/domains/${id}/verify`, "POST", {}, { "X-Test-Dns": dns.address });
const uniqueHost = (label = "scan") => `${label}.m${randomUUID().slice(0, 8)}.example.com`;

/** The records a domain's answer asks for, by type. */
function recordsOf(domain: any): Record<string, { name: string; value: string }[]> {
  const byType: Record<string, { name: string; value: string }[]> = {};
  for (const r of domain.records) (byType[r.type] ??= []).push({ name: r.name, value: r.value });
  return byType;
}

/** Publishes every record a sub-domain's answer asks for in the loopback zone. */
function publish(domain: any): void {
  const r = recordsOf(domain);
  dns.set(r.TXT[0].name, { TXT: [r.TXT[0].value] });
  if (r.CNAME) dns.set(domain.hostname, { CNAME: r.CNAME[0].value });
  else dns.set(domain.hostname, { A: (r.A ?? []).map((x) => x.value), AAAA: (r.AAAA ?? []).map((x) => x.value) });
}

const callerOf = (m: TestMerchant): Caller => ({ merchantId: m.merchantId, uid: m.uid, authMethod: "api-key", scopes: [], isAdmin: false });

async function storedDomains(m: TestMerchant): Promise<number> {
  return (await firestore().collection("workspaces").doc(m.merchantId).collection("domains").count().get()).data().count;
}
const claimOf = async (hostname: string) => (await firestore().collection("domainHosts").doc(hostname).get()).data();
const mailsTo = async (email: string) => (await firestore().collection("mail").where("to", "==", email).get()).docs.map((d) => d.data());

describe("branded domains", function () {
  this.timeout(120_000);
  let owner: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    dns = new TestDns();
    await dns.start();
    [owner, other] = await Promise.all([createMerchant(), createMerchant()]);
    for (const m of [owner, other]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
  });
  after(() => dns.close());

  it("adds a sub-domain with a TXT token and a CNAME, and an apex with A/AAAA or ALIAS and the sentence that it cannot be a CNAME", async () => {
    const sub = await add(owner, "Scan.Bücher-Laden.example.");
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    assert.equal(sub.body.hostname, "scan.xn--bcher-laden-thb.example");
    assert.equal(sub.body.hostnameUnicode, "scan.bücher-laden.example");
    assert.equal(sub.body.state, "pending");
    const r = recordsOf(sub.body);
    assert.equal(r.TXT[0].name, "_svc-verify.scan.xn--bcher-laden-thb.example");
    assert.match(r.TXT[0].value, /^svc-verify=[0-9a-f]{32}$/);
    assert.equal(r.CNAME.length, 1);
    assert.equal(sub.body.recordsNote, null);
    assert.match(sub.body.problem, /Waiting for the TXT record/);

    const apex = await add(owner, `m${randomUUID().slice(0, 8)}.example`);
    assert.equal(apex.status, 201);
    assert.equal(apex.body.apex, true);
    const a = recordsOf(apex.body);
    assert.ok(a.A && a.AAAA && a.ALIAS && !a.CNAME, JSON.stringify(apex.body.records));
    assert.match(apex.body.recordsNote, /cannot be a CNAME/);

    const listed = await rest(owner.apiKey, "/api/domains");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.domains.map((d: any) => d.domainId), [sub.body.domainId, apex.body.domainId]);
    assert.equal((await rest(owner.apiKey, `/api/domains/${sub.body.domainId}`)).body.hostname, sub.body.hostname);
  });

  it("goes pending -> verifying -> active as the loopback zone gains its records, and re-verifies after a fix", async () => {
    const hostname = uniqueHost();
    const added = (await add(owner, hostname)).body;
    const r = recordsOf(added);
    const before = dns.questions.length;
    assert.equal((await verify(owner, added.domainId)).body.state, "pending");
    assert.ok(dns.questions.length > before, "the check asked the loopback server");

    dns.set(r.TXT[0].name, { TXT: [r.TXT[0].value] });
    const verifying = (await verify(owner, added.domainId)).body;
    assert.equal(verifying.state, "verifying");
    assert.match(verifying.problem, /Ownership is proven; waiting for a CNAME record/);

    dns.set(hostname, { CNAME: r.CNAME[0].value });
    const active = (await verify(owner, added.domainId)).body;
    assert.equal(active.state, "active", JSON.stringify(active));
    assert.equal(active.problem, null);
    assert.ok(active.activatedAt);
    assert.deepEqual(await claimOf(hostname), { merchantId: owner.merchantId, domainId: added.domainId, claimedAt: (await claimOf(hostname))!.claimedAt, serving: true });

    // Pointed elsewhere, then fixed: invalid, then active again with the run of invalidity forgotten.
    dns.set(hostname, { CNAME: "shop.other-host.example" });
    const moved = (await verify(owner, added.domainId)).body;
    assert.deepEqual([moved.state, moved.reason], ["invalid", "points_elsewhere"]);
    assert.match(moved.problem, /points elsewhere \(shop\.other-host\.example\)/);
    assert.ok(moved.invalidSince);
    dns.set(hostname, { CNAME: r.CNAME[0].value });
    const back = (await verify(owner, added.domainId)).body;
    assert.deepEqual([back.state, back.invalidSince, back.notice], ["active", null, null]);
  });

  it("names each reason a domain is invalid in a sentence", async () => {
    const cases: Array<[string, (d: any) => void, string, RegExp]> = [
      ["txt_stale", (d) => dns.set(recordsOf(d).TXT[0].name, { TXT: ["svc-verify=0123456789abcdef0123456789abcdef"] }), "txt_stale", /holds another token/],
      ["points_elsewhere", (d) => { publish(d); dns.set(d.hostname, { CNAME: "ghs.elsewhere.example" }); }, "points_elsewhere", /points elsewhere/],
      ["proxied", (d) => { publish(d); dns.set(d.hostname, { A: ["104.16.12.34"], AAAA: ["2606:4700::6810:1"] }); }, "proxied", /proxy's addresses \(104\.16\.12\.34, 2606:4700::6810:1\)/],
      ["caa_forbids", (d) => { publish(d); dns.set(d.hostname.split(".").slice(1).join("."), { CAA: [{ tag: "issue", value: "digicert.com" }] }); }, "caa_forbids", /does not allow pki\.goog, letsencrypt\.org/],
    ];
    for (const [label, arrange, reason, sentence] of cases) {
      const domain = (await add(owner, uniqueHost(label.replace("_", "-")))).body;
      arrange(domain);
      const checked = (await verify(owner, domain.domainId)).body;
      assert.deepEqual([checked.state, checked.reason], ["invalid", reason], `${label}: ${JSON.stringify(checked)}`);
      assert.match(checked.problem, sentence, label);
      assert.equal(await claimOf(domain.hostname), undefined, `${label}: an invalid new domain holds no host`);
    }

    // A CAA set that allows both of the issuer's CAs passes, at the name's parent.
    const allowed = (await add(owner, uniqueHost("caa-ok"))).body;
    publish(allowed);
    dns.set(allowed.hostname.split(".").slice(1).join("."), { CAA: [{ tag: "issue", value: "pki.goog" }, { tag: "issue", value: "letsencrypt.org; validationmethods=dns-01" }] });
    assert.equal((await verify(owner, allowed.domainId)).body.state, "active");

    // An active domain whose TXT or CNAME goes away.
    for (const [gone, reason] of [["TXT", "txt_missing"], ["CNAME", "serving_missing"]] as const) {
      const domain = (await add(owner, uniqueHost(`lost-${gone.toLowerCase()}`))).body;
      publish(domain);
      assert.equal((await verify(owner, domain.domainId)).body.state, "active");
      if (gone === "TXT") dns.remove(recordsOf(domain).TXT[0].name);
      else dns.set(domain.hostname, {});
      const lost = (await verify(owner, domain.domainId)).body;
      assert.deepEqual([lost.state, lost.reason], ["invalid", reason]);
    }

    // A DNS server that fails to answer changes nothing.
    const flaky = (await add(owner, uniqueHost("flaky"))).body;
    publish(flaky);
    assert.equal((await verify(owner, flaky.domainId)).body.state, "active");
    dns.set(recordsOf(flaky).TXT[0].name, { fail: true });
    const unanswered = (await verify(owner, flaky.domainId)).body;
    assert.equal(unanswered.state, "active");
    assert.match(unanswered.problem, /did not answer/);
  });

  it("a host two workspaces added is the first verifier's: the other's check says host_taken, and its add is now a 409", async () => {
    const hostname = uniqueHost("shared");
    const first = (await add(owner, hostname)).body;
    const second = (await add(other, hostname)).body;
    assert.equal(second.state, "pending", "pending domains do not hold the host");
    // Each has its own token; both TXT values are published, as two claimants would.
    dns.set(recordsOf(first).TXT[0].name, { TXT: [recordsOf(first).TXT[0].value, recordsOf(second).TXT[0].value] });
    dns.set(hostname, { CNAME: recordsOf(first).CNAME[0].value });
    assert.equal((await verify(owner, first.domainId)).body.state, "active");
    const taken = (await verify(other, second.domainId)).body;
    assert.deepEqual([taken.state, taken.reason], ["invalid", "host_taken"]);

    const third = await createMerchant();
    const before = await storedDomains(third);
    const refused = await add(third, hostname);
    assert.equal(refused.status, 409);
    assert.match(refused.body.message, /in use by another workspace/);
    assert.equal(await storedDomains(third), before);

    // Deleting frees it; adding again (anywhere) gives a new token.
    assert.equal((await rest(owner.apiKey, `/api/domains/${first.domainId}`, "DELETE")).body.deleted, true);
    assert.equal(await claimOf(hostname), undefined);
    const again = await add(third, hostname);
    assert.equal(again.status, 201);
    assert.notEqual(recordsOf(again.body).TXT[0].value, recordsOf(first).TXT[0].value);
    const readded = await add(owner, hostname);
    assert.equal(readded.status, 201);
    assert.notEqual(recordsOf(readded.body).TXT[0].value, recordsOf(first).TXT[0].value, "a re-add has a fresh token");
  });

  it("refuses names that cannot be a merchant's, a second add of a host, and a 21st domain, with nothing written", async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    const refusals: Array<[string, number, string]> = [
      ["com", 400, "public_suffix"],
      ["co.uk", 400, "public_suffix"],
      ["domains.svc.test", 400, "own_host"],
      ["scan.domains.svc.test", 400, "own_host"],
      ["127.0.0.1", 400, "ip_literal"],
      ["[::1]", 400, "ip_literal"],
      ["bad_name.example.com", 400, "invalid"],
      [`${"a".repeat(64)}.example.com`, 400, "invalid"],
      ["login.phishing.test", 400, "blocked"],
    ];
    for (const [hostname, status, reason] of refusals) {
      const answer = await add(m, hostname);
      assert.equal(answer.status, status, `${hostname}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, "VALIDATION_FAILED");
      assert.equal(answer.body.details.reason, reason, hostname);
      assert.match(answer.body.message, /\.$/);
    }
    for (const body of [{}, { hostname: "" }, { hostname: "x".repeat(300) }, { hostname: "a.example.com", extra: 1 }, { hostname: 5 }]) {
      assert.equal((await rest(m.apiKey, "/api/domains", "POST", body)).status, 400, JSON.stringify(body));
    }
    assert.equal(await storedDomains(m), 0);

    const hosts = Array.from({ length: MAX_DOMAINS }, () => uniqueHost("cap"));
    for (const h of hosts) assert.equal((await add(m, h)).status, 201);
    const duplicate = await add(m, hosts[0].toUpperCase());
    assert.equal(duplicate.status, 409);
    assert.match(duplicate.body.message, /already a domain of this workspace/);
    const over = await add(m, uniqueHost("over"));
    assert.equal(over.status, 409);
    assert.equal(over.body.code, "CONFLICT");
    assert.match(over.body.message, /at most 20 domains/);
    assert.equal(await storedDomains(m), MAX_DOMAINS);
    assert.equal((await rest(m.apiKey, "/api/domains")).body.count, MAX_DOMAINS);
  });

  it("only the owner changes domains, a key needs the domains scopes, and another workspace sees none of them", async () => {
    const domain = (await add(owner, uniqueHost("owned"))).body;
    const member = await signUp();
    await addMember(owner.merchantId, member.uid);
    const memberKey = await mintKey({ ...owner, uid: member.uid }, ["domains:read", "domains:write"]);
    const asMember = { ...owner, apiKey: memberKey };
    assert.equal((await rest(memberKey, `/api/domains/${domain.domainId}`)).status, 200, "a member reads");
    for (const answer of [await add(asMember, uniqueHost("member")), await verify(asMember, domain.domainId), await rest(memberKey, `/api/domains/${domain.domainId}`, "DELETE")]) {
      assert.equal(answer.status, 403);
      assert.equal(answer.body.code, "FORBIDDEN");
    }
    const readOnly = await mintKey(owner, ["domains:read"]);
    const noScope = await rest(readOnly, "/api/domains", "POST", { hostname: uniqueHost("scope") });
    assert.deepEqual([noScope.status, noScope.body.code], [403, "INSUFFICIENT_SCOPE"]);
    const noRead = await mintKey(owner, ["merchant:read"]);
    assert.equal((await rest(noRead, "/api/domains")).status, 403);

    for (const answer of [
      await rest(other.apiKey, `/api/domains/${domain.domainId}`),
      await verify(other, domain.domainId),
      await rest(other.apiKey, `/api/domains/${domain.domainId}`, "DELETE"),
    ]) {
      assert.equal(answer.status, 404);
      assert.equal(answer.body.code, "NOT_FOUND");
    }
    assert.ok(!(await rest(other.apiKey, "/api/domains")).body.domains.some((d: any) => d.domainId === domain.domainId));
    assert.equal((await rest(owner.apiKey, `/api/domains/${domain.domainId}`)).status, 200, "still there");
  });

  it("the domains toolset (not the default list) adds, lists and removes", async () => {
    const defaultList = (await rpc("tools/list", {}, owner.apiKey)).body.result.tools.map((t: any) => t.name);
    assert.ok(!defaultList.some((n: string) => n.startsWith("svc.domain.")), "not in the default list");
    const toolset = `${mcpUrl()}/x/domains`;
    const post = (method: string, params: unknown) =>
      postRaw(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), { Authorization: `Bearer ${owner.apiKey}`, "Content-Type": "application/json" }, toolset);
    const listed = (await post("tools/list", {})).body.result.tools.map((t: any) => t.name).sort();
    assert.deepEqual(listed, ["svc.domain.add", "svc.domain.list", "svc.domain.remove", "svc.domain.set_page_colours", "svc.domain.verify"]);
    const hostname = uniqueHost("tool");
    const added = toolResult(await post("tools/call", { name: "svc.domain.add", arguments: { hostname } }));
    assert.equal(added.hostname, hostname);
    const one = toolResult(await post("tools/call", { name: "svc.domain.list", arguments: { domainId: added.domainId } }));
    assert.deepEqual(one.domains.map((d: any) => d.state), ["pending"]);
    assert.equal(toolResult(await post("tools/call", { name: "svc.domain.remove", arguments: { domainId: added.domainId } })).deleted, true);
    const refused = (await post("tools/call", { name: "svc.domain.add", arguments: { hostname: "com" } })).body;
    assert.equal(refused.error?.data?.code ?? refused.result?.structuredContent?.code, "VALIDATION_FAILED", JSON.stringify(refused));
  });

  it("waits in cert_pending for a certificate, and turns invalid when none comes within 24 hours", async () => {
    const domain = (await add(owner, uniqueHost("cert"))).body;
    publish(domain);
    const never: CertificateIssuer = { name: "never", caaDomains: ["pki.goog", "letsencrypt.org"], request: () => Promise.resolve({ state: "pending", problem: null, expiresAt: null }), release: () => Promise.resolve() };
    const t0 = new Date(Date.now() + 60_000);
    const pending = await verifyDomain(callerOf(owner), domain.domainId, { dnsServers: [dns.address], issuer: never, now: t0 });
    assert.equal(pending.state, "cert_pending");
    const later = await verifyDomain(callerOf(owner), domain.domainId, { dnsServers: [dns.address], issuer: never, now: new Date(t0.getTime() + 23 * 3_600_000) });
    assert.equal(later.state, "cert_pending");
    const timedOut = await verifyDomain(callerOf(owner), domain.domainId, { dnsServers: [dns.address], issuer: never, now: new Date(t0.getTime() + 24 * 3_600_000) });
    assert.deepEqual([timedOut.state, timedOut.reason], ["invalid", "cert_timeout"]);
    assert.match(timedOut.problem!, /No certificate was issued within 24 hours/);
  });

  it("hands a host's certificate back to the issuer when its domain is deleted or detached; a refused release never blocks the delete", async () => {
    const released: string[] = [];
    const recording: CertificateIssuer = {
      name: "recording",
      caaDomains: ["pki.goog", "letsencrypt.org"],
      request: (_hostname, now) => Promise.resolve({ state: "issued", expiresAt: new Date(now.getTime() + 90 * DAY) }),
      release: (hostname) => {
        released.push(hostname);
        return Promise.resolve();
      },
    };
    const [deleted, detached, refused] = await Promise.all(["gone", "detach", "refused"].map(async (label) => (await add(owner, uniqueHost(label))).body));
    const t0 = new Date(Date.now() + 60_000);
    for (const d of [deleted, detached, refused]) {
      publish(d);
      assert.equal((await verifyDomain(callerOf(owner), d.domainId, { dnsServers: [dns.address], issuer: recording, now: t0 })).state, "active");
    }
    await removeDomain(callerOf(owner), deleted.domainId, { issuer: recording });
    assert.deepEqual(released, [deleted.hostname]);
    const refusing: CertificateIssuer = { ...recording, release: () => Promise.reject(new Error("PERMISSION_DENIED")) };
    assert.deepEqual(await removeDomain(callerOf(owner), refused.domainId, { issuer: refusing }), { deleted: true, domainId: refused.domainId });
    assert.equal((await rest(owner.apiKey, `/api/domains/${refused.domainId}`)).status, 404, "deleted all the same");

    dns.remove(recordsOf(detached).TXT[0].name);
    const later = new Date(t0.getTime() + 3_600_000);
    assert.equal((await verifyDomain(callerOf(owner), detached.domainId, { dnsServers: [dns.address], issuer: recording, now: later })).state, "invalid");
    assert.deepEqual(released, [deleted.hostname], "an invalid domain keeps its certificate while it may come back");
    const gone = await verifyDomain(callerOf(owner), detached.domainId, { dnsServers: [dns.address], issuer: recording, now: new Date(later.getTime() + 30 * DAY) });
    assert.equal(gone.state, "detached");
    assert.deepEqual(released, [deleted.hostname, detached.hostname]);
  });

  it("the hourly job turns a domain that stops verifying invalid, tells its owner at once, at 14 and 28 days, and detaches it at 30", async () => {
    const m = await createMerchant();
    await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    const domain = (await add(m, uniqueHost("hourly"))).body;
    publish(domain);
    const t0 = Date.now() + 2 * 3_600_000;
    const run = async (at: number) => {
      await runDomainChecks({ now: new Date(at), dnsServers: [dns.address] });
      return (await rest(m.apiKey, `/api/domains/${domain.domainId}`)).body;
    };
    assert.equal((await run(t0)).state, "active");
    assert.deepEqual(await mailsTo(m.email), []);

    dns.remove(recordsOf(domain).TXT[0].name);
    const invalid = await run(t0 + 2 * 3_600_000);
    assert.deepEqual([invalid.state, invalid.reason], ["invalid", "txt_missing"]);
    assert.match(invalid.notice.text, /stopped verifying .* detached on/);
    assert.equal((await mailsTo(m.email)).length, 1, "told at once");
    await run(t0 + 3 * 3_600_000);
    assert.equal((await mailsTo(m.email)).length, 1, "once: the next hour sends nothing");

    const start = t0 + 2 * 3_600_000;
    await run(start + 14 * DAY);
    assert.equal((await mailsTo(m.email)).length, 2, "at 14 days");
    await run(start + 20 * DAY);
    assert.equal((await mailsTo(m.email)).length, 2);
    await run(start + 28 * DAY);
    assert.equal((await mailsTo(m.email)).length, 3, "at 28 days");
    assert.ok(await claimOf(domain.hostname), "held until detached");
    const detached = await run(start + 30 * DAY);
    assert.equal(detached.state, "detached");
    assert.ok(detached.detachedAt);
    assert.equal(await claimOf(domain.hostname), undefined, "the host is free once detached");
    const mails = await mailsTo(m.email);
    assert.equal(mails.length, 4);
    assert.match(mails.map((x) => x.message.subject).join("|"), /detached/);

    // Verified again: active once more, holding its host.
    dns.set(recordsOf(domain).TXT[0].name, { TXT: [recordsOf(domain).TXT[0].value] });
    const back = await run(start + 31 * DAY);
    assert.deepEqual([back.state, back.detachedAt, back.invalidSince], ["active", null, null]);
    assert.ok(await claimOf(domain.hostname));
  });
});
