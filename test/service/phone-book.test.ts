import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Timestamp } from "firebase-admin/firestore";
import { MAX_PENDING_LISTINGS, PENDING_LISTING_LIFETIME_DAYS } from "../../functions/src/core/limits";
import { approveListing, moderateListing, rejectListing } from "../../functions/src/listings/service";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { adminCli } from "../helpers/admin";
import { adminToken, createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";

const uniqueDomain = () => `shop-${randomUUID().slice(0, 8)}.example`;

async function register(merchant: TestMerchant, args: Record<string, unknown>, key = merchant.apiKey) {
  return callTool("svc.voice_agent.register", { businessName: "Bean There", voiceAgentPhone: "+1 415 555 0123", email: "owner@example.com", ...args }, key);
}

/** What TTL deletion would act on, brought forward: the pending listing's expiry is moved into the past. */
async function expire(domain: string): Promise<void> {
  await firestore().collection("listings").doc(domain).update({ expiresAt: Timestamp.fromMillis(Date.now() - 1000) });
}

/** Structured log entries (one JSON object per line, as the firebase-functions logger writes them) during fn. */
async function captureLogs(fn: () => Promise<unknown>): Promise<any[]> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: any[]) => {
    lines.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return lines.flatMap((l) => l.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

describe("voice agent phone book", function () {
  this.timeout(90_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("register, approve (console admin), confirmation mail, lookup and pages", async () => {
    const domain = uniqueDomain();
    const registered = toolResult(await register(merchant, { domain: `https://www.${domain.toUpperCase()}/menu?x=1` }));
    assert.equal(registered.domain, domain);
    assert.equal(registered.status, "pending");
    assert.equal(registered.free, true);
    assert.equal(registered.voiceAgentPhone, "+14155550123");
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, merchant.apiKey)).registered, false);
    assert.equal((await fetch(`${baseUrl()}/d/${domain}`)).status, 404);

    const approveUrl = `${appUrl()}/api/console/listings/${domain}/approve`;
    assert.equal((await fetch(approveUrl, { method: "POST", headers: { Authorization: `Bearer ${merchant.idToken}` } })).status, 403);
    const token = await adminToken();
    const pending = await (await fetch(`${appUrl()}/api/console/listings?status=pending`, { headers: { Authorization: `Bearer ${token}` } })).json() as any;
    assert.ok(pending.listings.some((l: any) => l.domain === domain));
    const approved = await fetch(approveUrl, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    assert.equal(approved.status, 200);

    const mail = await firestore().collection("mail").where("to", "==", "owner@example.com").get();
    const message = mail.docs.map((d) => d.data()).find((m) => m.message.text.includes(domain));
    assert.ok(message, "confirmation queued");
    assert.match(message!.message.subject, new RegExp(domain.replace(/\./g, "\\.")));
    assert.match(message!.message.html, new RegExp(`/d/${domain}`));

    const found = toolResult(await callTool("svc.voice_agent.lookup", { domain: `HTTP://WWW.${domain.toUpperCase()}:443/contact` }, merchant.apiKey));
    assert.deepEqual(found, { registered: true, domain, businessName: "Bean There", voiceAgentPhone: "+14155550123", page: `${baseUrl()}/d/${domain}` });

    const pageRes = await fetch(`${baseUrl()}/d/${domain}`);
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.headers.get("cache-control") ?? "", /s-maxage=\d+/);
    const html = await pageRes.text();
    assert.match(html, /<h1>Bean There<\/h1>/);
    assert.match(html, /href="tel:\+14155550123"/);
    const jsonLd = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)![1]);
    assert.equal(jsonLd["@context"], "https://schema.org");
    assert.equal(jsonLd.name, "Bean There");
    assert.equal(jsonLd.contactPoint.telephone, "+14155550123");

    const book = await (await fetch(`${baseUrl()}/phone-book?q=${domain.slice(0, 9)}`)).text();
    assert.ok(book.includes(`href="/d/${domain}"`));
    const none = await (await fetch(`${baseUrl()}/phone-book?q=zz-nothing-here`)).text();
    assert.ok(!none.includes(`/d/${domain}`));
  });

  it("ops approve and reject through the admin CLI", async () => {
    const good = uniqueDomain();
    const bad = uniqueDomain();
    toolResult(await register(merchant, { domain: good }));
    toolResult(await register(merchant, { domain: bad }));
    const listed = await adminCli("list-listings", "--status", "pending");
    assert.ok(listed.some((l: any) => l.domain === good));
    assert.equal((await adminCli("approve-listing", "--domain", good)).status, "approved");
    assert.equal((await adminCli("reject-listing", "--domain", bad, "--reason", "not a business")).status, "rejected");
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain: good }, merchant.apiKey)).registered, true);
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain: bad }, merchant.apiKey)).registered, false);
    assert.equal((await fetch(`${baseUrl()}/d/${bad}`)).status, 404);
  });

  it("shows user text as text: a business named <script> is escaped", async () => {
    const domain = uniqueDomain();
    toolResult(await register(merchant, { domain, businessName: "<script>alert(1)</script> & \"Co\"" }));
    await adminCli("approve-listing", "--domain", domain);
    for (const url of [`${baseUrl()}/d/${domain}`, `${baseUrl()}/phone-book?q=${domain}`]) {
      const html = await (await fetch(url)).text();
      assert.ok(!html.includes("<script>alert(1)</script>"), url);
      assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"), url);
    }
    const mail = (await firestore().collection("mail").get()).docs.map((d) => d.data()).find((m) => m.message.text.includes(domain))!;
    assert.ok(!mail.message.html.includes("<script>alert(1)"));
  });

  it("nobody takes over another business's domain", async () => {
    const domain = uniqueDomain();
    toolResult(await register(merchant, { domain }));
    const other = await createMerchant();
    const whilePending = await register(other, { domain, businessName: "Impostor", voiceAgentPhone: "+15555550100" });
    assert.equal(whilePending.body.error.data.code, "CONFLICT");
    await adminCli("approve-listing", "--domain", domain);
    const afterApproval = await register(other, { domain: `www.${domain}`, businessName: "Impostor" });
    assert.equal(afterApproval.body.error.data.code, "CONFLICT");
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, other.apiKey)).businessName, "Bean There");

    // The owner's own change waits for approval while the approved entry stays live.
    const change = toolResult(await register(merchant, { domain, businessName: "Bean There Cafe" }));
    assert.equal(change.status, "approved");
    assert.equal(change.pendingChange.businessName, "Bean There Cafe");
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, merchant.apiKey)).businessName, "Bean There");
    await adminCli("approve-listing", "--domain", domain);
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, merchant.apiKey)).businessName, "Bean There Cafe");
  });

  it("rejects bad registrations and lookups", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ domain: uniqueDomain(), voiceAgentPhone: "415-555-0123" }, /E\.164/],
      [{ domain: uniqueDomain(), email: "not-an-email" }, /email/],
      [{ domain: "localhost" }, /Not a domain/],
      [{ domain: uniqueDomain(), businessName: "" }, /businessName/],
      [{ domain: uniqueDomain(), extra: 1 }, /extra/],
    ];
    for (const [args, message] of cases) {
      const res = await register(merchant, args);
      assert.ok(res.body.error, JSON.stringify(args));
      assert.match(res.body.error.message, message);
    }
    const lookup = await callTool("svc.voice_agent.lookup", { domain: "not a domain" }, merchant.apiKey);
    assert.equal(lookup.body.error.data.code, "VALIDATION_FAILED");
    assert.equal((await fetch(`${baseUrl()}/d/not_a_domain`)).status, 404);
  });

  it("registering needs the qr:write scope; looking up does not", async () => {
    const domain = uniqueDomain();
    const readOnly = await mintKey(merchant, ["merchant:read"]);
    const refused = await register(merchant, { domain }, readOnly);
    assert.equal(refused.status, 200);
    assert.equal(refused.body.error.data.code, "INSUFFICIENT_SCOPE");
    assert.equal(refused.body.error.data.requiredScope, "qr:write");
    assert.equal((await firestore().collection("listings").doc(domain).get()).exists, false);
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, readOnly)).registered, false);
    const qrOnly = await mintKey(merchant, ["qr:write"]);
    assert.equal(toolResult(await register(merchant, { domain }, qrOnly)).status, "pending");
  });

  it(`a workspace holds at most ${MAX_PENDING_LISTINGS} pending listings, even when registering concurrently`, async () => {
    const busy = await createMerchant();
    const domains = Array.from({ length: MAX_PENDING_LISTINGS + 3 }, uniqueDomain);
    const results = await Promise.all(domains.map((domain) => register(busy, { domain })));
    const ok = domains.filter((_, i) => results[i].body.result);
    const refused = results.filter((r) => r.body.error);
    assert.equal(ok.length, MAX_PENDING_LISTINGS);
    assert.equal(refused.length, 3);
    for (const r of refused) {
      assert.equal(r.body.error.data.code, "CONFLICT");
      assert.equal(r.body.error.data.limit, MAX_PENDING_LISTINGS);
      assert.match(r.body.error.message, /awaiting approval/);
    }
    const stored = await firestore().collection("listings").where("merchantId", "==", busy.merchantId).get();
    assert.equal(stored.size, MAX_PENDING_LISTINGS);

    // Updating one's own pending listing holds no new domain, so the cap does not apply.
    assert.equal(toolResult(await register(busy, { domain: ok[0], businessName: "Renamed" })).businessName, "Renamed");
    // Each way a pending listing stops being pending frees a place: approval (its later changes do not
    // count), rejection and expiry.
    await approveListing(ok[0]);
    assert.equal(toolResult(await register(busy, { domain: ok[0], businessName: "Changed" })).pendingChange.businessName, "Changed");
    const more = [uniqueDomain(), uniqueDomain(), uniqueDomain()];
    assert.equal(toolResult(await register(busy, { domain: more[0] })).status, "pending");
    assert.equal((await register(busy, { domain: more[1] })).body.error.data.code, "CONFLICT");
    await rejectListing(ok[1], "test");
    assert.equal(toolResult(await register(busy, { domain: more[1] })).status, "pending");
    await expire(ok[2]);
    assert.equal(toolResult(await register(busy, { domain: more[2] })).status, "pending");
  });

  it(`a pending listing expires after ${PENDING_LISTING_LIFETIME_DAYS} days, and an expired one counts as absent before TTL deletes it`, async () => {
    const ttl = JSON.parse(readFileSync(path.resolve(__dirname, "..", "..", "firestore.indexes.json"), "utf8")).fieldOverrides;
    assert.ok(ttl.some((o: any) => o.collectionGroup === "listings" && o.fieldPath === "expiresAt" && o.ttl === true), "TTL policy on listings.expiresAt");

    const domain = uniqueDomain();
    const before = Date.now();
    const first = toolResult(await register(merchant, { domain }));
    const lifetime = PENDING_LISTING_LIFETIME_DAYS * 86_400_000;
    assert.ok(Math.abs(Date.parse(first.expiresAt) - (before + lifetime)) < 60_000, first.expiresAt);
    // Registering again does not extend the hold.
    assert.equal(toolResult(await register(merchant, { domain, businessName: "Again" })).expiresAt, first.expiresAt);

    await expire(domain);
    const token = await adminToken();
    const pending = (await (await fetch(`${appUrl()}/api/console/listings?status=pending`, { headers: { Authorization: `Bearer ${token}` } })).json()) as any;
    assert.ok(!pending.listings.some((l: any) => l.domain === domain), "an expired listing is not offered for moderation");
    const approve = await fetch(`${appUrl()}/api/console/listings/${domain}/approve`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    assert.equal(approve.status, 404);

    // Another workspace can now register the domain, and its listing is approved as its own.
    const other = await createMerchant();
    const taken = toolResult(await register(other, { domain, businessName: "Next Owner" }));
    assert.equal(taken.status, "pending");
    assert.notEqual(taken.expiresAt, first.expiresAt);
    assert.equal((await firestore().collection("listings").doc(domain).get()).data()!.merchantId, other.merchantId);
    assert.equal((await approveListing(domain)).businessName, "Next Owner");
    assert.equal((await firestore().collection("listings").doc(domain).get()).data()!.expiresAt, null, "an approved listing never expires");
    assert.equal(toolResult(await callTool("svc.voice_agent.lookup", { domain }, merchant.apiKey)).businessName, "Next Owner");
  });

  it("logs moderators' approvals and rejections as named structured events, without contact data", async () => {
    const good = uniqueDomain();
    const bad = uniqueDomain();
    toolResult(await register(merchant, { domain: good, email: "private-contact@example.com" }));
    toolResult(await register(merchant, { domain: bad, email: "private-contact@example.com" }));
    // In-process, as the console's moderation route calls it, so the logger's output can be read here.
    const logs = await captureLogs(async () => {
      await moderateListing("approve", good, { by: "moderator-uid" });
      await moderateListing("reject", bad, { by: "moderator-uid", reason: "not a business" });
    });
    const approved = logs.find((l) => l.event === "listing.approved" && l.domain === good);
    assert.deepEqual(
      { event: approved.event, domain: approved.domain, merchantId: approved.merchantId, change: approved.change, by: approved.by, severity: approved.severity },
      { event: "listing.approved", domain: good, merchantId: merchant.merchantId, change: false, by: "moderator-uid", severity: "INFO" },
    );
    const rejected = logs.find((l) => l.event === "listing.rejected" && l.domain === bad);
    assert.equal(rejected.merchantId, merchant.merchantId);
    assert.equal(rejected.reason, "not a business");
    assert.equal(rejected.by, "moderator-uid");
    assert.ok(!JSON.stringify(logs).includes("private-contact@example.com"));
  });
});
