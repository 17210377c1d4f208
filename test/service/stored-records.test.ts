// The stores read documents through converters (functions/src/store/records.ts): an older document, written
// before some optional fields existed, still reads, each absent field as null (or an empty list), and a
// rewrite of it keeps the fields the record does not name.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Timestamp } from "firebase-admin/firestore";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { sha256Hex } from "../../functions/src/core/hash";
import { findApiKeyByHash, listApiKeys } from "../../functions/src/store/apiKeys";
import { findCode, readCodes, readLink } from "../../functions/src/store/codes";
import { readWebhook } from "../../functions/src/store/webhooks";
import { getListing, writeListing } from "../../functions/src/store/listings";
import { db } from "../../functions/src/core/firebase";
import { updateCode } from "../../functions/src/codes/service";

describe("stored records: older documents read with nulls", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;
  const created = Timestamp.fromDate(new Date("2024-03-01T10:00:00Z"));
  before(async () => {
    merchant = await createMerchant();
  });

  /** A code and its link as the first releases wrote them: no campaign, tags, template, sound, frame, design. */
  async function writeOldCode(): Promise<{ codeId: string; uniqueQRCodeID: string }> {
    const codeId = `old${randomUUID().replace(/-/g, "").slice(0, 17)}`;
    const uniqueQRCodeID = `OLD${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const workspace = firestore().collection("workspaces").doc(merchant.merchantId);
    await workspace.collection("codes").doc(codeId).create({
      codeId,
      merchantId: merchant.merchantId,
      uniqueQRCodeID,
      title: "Old poster",
      destinationUrl: "https://example.com/old",
      dynamic: true,
      qrImageUrl: "https://example.com/old.png",
      imagePath: `codes/${codeId}.png`,
      imageToken: "token",
      status: "published",
      source: "tool",
      createdAt: created,
      updatedAt: created,
      publishedAt: created,
      publishedBy: merchant.uid,
      fieldOfANewerRelease: { kept: true },
    });
    await firestore().collection("links").doc(uniqueQRCodeID).create({ merchantId: merchant.merchantId, codeId, destinationUrl: "https://example.com/old", dynamic: true, updatedAt: created });
    return { codeId, uniqueQRCodeID };
  }

  it("codes: an older code reads its absent optional fields as null, by id, by scan id and in a batch", async () => {
    const { codeId, uniqueQRCodeID } = await writeOldCode();
    for (const code of [await findCode(merchant.merchantId, { codeId }), await findCode(merchant.merchantId, { uniqueQRCodeID }), (await readCodes(merchant.merchantId, [codeId, "nosuchcode"]))[0]]) {
      assert.equal(code.codeId, codeId);
      assert.equal(code.title, "Old poster");
      assert.equal(code.campaign, null);
      assert.deepEqual(code.tags, []);
      assert.equal(code.dynamicLink, null);
      assert.equal(code.template, null);
      assert.equal(code.scanBeepSound, null);
      assert.equal(code.boostFrame, null);
      assert.equal(code.design, undefined, "design stays absent, as written");
      assert.equal(code.takenDown, undefined);
      assert.equal(code.campaignRules, undefined);
      assert.equal(code.createdAt.toISOString(), "2024-03-01T10:00:00.000Z");
      assert.equal((code as unknown as Record<string, unknown>).fieldOfANewerRelease, undefined, "the record holds only its own fields");
    }
    assert.equal((await readCodes(merchant.merchantId, [codeId, "nosuchcode"])).length, 1);
    const link = await readLink(uniqueQRCodeID);
    assert.deepEqual(link, { merchantId: merchant.merchantId, codeId, destinationUrl: "https://example.com/old", campaign: null });
  });

  it("codes: rewriting an older code keeps the document's fields that are not the code's", async () => {
    const { codeId } = await writeOldCode();
    const updated = await updateCode(merchant.merchantId, { codeId }, { title: "Renamed" });
    assert.equal(updated.title, "Renamed");
    const stored = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(codeId).get()).data()!;
    assert.equal(stored.title, "Renamed");
    assert.deepEqual(stored.fieldOfANewerRelease, { kept: true });
    assert.equal((stored.publishedAt as Timestamp).toMillis(), created.toMillis());
    assert.equal(stored.publishedBy, merchant.uid);
    assert.equal(stored.catalogue, 1, "the rewrite brings it into the catalogue");
    assert.equal(stored.scans7, 0);
    assert.equal((await findCode(merchant.merchantId, { codeId })).title, "Renamed");
  });

  it("api keys: an older key without name, scopes or times reads them as empty and null", async () => {
    const hash = sha256Hex(`sk-svc-old-${randomUUID()}`);
    const keyId = `key_old${randomUUID().replace(/-/g, "").slice(0, 9)}`;
    await firestore().collection("apiKeys").doc(hash).create({ keyId, merchantId: merchant.merchantId, uid: merchant.uid, prefix: "sk-svc-old" });
    const key = await findApiKeyByHash(hash);
    assert.deepEqual(key, { hash, keyId, merchantId: merchant.merchantId, uid: merchant.uid, name: "", prefix: "sk-svc-old", scopes: [], createdAt: null, lastUsedAt: null, revokedAt: null });
    const listed = (await listApiKeys(merchant.merchantId)).find((k) => k.keyId === keyId);
    assert.deepEqual(listed, key);
    assert.equal(await findApiKeyByHash(sha256Hex(`sk-svc-none-${randomUUID()}`)), undefined);
  });

  it("webhooks: an older endpoint without the later fields reads them as null, 0 and false", async () => {
    const webhookId = `wh_old${randomUUID().replace(/-/g, "").slice(0, 10)}`;
    await firestore()
      .collection("workspaces")
      .doc(merchant.merchantId)
      .collection("webhooks")
      .doc(webhookId)
      .create({ url: "https://example.com/hook", events: ["code.created"], secrets: [{ sealed: "s", createdAt: created }], status: "active", createdAt: created, createdBy: merchant.uid });
    const webhook = await readWebhook(merchant.merchantId, webhookId);
    assert.ok(webhook);
    assert.equal(webhook.merchantId, merchant.merchantId);
    assert.deepEqual([webhook.codeIds, webhook.campaigns, webhook.machineScans, webhook.failedRun, webhook.failingSince, webhook.probeAfter, webhook.createdWith, webhook.disabledReason], [null, null, false, 0, null, null, null, null]);
    assert.deepEqual(webhook.secrets, [{ sealed: "s", createdAt: created.toDate(), expiresAt: null }]);
  });

  it("listings: a rewrite replaces the listing's own fields, clears what it clears, and keeps a field it does not name", async () => {
    const domain = `old-${randomUUID().slice(0, 8)}.example.com`;
    const pendingChange = { businessName: "New name", voiceAgentPhone: "+14155550100", email: "owner@example.com" };
    await firestore()
      .collection("listings")
      .doc(domain)
      .create({ domain, merchantId: merchant.merchantId, businessName: "Old name", voiceAgentPhone: "+14155550199", email: "old@example.com", status: "approved", pendingChange, createdAt: created, updatedAt: created, approvedAt: created, rejectedReason: null, expiresAt: null, operatorNote: "kept" });
    const listing = await getListing(domain);
    assert.ok(listing);
    await db().runTransaction(async (tx) => writeListing(tx, { ...listing, businessName: "Renamed", pendingChange: null, updatedAt: new Date() }));
    const stored = (await firestore().collection("listings").doc(domain).get()).data()!;
    assert.deepEqual([stored.businessName, stored.pendingChange, stored.operatorNote, stored.email], ["Renamed", null, "kept", "old@example.com"]);
  });
});
