import assert from "node:assert/strict";
import { placeOfAddress } from "../../functions/src/scans/geo";
import { publicAddressOf } from "../../scripts/lib/front";

describe("IP geolocation (bundled DB-IP City Lite)", () => {
  it("finds country, city and state of public IPv4 and IPv6 addresses", async () => {
    assert.deepEqual(await placeOfAddress("8.8.8.8"), { country: "US", city: "Mountain View", state: "California" });
    const v6 = await placeOfAddress("2001:4860:4860::8888");
    assert.notEqual(v6.city, "unknown");
    assert.notEqual(v6.state, "unknown");
    assert.match(v6.country, /^[A-Z]{2}$/);
  });

  it("answers unknown for private, loopback, documentation and non-addresses", async () => {
    for (const address of ["10.1.2.3", "127.0.0.1", "192.168.1.1", "::1", "not-an-ip", ""]) {
      assert.deepEqual(await placeOfAddress(address), { country: "unknown", city: "unknown", state: "unknown" }, address);
    }
  });

  it("the local front presents loopback clients as distinct public addresses with a real place", async () => {
    const seen = new Set<string>();
    for (const loopback of ["127.0.0.1", "127.0.0.2", "127.1.2.3", "::ffff:127.0.0.9"]) {
      const presented = publicAddressOf(loopback);
      assert.ok(!seen.has(presented));
      seen.add(presented);
      const place = await placeOfAddress(presented);
      assert.notEqual(place.city, "unknown", presented);
      assert.notEqual(place.state, "unknown", presented);
    }
  });
});
