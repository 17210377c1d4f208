// A commit of new codes that fails: refused outright, its images go; after an ambiguous failure (a
// deadline, a lost connection) the images stay unless the codes are seen written, which makes the call a
// success. The image of a code that exists is never deleted. Real Firestore and image store; only the
// failure itself is handed in, as the client library reports it (a gRPC status code).
import assert from "node:assert/strict";
import { prepareCodes, settleFailedCommit } from "../../functions/src/codes/service";
import { addNewCodes } from "../../functions/src/store/codes";
import { db } from "../../functions/src/core/firebase";
import { createMerchant } from "../helpers/merchants";

const DEADLINE_EXCEEDED = { code: 4, message: "Deadline exceeded" };
const ALREADY_EXISTS = { code: 6, message: "Document already exists" };
const imageStatus = async (url: string) => (await fetch(url)).status;

describe("new codes after a failed commit", function () {
  this.timeout(60_000);

  it("keeps the image of a code that was written, and of one nobody can tell about; deletes only what surely was not written", async () => {
    const m = await createMerchant();
    const [written, unknown, refused] = await prepareCodes(m.merchantId, [1, 2, 3].map((i) => ({ title: `Shelf ${i}`, destinationUrl: `https://shop.example/${i}` })), "tool");
    const batch = db().batch();
    addNewCodes(batch, m.merchantId, [written]);
    await batch.commit();

    assert.equal(await settleFailedCommit(m.merchantId, [written], DEADLINE_EXCEEDED), "written", "applied after all: the call succeeded");
    assert.equal(await imageStatus(written.qrImageUrl), 200);
    assert.equal(await settleFailedCommit(m.merchantId, [unknown], DEADLINE_EXCEEDED), "kept", "not seen yet is no proof");
    assert.equal(await imageStatus(unknown.qrImageUrl), 200);
    assert.equal(await settleFailedCommit(m.merchantId, [refused], ALREADY_EXISTS), "discarded");
    assert.equal(await imageStatus(refused.qrImageUrl), 404);
  });
});
