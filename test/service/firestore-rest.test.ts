// The direct REST calls (core/firestoreRest.ts) against the Firestore emulator: what they read is what the
// client reads from the same documents, and what they write the client reads back as written.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { GeoPoint, Timestamp } from "firebase-admin/firestore";
import { db } from "../../functions/src/core/firebase";
import { batchGetDocuments, commitWrites, FirestoreRestError } from "../../functions/src/core/firestoreRest";

const EVERY_KIND = {
  text: "naïve café ☕",
  empty: "",
  integer: 42,
  negative: -7,
  fraction: 0.125,
  big: 2 ** 60,
  yes: true,
  nothing: null,
  when: Timestamp.fromMillis(1_732_950_000_123),
  // Firestore keeps microseconds.
  micros: new Timestamp(1_732_950_000, 123_456_000),
  list: ["a", 1, null, { inner: true }],
  emptyList: [],
  map: { nested: { deeper: "x" }, n: 3 },
  emptyMap: {},
  bytes: Buffer.from([0, 1, 2, 250]),
  place: new GeoPoint(51.5, -0.12),
};

describe("Firestore REST calls", function () {
  this.timeout(30_000);
  const collection = `restChecks${randomUUID().slice(0, 8)}`;

  it("reads documents as the client reads them, in the order asked, an absent one as undefined", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await db().collection(collection).doc(a).set({ ...EVERY_KIND, reference: db().doc(`${collection}/${b}`) });
    await db().collection(collection).doc(b).set({ only: "b" });
    const [absent, second, first] = await batchGetDocuments([`${collection}/missing`, `${collection}/${b}`, `${collection}/${a}`]);
    assert.equal(absent, undefined);
    assert.deepEqual(second, { only: "b" });
    const client = (await db().collection(collection).doc(a).get()).data()!;
    const { reference, ...rest } = first!;
    const { reference: clientReference, ...clientRest } = client;
    assert.deepEqual(rest, clientRest);
    assert.equal((reference as FirebaseFirestore.DocumentReference).path, (clientReference as FirebaseFirestore.DocumentReference).path);
    assert.ok((first!.micros as Timestamp).isEqual(new Timestamp(1_732_950_000, 123_456_000)), "microseconds survive");
  });

  it("writes documents the client reads back as written, a server time as the commit's", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const before = Date.now();
    await commitWrites([
      { path: `${collection}/${a}`, data: { ...EVERY_KIND, day: new Date("2026-11-30T00:00:00.000Z") }, serverTimes: ["at"] },
      { path: `${collection}/${b}`, data: { only: "b" } },
    ]);
    const stored = (await db().collection(collection).doc(a).get()).data()!;
    const { at, day, ...rest } = stored;
    assert.deepEqual(rest, EVERY_KIND);
    assert.ok((day as Timestamp).isEqual(Timestamp.fromDate(new Date("2026-11-30T00:00:00.000Z"))));
    assert.ok(at instanceof Timestamp && at.toMillis() >= before - 5_000 && at.toMillis() <= Date.now() + 5_000, String(at));
    assert.deepEqual((await db().collection(collection).doc(b).get()).data(), { only: "b" });
    // A write replaces the whole document, as a set does, so a re-sent commit lands the same document again.
    await commitWrites([{ path: `${collection}/${b}`, data: { again: 1 } }]);
    assert.deepEqual((await db().collection(collection).doc(b).get()).data(), { again: 1 });
  });

  it("refuses what the client refuses before sending anything, and names what Firestore refuses", async () => {
    const id = randomUUID();
    for (const data of [{ gone: undefined }, { made: new (class Thing {})() }, { call: () => 1 }]) {
      await assert.rejects(commitWrites([{ path: `${collection}/${id}`, data }]), TypeError);
    }
    await assert.rejects(commitWrites([{ path: `${collection}/${id}`, data: {}, serverTimes: ["a.b"] }]), TypeError);
    assert.equal((await db().collection(collection).doc(id).get()).exists, false, "nothing of a refused commit was written");
    // A collection's path is not a document's: Firestore answers INVALID_ARGUMENT, which is not re-sent.
    const started = Date.now();
    await assert.rejects(batchGetDocuments([collection]), (error: unknown) => error instanceof FirestoreRestError && error.status === "INVALID_ARGUMENT" && error.code === 3);
    assert.ok(Date.now() - started < 5_000, "not retried");
  });
});
