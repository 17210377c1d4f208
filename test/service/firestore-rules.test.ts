import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { assertFails, assertSucceeds, initializeTestEnvironment, type RulesTestEnvironment } from "@firebase/rules-unit-testing";
import { collection, doc, getDoc, getDocs, orderBy, query, setDoc, deleteDoc, where, type Firestore } from "firebase/firestore";

import { COLLECTIONS } from "../../functions/src/store/collections";

const STORE_DIR = path.resolve(__dirname, "..", "..", "functions", "src", "store");

// A project of its own, so clearing it never touches the data the integration tests use.
const PROJECT_ID = "demo-rules-matrix";

type Role = "owner" | "otherMember" | "stranger" | "anonymous";

const PHONE_BOOK_ENTRY = { domain: "approved.example", businessName: "Bean There", voiceAgentPhone: "+14155550123", page: "https://svc.example/d/approved.example" };
const LISTING = { ...PHONE_BOOK_ENTRY, merchantId: "ws-a", email: "owner@example.com", pendingChange: null, rejectedReason: null };

/** Every collection a client might try, with the role that may read it (none may write). */
const DOCS: Array<{ path: string; readers: Role[]; data: Record<string, unknown> }> = [
  { path: "workspaces/ws-a", readers: ["owner"], data: { name: "A", ownerUid: "alice" } },
  { path: "workspaces/ws-a/codes/c1", readers: ["owner"], data: { title: "code" } },
  { path: "workspaces/ws-a/menus/m1", readers: ["owner"], data: { name: "menu" } },
  { path: "workspaces/ws-a/audioCodes/a1", readers: ["owner"], data: { title: "audio" } },
  { path: "workspaces/ws-a/challenges/ch1", readers: ["owner"], data: { name: "challenge" } },
  { path: "workspaces/ws-a/scans/s1", readers: ["owner"], data: { city: "x" } },
  { path: "workspaces/ws-a/scanDays/2026-01-01", readers: ["owner"], data: { n: 1 } },
  { path: "workspaces/ws-a/codeDays/c1~2026-01-01", readers: ["owner"], data: { n: 1 } },
  { path: "scanSecrets/2026-01-01", readers: [], data: { secret: "x" } },
  { path: "workspaces/ws-a/idempotency/k1", readers: [], data: { response: {} } },
  { path: "memberships/alice", readers: ["owner"], data: { merchantId: "ws-a", role: "owner" } },
  { path: "apiKeys/0123abcd", readers: [], data: { merchantId: "ws-a", uid: "alice", prefix: "sk-svc-01234567" } },
  { path: "auditEvents/e1", readers: [], data: { merchantId: "ws-a", tool: "svc.ping" } },
  { path: "links/AbCdEfGhIjKl", readers: [], data: { merchantId: "ws-a", destinationUrl: "https://example.com" } },
  { path: "sandboxCodes/sb1", readers: [], data: { destinationUrl: "https://example.com", claimTokenHash: "h" } },
  { path: "sandboxCounters/x_2026-01-01", readers: [], data: { count: 1 } },
  // Full listings, whatever their status, are server only, even for the workspace that registered them.
  { path: "listings/pending.example", readers: [], data: { ...LISTING, status: "pending", domain: "pending.example" } },
  { path: "listings/approved.example", readers: [], data: { ...LISTING, status: "approved", domain: "approved.example" } },
  { path: "listings/rejected.example", readers: [], data: { ...LISTING, status: "rejected", domain: "rejected.example", rejectedReason: "spam" } },
  { path: "phoneBook/approved.example", readers: ["owner", "otherMember", "stranger", "anonymous"], data: PHONE_BOOK_ENTRY },
  { path: "mail/m1", readers: [], data: { to: "a@example.com" } },
  { path: "oauthGrants/grant_0123456789abcdef01234567", readers: [], data: { merchantId: "ws-a", uid: "alice", clientName: "app" } },
  { path: "oauthAccessTokens/0123abcd", readers: [], data: { grantId: "grant_0123456789abcdef01234567" } },
  { path: "oauthClients/0123abcd", readers: [], data: { clientId: "svc-client-1", redirectUris: [] } },
  { path: "oauthRequests/req_0123", readers: [], data: { clientId: "svc-client-1", state: "s", codeChallenge: "c" } },
  { path: "oauthCodes/0123abcd", readers: [], data: { grantId: "grant_0123456789abcdef01234567" } },
  { path: "oauthRefreshTokens/0123abcd", readers: [], data: { grantId: "grant_0123456789abcdef01234567" } },
  // Webhook endpoints hold sealed signing secrets and their log holds what receivers answered: server only,
  // even for the workspace's own members (the console reads them through its API).
  { path: "workspaces/ws-a/webhooks/wh_1", readers: [], data: { url: "https://hooks.example/x", secrets: [{ sealed: "s" }] } },
  { path: "workspaces/ws-a/domains/dom_1", readers: [], data: { hostname: "scan.example.com", token: "t", state: "pending" } },
  { path: "domainHosts/scan.example.com", readers: [], data: { merchantId: "ws-a", domainId: "dom_1" } },
  { path: "workspaces/ws-a/webhooks/wh_1/deliveries/msg_1", readers: [], data: { body: "{}", status: "succeeded" } },
  { path: "workspaces/ws-a/brandPresets/House", readers: [], data: { name: "House", design: {} } },
  // The catalogue's counters: server only (the console reads totals through its API).
  { path: "workspaces/ws-a/codeCounts/3", readers: [], data: { total: 1 } },
  { path: "workspaces/ws-a/campaigns/0123abcd", readers: [], data: { name: "spring", codes: 1 } },
  { path: "maintenance/catalogueBackfill", readers: [], data: { version: 1, done: true } },
  // Catalogue jobs hold the rows people uploaded and each row's outcome: server only (read through the API).
  { path: "workspaces/ws-a/jobs/job_0123456789abcdef0123", readers: [], data: { state: "done", total: 1 } },
  { path: "workspaces/ws-a/jobs/job_0123456789abcdef0123/chunks/0000", readers: [], data: { done: true, outcomes: [] } },
  { path: "workspaces/ws-a/externalRefs/0123abcd", readers: [], data: { ref: "SKU-1", codeId: "c1" } },
  // MCP test fixtures' tasks (emulators only): server only, read through tasks/get.
  { path: "workspaces/ws-a/mcpTasks/tsk_0123456789abcdef0123", readers: [], data: { tool: "slow_compute", pending: {} } },
  { path: "rateLimits/toolCalls_x_1~i", readers: [], data: { key: "toolCalls_x_1", count: 1 } },
  { path: "appScanMarks/0123abcd", readers: [], data: { countedAt: 1 } },
  // The scan consumer's inputs and bookkeeping: arrivals whose publish failed, its heartbeats, the redirect's arrival marks.
  { path: "scanOutbox/0123456789abcdefghijkl", readers: [], data: { data: "x", attributes: {} } },
  { path: "scanConsumers/i1", readers: [], data: { inFlight: 0 } },
  { path: "scanArrivalMarks/i1", readers: [], data: { at: [] } },
  // Abuse reports name the reported code's owner and may hold a reporter's email: operators only, through the console API.
  { path: "abuseReports/rep_0123456789abcdef0123", readers: [], data: { uniqueQRCodeID: "Ab12Cd34Ef56", merchantId: "ws-a", reason: "phishing", contact: "a@example.com" } },
  // Destinations queued for a re-check name a workspace and its destination: server only.
  { path: "destinationRechecks/0123abcd", readers: [], data: { merchantId: "ws-a", url: "https://example.com/" } },
  { path: "health/probe", readers: [], data: {} },
  // Connected Shopify shops hold a sealed webhook secret, and delivery marks name a shop's orders: server only.
  { path: "shopifyShops/shop.myshopify.com", readers: [], data: { merchantId: "ws-a", secret: "sealed" } },
  { path: "shopifyDeliveries/w1", readers: [], data: { shop: "shop.myshopify.com" } },
  // Conversions, hashed customers and discount codes (docs/attribution.md): server only, read through the API.
  { path: "workspaces/ws-a/conversions/cv1", readers: [], data: { amount: 1999, currency: "EUR" } },
  { path: "workspaces/ws-a/customers/h1", readers: [], data: { clickId: "x" } },
  { path: "workspaces/ws-a/discountCodes/d1", readers: [], data: { code: "SAVE-1" } },
  { path: "workspaces/ws-a/discountClaims/k1", readers: [], data: { code: "SAVE-1" } },
];

const ROLES: Role[] = ["owner", "otherMember", "stranger", "anonymous"];

/** Collections under a workspace that the functions write (store/*.ts), each of which needs a row above. */
const WORKSPACE_COLLECTIONS = ["codes", "menus", "audioCodes", "challenges", "scans", "scanDays", "codeDays", "idempotency", "webhooks", "brandPresets", "codeCounts", "campaigns", "jobs", "externalRefs", "mcpTasks", "domains", "conversions", "customers", "discountCodes", "discountClaims"];

describe("Firestore security rules matrix", function () {
  this.timeout(60_000);
  let env: RulesTestEnvironment;

  before(async () => {
    const [host, port] = process.env.FIRESTORE_EMULATOR_HOST!.split(":");
    env = await initializeTestEnvironment({
      projectId: PROJECT_ID,
      firestore: { rules: readFileSync(path.resolve(__dirname, "..", "..", "firestore.rules"), "utf8"), host, port: Number(port) },
    });
    await env.clearFirestore();
    await env.withSecurityRulesDisabled(async (ctx) => {
      const db = ctx.firestore();
      for (const d of DOCS) await setDoc(doc(db, d.path), d.data);
      await setDoc(doc(db, "workspaces/ws-b"), { name: "B", ownerUid: "bob" });
      await setDoc(doc(db, "memberships/bob"), { merchantId: "ws-b", role: "owner" });
    });
  });

  after(async () => {
    await env?.cleanup();
  });

  function clientFor(role: Role): Firestore {
    if (role === "owner") return env.authenticatedContext("alice").firestore() as unknown as Firestore;
    if (role === "otherMember") return env.authenticatedContext("bob").firestore() as unknown as Firestore;
    if (role === "stranger") return env.authenticatedContext("mallory").firestore() as unknown as Firestore;
    return env.unauthenticatedContext().firestore() as unknown as Firestore;
  }

  it("has a row for every collection the functions write", () => {
    const rows = new Set(DOCS.map((d) => d.path.split("/")[0]));
    for (const name of Object.values(COLLECTIONS)) assert.ok(rows.has(name), `no row for ${name}`);
    const nested = new Set(DOCS.filter((d) => d.path.startsWith("workspaces/ws-a/")).map((d) => d.path.split("/")[2]));
    for (const name of WORKSPACE_COLLECTIONS) assert.ok(nested.has(name), `no row for workspaces/*/${name}`);
    // Every workspace collection the functions write is named above: a new one must be added here too.
    const written = new Set<string>();
    for (const file of readdirSync(STORE_DIR)) {
      for (const m of readFileSync(path.join(STORE_DIR, file), "utf8").matchAll(/doc\(merchantId\)\.collection\("([A-Za-z]+)"\)/g)) written.add(m[1]);
    }
    for (const name of written) assert.ok(WORKSPACE_COLLECTIONS.includes(name), `store/ writes workspaces/*/${name}, which has no row`);
    assert.ok(written.size >= 5, "the scan of store/ found the workspace collections");
  });

  for (const d of DOCS) {
    for (const role of ROLES) {
      const canRead = d.readers.includes(role);
      it(`${role} ${canRead ? "can" : "cannot"} read ${d.path}; cannot write it`, async () => {
        const db = clientFor(role);
        await (canRead ? assertSucceeds(getDoc(doc(db, d.path))) : assertFails(getDoc(doc(db, d.path))));
        await assertFails(setDoc(doc(db, d.path), { tampered: true }));
        await assertFails(deleteDoc(doc(db, d.path)));
      });
    }
  }

  it("a member cannot create a membership into someone else's workspace, or a key", async () => {
    const db = clientFor("stranger");
    await assertFails(setDoc(doc(db, "memberships/mallory"), { merchantId: "ws-a", role: "owner" }));
    await assertFails(setDoc(doc(db, "apiKeys/feed"), { merchantId: "ws-a", scopes: ["qr:write"] }));
    await assertFails(setDoc(doc(db, "listings/new.example"), { status: "approved" }));
    await assertFails(setDoc(doc(db, "phoneBook/new.example"), { domain: "new.example", businessName: "x", voiceAgentPhone: "+1", page: "x" }));
  });

  for (const role of ROLES) {
    it(`${role} queries the phone book's public fields but cannot query listings`, async () => {
      const db = clientFor(role);
      const book = await assertSucceeds(getDocs(query(collection(db, "phoneBook"), orderBy("domain"))));
      assert.deepEqual(book.docs.map((d) => d.data()), [PHONE_BOOK_ENTRY]);
      await assertFails(getDocs(query(collection(db, "listings"), where("status", "==", "approved"))));
      await assertFails(getDocs(query(collection(db, "listings"), where("merchantId", "==", "ws-a"))));
      await assertFails(getDocs(collection(db, "listings")));
    });
  }
});
