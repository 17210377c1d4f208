// The test clock (X-Test-Clock) is a seam for the local stack only: deployed, a request naming its time is
// served at the wall clock. functions/src/core/testClock.ts, docs/decisions.md "The test clock".
import assert from "node:assert/strict";
import { requestDnsServers, requestSafeBrowsingServer, requestTime, testClockAllowed, TEST_CLOCK_HEADER, TEST_DNS_HEADER, TEST_SAFE_BROWSING_HEADER } from "../../functions/src/core/testClock";

const EMULATED = { FUNCTIONS_EMULATOR: "true", K_SERVICE: "mcp", GCLOUD_PROJECT: "demo-merchant-qr", FIRESTORE_EMULATOR_HOST: "127.0.0.1:8080" };
const DEPLOYED = { K_SERVICE: "mcp", GCLOUD_PROJECT: "merchant-qr-prod", FUNCTION_TARGET: "mcp" };

describe("test clock", () => {
  it("is honoured by the functions emulator and by a test process against the emulators, on a demo- project", () => {
    assert.equal(testClockAllowed(EMULATED), true);
    assert.equal(testClockAllowed({ FIRESTORE_EMULATOR_HOST: "127.0.0.1:8080", GCLOUD_PROJECT: "demo-merchant-qr" }), true);
  });

  it("is refused when deployed, whatever else the environment says", () => {
    assert.equal(testClockAllowed(DEPLOYED), false);
    // A production project even with an emulator variable set by mistake.
    assert.equal(testClockAllowed({ ...DEPLOYED, FIRESTORE_EMULATOR_HOST: "127.0.0.1:8080" }), false);
    assert.equal(testClockAllowed({ FUNCTIONS_EMULATOR: "true", GCLOUD_PROJECT: "merchant-qr-prod" }), false);
    // Deployed (K_SERVICE without FUNCTIONS_EMULATOR), even on a demo- project id.
    assert.equal(testClockAllowed({ K_SERVICE: "mcp", GCLOUD_PROJECT: "demo-merchant-qr", FIRESTORE_EMULATOR_HOST: "127.0.0.1:8080" }), false);
    // No emulator at all.
    assert.equal(testClockAllowed({ GCLOUD_PROJECT: "demo-merchant-qr" }), false);
  });

  it("a request's time is the header's only where honoured; deployed, the header is ignored", () => {
    const wall = 1_700_000_000_000;
    const headers = { [TEST_CLOCK_HEADER]: "1800000000001" };
    assert.equal(requestTime(headers, testClockAllowed(EMULATED), wall), 1_800_000_000_001);
    assert.equal(requestTime(headers, testClockAllowed(DEPLOYED), wall), wall);
    assert.equal(requestTime({}, true, wall), wall, "no header: the wall clock");
    for (const junk of ["soon", "-5", "1e400", "", "12.5"]) assert.equal(requestTime({ [TEST_CLOCK_HEADER]: junk }, true, wall), wall, junk);
  });
  it("a request's loopback stand-ins (DNS, Safe Browsing) are taken only where honoured, and only on 127.0.0.0/8 with a port", () => {
    const honoured = testClockAllowed(EMULATED);
    assert.deepEqual(requestDnsServers({ [TEST_DNS_HEADER]: "127.0.0.1:5353" }, honoured), ["127.0.0.1:5353"]);
    assert.equal(requestSafeBrowsingServer({ [TEST_SAFE_BROWSING_HEADER]: "127.0.0.1:8099" }, honoured), "127.0.0.1:8099");
    assert.equal(requestSafeBrowsingServer({ [TEST_SAFE_BROWSING_HEADER]: "127.0.0.1:8099" }, testClockAllowed(DEPLOYED)), undefined, "deployed: ignored");
    for (const junk of ["10.0.0.1:80", "safebrowsing.googleapis.com:443", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "http://127.0.0.1:80", "[::1]:80"]) {
      assert.equal(requestSafeBrowsingServer({ [TEST_SAFE_BROWSING_HEADER]: junk }, honoured), undefined, junk);
      assert.equal(requestDnsServers({ [TEST_DNS_HEADER]: junk }, honoured), undefined, junk);
    }
  });
});
