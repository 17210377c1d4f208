// A branded domain's app association files through REST (/api/domains/{id}/app-links) and what the
// serving layer gets for its host once the domain holds it (docs/domains.md, "App links"): a bad file is a
// 400 with nothing written, only the owner changes them, another workspace gets 404, and deleting the
// domain deletes them.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl } from "../helpers/env";
import { TestDns } from "../helpers/dns";
import { createMerchant, firestore, mintKey, signUp, type TestMerchant } from "../helpers/merchants";
import { readAnswer } from "../helpers/rpc";
import { addMember } from "../../functions/src/store/workspaces";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { wellKnownAnswer } from "../../functions/src/domains/appLinks";

async function rest(credential: string, path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return readAnswer(res);
}

const FP = Array(32).fill("9A").join(":");
const apple = { applinks: { details: [{ appIDs: ["ABCDE12345.com.brand.shop"], components: [{ "/": "/qr/*" }] }] } };
const google = [{ relation: ["delegate_permission/common.handle_all_urls"], target: { namespace: "android_app", package_name: "com.brand.shop", sha256_cert_fingerprints: [FP] } }];

describe("branded domains: app association files", function () {
  this.timeout(120_000);
  let dns: TestDns;
  let owner: TestMerchant;
  let other: TestMerchant;
  let domain: { domainId: string; hostname: string; records: Array<{ type: string; name: string; value: string }> };
  const links = () => `/api/domains/${domain.domainId}/app-links`;

  before(async () => {
    dns = new TestDns();
    await dns.start();
    [owner, other] = await Promise.all([createMerchant(), createMerchant()]);
    for (const m of [owner, other]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    domain = (await rest(owner.apiKey, "/api/domains", "POST", { hostname: `links.m${randomUUID().slice(0, 8)}.example.com` })).body;
  });
  after(() => dns.close());

  it("the owner sets both files; they read back as given, and a file can be removed alone", async () => {
    assert.deepEqual((await rest(owner.apiKey, links())).body, { domainId: domain.domainId, hostname: domain.hostname, appleAppSiteAssociation: null, assetLinks: null, updatedAt: null });
    const set = await rest(owner.apiKey, links(), "POST", { appleAppSiteAssociation: apple, assetLinks: google });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual([set.body.appleAppSiteAssociation, set.body.assetLinks], [apple, google]);
    const read = await rest(owner.apiKey, links());
    assert.deepEqual([read.body.appleAppSiteAssociation, read.body.assetLinks], [apple, google]);
    const removed = await rest(owner.apiKey, links(), "POST", { assetLinks: null });
    assert.deepEqual([removed.body.appleAppSiteAssociation, removed.body.assetLinks], [apple, null], "the file not named is kept");
    await rest(owner.apiKey, links(), "POST", { assetLinks: google });
  });

  it("a file that does not match its documented shape, or is not JSON, is a 400 and nothing is written", async () => {
    const before = (await rest(owner.apiKey, links())).body;
    const bad: Array<[string, unknown]> = [
      ["an Apple app id without its team", { appleAppSiteAssociation: { applinks: { details: [{ appIDs: ["com.brand.shop"] }] } } }],
      ["a lower-case fingerprint", { assetLinks: [{ ...google[0], target: { ...google[0].target, sha256_cert_fingerprints: [FP.toLowerCase()] } }] }],
      ["a good file beside a bad one", { appleAppSiteAssociation: apple, assetLinks: [{ relation: [], target: google[0].target }] }],
      ["an unknown key", { appleAppSiteAssociation: { ...apple, extra: true } }],
      ["nothing named", {}],
      ["too big", { appleAppSiteAssociation: { applinks: { details: [{ appID: "ABCDE12345.a.b", paths: Array.from({ length: 400 }, () => "/".padEnd(200, "x")) }] } } }],
    ];
    for (const [what, body] of bad) {
      const answer = await rest(owner.apiKey, links(), "POST", body);
      assert.deepEqual([answer.status, answer.body?.code], [400, "VALIDATION_FAILED"], what);
      assert.equal(typeof answer.body.message, "string");
    }
    const notJson = await rest(owner.apiKey, links(), "POST", '{"appleAppSiteAssociation": {"applinks": ');
    assert.equal(notJson.status, 400, "JSON that does not parse");
    assert.deepEqual((await rest(owner.apiKey, links())).body, before, "nothing was written");
  });

  it("a member reads but cannot change them; another workspace gets 404", async () => {
    const member = await signUp();
    await addMember(owner.merchantId, member.uid);
    const memberKey = await mintKey({ ...owner, uid: member.uid }, ["domains:read", "domains:write"]);
    assert.equal((await rest(memberKey, links())).status, 200);
    const refused = await rest(memberKey, links(), "POST", { assetLinks: null });
    assert.deepEqual([refused.status, refused.body.code], [403, "FORBIDDEN"]);
    for (const answer of [await rest(other.apiKey, links()), await rest(other.apiKey, links(), "POST", { assetLinks: null })]) assert.deepEqual([answer.status, answer.body.code], [404, "NOT_FOUND"]);
    assert.ok((await rest(owner.apiKey, links())).body.assetLinks, "still there");
  });

  it("served for the host only once the domain holds it, as 200 application/json; gone with the domain", async () => {
    assert.equal(await wellKnownAnswer(domain.hostname, "/.well-known/assetlinks.json"), null, "a domain not yet verified holds no host");
    const txt = domain.records.find((r) => r.type === "TXT")!;
    dns.set(txt.name, { TXT: [txt.value] });
    dns.set(domain.hostname, { CNAME: domain.records.find((r) => r.type === "CNAME")!.value });
    const verified = await rest(owner.apiKey, `/api/domains/${domain.domainId}/verify`, "POST", {}, { "X-Test-Dns": dns.address });
    assert.equal(verified.body.state, "active");
    const served = await wellKnownAnswer(domain.hostname.toUpperCase(), "/.well-known/apple-app-site-association");
    assert.deepEqual([served?.status, served?.contentType], [200, "application/json"]);
    assert.deepEqual(JSON.parse(served!.body), apple);
    assert.deepEqual(JSON.parse((await wellKnownAnswer(domain.hostname, "/.well-known/assetlinks.json"))!.body), google);
    assert.equal(await wellKnownAnswer(domain.hostname, "/.well-known/gs1resolver"), null);

    assert.equal((await rest(owner.apiKey, `/api/domains/${domain.domainId}`, "DELETE")).status, 200);
    assert.equal(await wellKnownAnswer(domain.hostname, "/.well-known/apple-app-site-association"), null);
    const files = await firestore().collection("workspaces").doc(owner.merchantId).collection("domains").doc(domain.domainId).collection("wellKnown").doc("files").get();
    assert.equal(files.exists, false, "the files went with the domain");
  });
});
