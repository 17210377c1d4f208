import assert from "node:assert/strict";
import { clientIp, rateLimitSubject } from "../../functions/src/sandbox/clientIp";

describe("client address", () => {
  it("takes the entry appended by the trusted front end, ignoring what the client sent", () => {
    assert.equal(clientIp("203.0.113.7", "10.1.1.1", 1), "203.0.113.7");
    assert.equal(clientIp("1.1.1.1, 2.2.2.2, 203.0.113.7", "10.1.1.1", 1), "203.0.113.7");
    assert.equal(clientIp("1.1.1.1, 203.0.113.7, 35.191.0.1", "10.1.1.1", 2), "203.0.113.7");
    assert.equal(clientIp(undefined, "::ffff:10.1.1.1", 1), "10.1.1.1");
    assert.equal(clientIp("not-an-ip", "10.1.1.1", 1), "10.1.1.1");
    assert.equal(clientIp("203.0.113.7", "10.1.1.1", 0), "10.1.1.1");
    assert.equal(clientIp("[2001:db8::1]:443", undefined, 1), "2001:db8::1");
  });

  it("limits IPv6 clients per /64", () => {
    assert.equal(rateLimitSubject("203.0.113.7"), "203.0.113.7");
    assert.equal(rateLimitSubject("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(rateLimitSubject("2001:0db8:0001:0002:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
    assert.equal(rateLimitSubject("2001:db8::1"), "2001:db8:0:0::/64");
  });
});
