// The load balancer path for merchants' hosts (docs/domains.md, "Serving"): the headers the functions add
// in Hosting's place, the host read from Host alone, and the client address behind the load balancer.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LOAD_BALANCER_HEADERS, loadBalancerHeaders, overrideHeaders, requestHost } from "../../functions/src/http/loadBalancer";
import { clientAddressRules, resolveClient } from "../../functions/src/core/clientAddress";

const ROOT = path.resolve(__dirname, "..", "..");
const LB = "192.0.2.10";
const HOSTING_HOP = "142.250.189.4";

describe("the load balancer path", () => {
  it("adds Hosting's headers for every path and /qr/**, HSTS only to a served host and without includeSubDomains", () => {
    const hosting = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8")).hosting.headers as Array<{ source: string; headers: Array<{ key: string; value: string }> }>;
    const rule = (source: string) => Object.fromEntries(hosting.find((h) => h.source === source)!.headers.map((h) => [h.key, h.value]));
    const { "Strict-Transport-Security": hsts, ...everyPath } = rule("**");
    assert.deepEqual(LOAD_BALANCER_HEADERS.all, everyPath);
    assert.deepEqual(LOAD_BALANCER_HEADERS.qr, rule("/qr/**"));
    assert.equal(`${LOAD_BALANCER_HEADERS.served["Strict-Transport-Security"]}; includeSubDomains`, hsts);
    assert.equal(loadBalancerHeaders("/qr/abc", true)["Referrer-Policy"], "same-origin");
    assert.equal(loadBalancerHeaders("/", true)["Referrer-Policy"], "strict-origin-when-cross-origin");
    assert.equal(loadBalancerHeaders("/qr/abc", false)["Strict-Transport-Security"], undefined);
  });

  it("makes those headers win over the answer's own, as Hosting's do", async () => {
    const server = http.createServer((_req, res) => {
      overrideHeaders(res, { "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY" });
      res.setHeader("x-frame-options", "SAMEORIGIN");
      res.writeHead(302, "Found", { "referrer-policy": "no-referrer", Location: "https://example.com/" }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { redirect: "manual" });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("referrer-policy"), "same-origin");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("location"), "https://example.com/");
    } finally {
      server.close();
    }
  });

  it("reads the host from Host alone: lower-case, no port or trailing dot; addresses and junk are no host name", () => {
    const of = (headers: http.IncomingHttpHeaders) => requestHost({ headers });
    assert.deepEqual(of({ host: "Scan.Brand.Example.:5443" }), { name: "scan.brand.example", withPort: "scan.brand.example:5443" });
    assert.deepEqual(of({ host: "127.0.0.1:5000" }), { name: undefined, withPort: "127.0.0.1:5000" });
    assert.equal(of({ host: "[::1]:5001" }).name, undefined);
    assert.equal(of({}).name, undefined);
    assert.equal(of({ host: "scan.brand.example", "x-forwarded-host": "other.example" }).name, "scan.brand.example");
    for (const junk of ["a b.example", "-x.example", "x..example", "bad_host.example", `${"a".repeat(64)}.example`, "éx.example"]) assert.equal(of({ host: junk }).name, undefined, junk);
  });

  it("skips the load balancer's address once, at the right end only, like Hosting's hop", () => {
    const rules = clientAddressRules({ trustedProxyRanges: [], geoHeaderProxyRanges: [], loadBalancerAddresses: [LB, "2001:db8::10"] });
    assert.deepEqual(resolveClient(`6.6.6.6, 73.1.2.3, ${LB}`, "10.0.0.1", rules), { address: "73.1.2.3", viaProxy: false, hops: [LB], throughGeoHeaderProxy: false });
    assert.equal(resolveClient("73.1.2.3, 2001:DB8::10", "10.0.0.1", rules).address, "73.1.2.3");
    // Written by the client left of its own address, it is not skipped: the client is the rightmost entry.
    assert.equal(resolveClient(`${LB}, 73.1.2.3`, "10.0.0.1", rules).address, "73.1.2.3");
    // Not twice, and not together with Hosting's hop.
    assert.deepEqual(resolveClient(`73.1.2.3, ${LB}, ${LB}`, "10.0.0.1", rules), { address: LB, viaProxy: true, hops: [LB], throughGeoHeaderProxy: false });
    assert.equal(resolveClient(`73.1.2.3, ${LB}, ${HOSTING_HOP}`, "10.0.0.1", rules).address, LB);
    // Without the setting the address is a client like any other.
    const without = clientAddressRules({ trustedProxyRanges: [], geoHeaderProxyRanges: [] });
    assert.equal(resolveClient(`73.1.2.3, ${LB}`, "10.0.0.1", without).address, LB);
  });
});
