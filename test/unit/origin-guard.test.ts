import assert from "node:assert/strict";
import { addressAllowLists } from "../../functions/src/core/config";
import { hostAllowed, refuseForeignAddress } from "../../functions/src/http/originGuard";

describe("DNS-rebinding guard", () => {
  const local = addressAllowLists(["http://127.0.0.1:5000", "http://127.0.0.1:5000/api/mcp"], { local: true, projectId: "demo-x" });

  it("local defaults: both loopback names of the front end's addresses and of the emulators behind it", () => {
    const ports = [5000, 5001, 5002, 5005];
    assert.deepEqual(local.allowedHosts.sort(), ["127.0.0.1", "localhost"].flatMap((h) => ports.map((p) => `${h}:${p}`)));
    assert.deepEqual(local.allowedOrigins.sort(), ["127.0.0.1", "localhost"].flatMap((h) => ports.map((p) => `http://${h}:${p}`)));
  });

  it("deployed: the hosts of the service's URLs, the default functions host, and configured extras", () => {
    const lists = addressAllowLists(["https://qr.example.com", "https://app.example.com/api/mcp", "not a url"], {
      local: false,
      projectId: "prod-x",
      extraHosts: " mcp-abc-uc.a.run.app, Other.example.com:8443 ",
      extraOrigins: "https://partner.example.com/",
    });
    assert.deepEqual(lists.allowedHosts.sort(), ["app.example.com", "mcp-abc-uc.a.run.app", "other.example.com:8443", "qr.example.com", "us-central1-prod-x.cloudfunctions.net"]);
    assert.deepEqual(lists.allowedOrigins.sort(), ["https://app.example.com", "https://partner.example.com", "https://qr.example.com"]);
  });

  it("matches host and port; an entry without a port matches any port; junk never matches", () => {
    assert.ok(hostAllowed("127.0.0.1:5000", local.allowedHosts));
    assert.ok(hostAllowed("LOCALHOST:5000", local.allowedHosts));
    assert.ok(!hostAllowed("127.0.0.1:6000", local.allowedHosts));
    assert.ok(!hostAllowed("127.0.0.1", local.allowedHosts));
    assert.ok(hostAllowed("app.example.com:443", ["app.example.com"]));
    for (const junk of ["", "evil.example.com", "evil.example.com@127.0.0.1:5000", "127.0.0.1:5000/x", "127.0.0.1:5000?x", "[::1"]) {
      assert.ok(!hostAllowed(junk, local.allowedHosts), junk);
    }
    assert.ok(hostAllowed("[::1]:5000", ["[::1]:5000"]));
  });

  it("refuses a foreign Host (or X-Forwarded-Host, which a proxy in front sets) and a foreign Origin with 403", () => {
    const refused = (headers: Record<string, string>) => refuseForeignAddress(headers, local)?.code;
    assert.equal(refused({ host: "127.0.0.1:5000" }), undefined);
    assert.equal(refused({ host: "127.0.0.1:5001", "x-forwarded-host": "localhost:5000" }), undefined);
    assert.equal(refused({ host: "127.0.0.1:5001", "x-forwarded-host": "evil.example.com" }), "ORIGIN_NOT_ALLOWED");
    assert.equal(refused({ host: "evil.example.com" }), "ORIGIN_NOT_ALLOWED");
    assert.equal(refused({}), "ORIGIN_NOT_ALLOWED");
    assert.equal(refused({ host: "127.0.0.1:5000", origin: "http://127.0.0.1:5000" }), undefined);
    assert.equal(refused({ host: "127.0.0.1:5000", origin: "http://evil.example.com" }), "ORIGIN_NOT_ALLOWED");
    assert.equal(refused({ host: "127.0.0.1:5000", origin: "null" }), "ORIGIN_NOT_ALLOWED");
    assert.equal(refused({ host: "127.0.0.1:5000", origin: "https://127.0.0.1:5000" }), "ORIGIN_NOT_ALLOWED", "scheme counts");
    assert.equal(refuseForeignAddress({ host: "evil.example.com" }, local)?.httpStatus, 403);
  });
});
