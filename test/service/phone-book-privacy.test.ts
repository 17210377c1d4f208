// The issue 12 probe, replayed: listings made by the real service (tool call, approval, pending change,
// rejection) on the stack's own project, then read the way a Firestore client SDK reads, under the
// deployed rules. A client may see an approved listing's public part and nothing else.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { assertFails, initializeTestEnvironment, type RulesTestEnvironment } from "@firebase/rules-unit-testing";
import { collection, doc, getDoc, getDocs, query, setDoc, where, type DocumentData, type Firestore } from "firebase/firestore";
import { approveListing, rejectListing } from "../../functions/src/listings/service";
import { baseUrl, projectId } from "../helpers/env";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";

const PUBLIC_FIELDS = ["domain", "businessName", "voiceAgentPhone", "page"];

describe("phone book privacy (clients read public fields only)", function () {
  this.timeout(60_000);
  let env: RulesTestEnvironment;
  let merchant: TestMerchant;
  const tag = randomUUID().slice(0, 8);
  const approved = `approved-${tag}.example`;
  const pending = `pending-${tag}.example`;
  const rejected = `rejected-${tag}.example`;
  const secrets = [`owner-${tag}@example.com`, `change-${tag}@example.com`, `Rejected because ${tag}`];

  const register = (domain: string, email: string, businessName = "Bean There") =>
    callTool("svc.voice_agent.register", { domain, businessName, voiceAgentPhone: "+14155550123", email }, merchant.apiKey).then(toolResult);

  before(async () => {
    merchant = await createMerchant();
    await register(approved, secrets[0]);
    await approveListing(approved);
    await register(approved, secrets[1], "Bean There Cafe"); // a pending change on the approved listing
    await register(pending, secrets[0]);
    await register(rejected, secrets[0]);
    await rejectListing(rejected, secrets[2]);

    const [host, port] = process.env.FIRESTORE_EMULATOR_HOST!.split(":");
    // Loads this tree's rules into the stack's project (the same file firebase.json names); no data is cleared.
    env = await initializeTestEnvironment({
      projectId: projectId(),
      firestore: { rules: readFileSync(path.resolve(__dirname, "..", "..", "firestore.rules"), "utf8"), host, port: Number(port) },
    });
  });

  after(async () => {
    await env?.cleanup();
  });

  const clients: Array<[string, () => Firestore]> = [
    ["anonymous", () => env.unauthenticatedContext().firestore() as unknown as Firestore],
    ["a signed-in stranger", () => env.authenticatedContext(`stranger-${tag}`).firestore() as unknown as Firestore],
    ["the listing's owner", () => env.authenticatedContext(merchant.uid).firestore() as unknown as Firestore],
  ];

  /** Every document the client manages to read through the ways a client could try; denials read nothing. */
  async function everythingReadable(db: Firestore): Promise<DocumentData[]> {
    const seen: DocumentData[] = [];
    const attempts: Array<() => Promise<DocumentData[]>> = [];
    for (const name of ["listings", "phoneBook"]) {
      attempts.push(async () => (await getDocs(query(collection(db, name), where("status", "==", "approved")))).docs.map((d) => d.data()));
      attempts.push(async () => (await getDocs(query(collection(db, name), where("domain", "in", [approved, pending, rejected])))).docs.map((d) => d.data()));
      for (const domain of [approved, pending, rejected]) {
        attempts.push(async () => {
          const snap = await getDoc(doc(db, name, domain));
          return snap.exists() ? [snap.data()] : [];
        });
      }
    }
    for (const attempt of attempts) {
      try {
        seen.push(...(await attempt()));
      } catch (error) {
        if ((error as { code?: string }).code !== "permission-denied") throw error;
      }
    }
    return seen;
  }

  for (const [who, client] of clients) {
    it(`${who} reads no contact email, merchant, pending change or rejection, and no unapproved listing`, async () => {
      for (const data of await everythingReadable(client())) {
        const extra = Object.keys(data).filter((k) => !PUBLIC_FIELDS.includes(k));
        assert.deepEqual(extra, [], `private fields readable: ${JSON.stringify(data)}`);
        const text = JSON.stringify(data);
        for (const secret of [...secrets, merchant.merchantId]) assert.ok(!text.includes(secret), `${secret} readable`);
        assert.ok(data.domain !== pending && data.domain !== rejected, `unapproved listing readable: ${data.domain}`);
      }
    });

    it(`${who} reads the approved listing's public part, as approved, and writes nothing`, async () => {
      const db = client();
      const snap = await getDoc(doc(db, "phoneBook", approved));
      assert.deepEqual(snap.data(), { domain: approved, businessName: "Bean There", voiceAgentPhone: "+14155550123", page: `${baseUrl()}/d/${approved}` });
      const listed = await getDocs(query(collection(db, "phoneBook"), where("domain", "in", [approved, pending, rejected])));
      assert.deepEqual(listed.docs.map((d) => d.id), [approved]);
      await assertFails(setDoc(doc(db, "phoneBook", pending), { domain: pending, businessName: "x", voiceAgentPhone: "+1", page: "x" }));
      await assertFails(setDoc(doc(db, "listings", pending), { status: "approved" }));
    });
  }
});
