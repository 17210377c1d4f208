// How a scan is told to scan.created subscribers (webhooks/scans.ts): people, repeats, a campaign's closed
// answers (a person's, not counted) and machines, as docs/webhooks.md states.
import assert from "node:assert/strict";
import { scanNotice } from "../../functions/src/webhooks/scans";

const link = { merchantId: "m1", codeId: "c1", destinationUrl: "https://example.com/", campaign: null };
const place = { country: "FR", state: "Île-de-France", city: "Paris" };
const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const notice = (outcome: Parameters<typeof scanNotice>[5]) => {
  const n = scanNotice(link, "aB3dE5gH7jK9", new Date(0), place, PHONE, outcome);
  return { human: n.human, unique: n.unique, notCountedReason: n.notCountedReason };
};

describe("scan notices for subscribers", () => {
  it("a person's counted scan, a repeat, a campaign's closed answer and a machine's scan", () => {
    assert.deepEqual(notice({ counted: true, unique: true }), { human: true, unique: true, notCountedReason: null });
    assert.deepEqual(notice({ counted: false, reason: "repeat" }), { human: true, unique: false, notCountedReason: "repeat" });
    for (const reason of ["not-started", "ended", "capped", "cap-busy"]) {
      assert.deepEqual(notice({ counted: false, reason }), { human: true, unique: false, notCountedReason: reason }, reason);
    }
    for (const reason of ["crawler", "preview", "head-request"]) {
      assert.deepEqual(notice({ counted: false, reason }), { human: false, unique: null, notCountedReason: reason }, reason);
    }
  });
});
