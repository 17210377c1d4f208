import assert from "node:assert/strict";
import { DEFAULT_TRUSTED_PROXY_RANGES } from "../../functions/src/core/config";
import { clientAddress, rateLimitSubject, trustedRanges } from "../../functions/src/http/clientAddress";

describe("client address", () => {
  const google = trustedRanges(DEFAULT_TRUSTED_PROXY_RANGES);
  const edge = "35.191.7.8"; // a Hosting edge hop, inside Google's front-end proxy ranges

  it("direct function URL: the entry Google appended, whatever the client sent before it", () => {
    assert.equal(clientAddress("203.0.113.7", "169.254.1.1", google), "203.0.113.7");
    assert.equal(clientAddress("1.1.1.1, 2.2.2.2, 203.0.113.7", "169.254.1.1", google), "203.0.113.7");
    // A client that writes a trusted-looking hop itself still ends up as the rightmost untrusted entry.
    assert.equal(clientAddress(`9.9.9.9, ${edge}, 203.0.113.7`, "169.254.1.1", google), "203.0.113.7");
  });

  it("through Hosting: the entry left of the edge hop", () => {
    assert.equal(clientAddress(`203.0.113.7, ${edge}`, "169.254.1.1", google), "203.0.113.7");
    assert.equal(clientAddress(`10.0.0.1, 198.51.100.2, 203.0.113.7, ${edge}`, "169.254.1.1", google), "203.0.113.7");
    assert.equal(clientAddress(`1.1.1.1, ${edge}, 203.0.113.7, ${edge}`, "169.254.1.1", google), "203.0.113.7");
    assert.equal(clientAddress(`2001:db8::5, 130.211.1.2`, undefined, google), "2001:db8::5");
  });

  it("falls back to the peer only when no proxy appended anything usable", () => {
    assert.equal(clientAddress(undefined, "::ffff:10.1.1.1", google), "10.1.1.1");
    assert.equal(clientAddress("not-an-ip", "10.1.1.1", google), "10.1.1.1");
    assert.equal(clientAddress(`bogus, ${edge}`, "10.1.1.1", google), "10.1.1.1");
    assert.equal(clientAddress("[2001:db8::1]:443", undefined, google), "2001:db8::1");
    assert.equal(clientAddress("203.0.113.7:5123", undefined, google), "203.0.113.7");
    assert.equal(clientAddress(["1.1.1.1", "203.0.113.7"], undefined, google), "203.0.113.7");
  });

  it("parses ranges and single addresses, and refuses anything else", () => {
    const ranges = trustedRanges("10.0.0.0/8, 192.0.2.1, 2600:1900::/28");
    assert.equal(clientAddress("203.0.113.7, 10.9.9.9, 192.0.2.1", undefined, ranges), "203.0.113.7");
    assert.equal(clientAddress("203.0.113.7, 2600:1900::1", undefined, ranges), "203.0.113.7");
    assert.throws(() => trustedRanges("10.0.0.0/8, nonsense"), /nonsense/);
  });

  it("limits IPv6 clients per /64", () => {
    assert.equal(rateLimitSubject("203.0.113.7"), "203.0.113.7");
    assert.equal(rateLimitSubject("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(rateLimitSubject("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
    assert.equal(rateLimitSubject("2001:db8::1"), "2001:db8:0:0::/64");
  });
});
