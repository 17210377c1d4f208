// The per-client scan limit (scans/clientLimit.ts), in process with synthetic addresses and a passed-in
// clock: an IPv6 client rotating addresses inside its /64 is one client, another /64 is another; past
// SCANS_PER_CLIENT_MINUTE a scan is answered only, the first one past it being the client's marker; the
// next minute starts again; the memory stays within its bound.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { scanClientOf, ScanLimiter, SCANS_PER_CLIENT_MINUTE } from "../../functions/src/scans/clientLimit";

/** A random address inside 2a02:6b8:1:2::/64 (a synthetic host rotating its interface id). */
const inPrefix = (prefix: string) => `${prefix}:${[0, 0, 0, 0].map(() => randomInt(0x10000).toString(16)).join(":")}`;

describe("the per-client scan limit", () => {
  const minute = Date.UTC(2026, 10, 29, 12, 0, 0);

  it("names one client per IPv4 address and per IPv6 /64, whatever the spelling", () => {
    assert.equal(scanClientOf("73.1.2.3"), "73.1.2.3");
    assert.equal(scanClientOf("::ffff:73.1.2.3"), "73.1.2.3", "an IPv4-mapped address is its IPv4");
    assert.equal(scanClientOf("2A02:06B8:0001:0002:0:0:0:1"), "2a02:6b8:1:2::/64");
    assert.equal(scanClientOf("2a02:6b8:1:2::ffff"), "2a02:6b8:1:2::/64");
    assert.equal(scanClientOf("2a02:6b8::1"), "2a02:6b8:0:0::/64");
    assert.equal(scanClientOf("not an address"), "unreadable");
  });

  it("counts an IPv6 /64 rotating its addresses as one client: answered past the limit, one marker, not recorded", () => {
    const limit = new ScanLimiter();
    const seen = Array.from({ length: SCANS_PER_CLIENT_MINUTE + 40 }, (_, i) => limit.admit(inPrefix("2a02:6b8:1:2"), minute + i * 100));
    assert.equal(seen.filter((a) => a === "record").length, SCANS_PER_CLIENT_MINUTE);
    assert.equal(seen[SCANS_PER_CLIENT_MINUTE], "marker", "the first scan past the limit is the marker");
    assert.ok(seen.slice(SCANS_PER_CLIENT_MINUTE + 1).every((a) => a === "answer-only"));
    // A neighbour /64 (another subscriber) and an IPv4 client are not held by it.
    assert.equal(limit.admit(inPrefix("2a02:6b8:1:3"), minute + 5_000), "record");
    assert.equal(limit.admit("73.9.9.9", minute + 5_000), "record");
    // The next clock minute starts the client again.
    assert.equal(limit.admit(inPrefix("2a02:6b8:1:2"), minute + 60_000), "record");
  });

  it("keeps at most its bound of clients, forgetting the one used longest ago", () => {
    const limit = new ScanLimiter(2, 100);
    for (let i = 0; i < 1_000; i++) limit.admit(inPrefix(`2a02:6b8:${(i + 1).toString(16)}:0`), minute);
    assert.equal(limit.size, 100);
    // A busy client kept in use stays limited however many one-off clients pass by.
    const busy = "2a02:6b8:ffff:1";
    const answers = [];
    for (let i = 0; i < 300; i++) {
      answers.push(limit.admit(inPrefix(busy), minute));
      limit.admit(inPrefix(`2a02:6b8:fffe:${i.toString(16)}`), minute);
    }
    assert.deepEqual(answers.slice(0, 3), ["record", "record", "marker"]);
    assert.ok(answers.slice(3).every((a) => a === "answer-only"));
  });
});
