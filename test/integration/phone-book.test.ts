import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { adminApp } from "../../functions/src/core/firebase";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { adminCli } from "../helpers/admin";
import { createMerchant, firestore, signUp, type TestMerchant } from "../helpers/merchants";

async function adminToken(): Promise<string> {
  const email = `admin-${randomUUID()}@example.com`;
  const user = await signUp(email, "admin-password");
  await getAuth(adminApp()).setCustomUserClaims(user.uid, { admin: true });
  const res = await fetch(`http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: "admin-password", returnSecureToken: true }),
  });
  return ((await res.json()) as { idToken: string }).idToken;
}

const uniqueDomain = () => `shop-${randomUUID().slice(0, 8)}.example`;

async function register(merchant: TestMerchant, args: Record<string, unknown>) {
  return callTool("svc.voice_agent.register", { businessName: "Bean There", voiceAgentPhone: "+1 415 555 0123", email: "owner@example.com", ...args }, merchant.apiKey);
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
});
