// Which host names a workspace may add as a branded domain, and the one form each is stored in
// (functions/src/domains/hostname.ts; docs/domains.md, "Which names are refused").
import assert from "node:assert/strict";
import { checkHostname, type HostnameRules } from "../../functions/src/domains/hostname";
import { blockedHost } from "../../functions/src/abuse/blocklist";
import { domainSettings } from "../../functions/src/core/config";

const rules: HostnameRules = {
  ownHosts: domainSettings({ dnsServers: "", targetHost: "", apexAddresses: "" }, { local: false, projectId: "demo-x", urls: ["https://svc.example", "https://app.svc.example"] }).ownHosts,
  blocked: blockedHost,
};

describe("branded domain host names", () => {
  const accepted: Array<[string, string, string, boolean]> = [
    // typed, stored, unicode, apex
    ["scan.example.com", "scan.example.com", "scan.example.com", false],
    ["Scan.Example.COM.", "scan.example.com", "scan.example.com", false],
    ["  example.com  ", "example.com", "example.com", true],
    ["qr.bücher.example", "qr.xn--bcher-kva.example", "qr.bücher.example", false],
    ["qr.xn--bcher-kva.example", "qr.xn--bcher-kva.example", "qr.bücher.example", false],
    ["shop.example.co.uk", "shop.example.co.uk", "shop.example.co.uk", false],
    ["example.co.uk", "example.co.uk", "example.co.uk", true],
    ["brand.github.io", "brand.github.io", "brand.github.io", true],
    [`${"a".repeat(63)}.example.com`, `${"a".repeat(63)}.example.com`, `${"a".repeat(63)}.example.com`, false],
  ];
  for (const [typed, stored, unicode, apex] of accepted) {
    it(`accepts ${JSON.stringify(typed)} as ${stored}`, () => {
      const verdict = checkHostname(typed, rules);
      assert.ok(verdict.ok, JSON.stringify(verdict));
      assert.deepEqual({ hostname: verdict.hostname, unicode: verdict.unicode, apex: verdict.apex }, { hostname: stored, unicode, apex });
    });
  }

  const refused: Array<[string, string]> = [
    ["com", "public_suffix"],
    ["co.uk", "public_suffix"],
    ["github.io", "public_suffix"],
    ["localhost", "public_suffix"],
    ["svc.example", "own_host"],
    ["qr.svc.example", "own_host"],
    ["app.svc.example", "own_host"],
    ["domains.svc.example", "own_host"],
    ["web.app", "public_suffix"],
    ["demo-x.web.app", "own_host"],
    ["x.demo-x.web.app", "own_host"],
    ["192.0.2.1", "ip_literal"],
    ["[2001:db8::1]", "ip_literal"],
    ["2001:db8::1", "ip_literal"],
    ["0x7f.1", "ip_literal"],
    ["1.2.3", "ip_literal"],
    ["", "invalid"],
    ["exa mple.com", "invalid"],
    ["-scan.example.com", "invalid"],
    ["scan_1.example.com", "invalid"],
    ["scan..example.com", "invalid"],
    ["https://scan.example.com/", "invalid"],
    ["scan.example.com:8443", "invalid"],
    ["xn--zz.example.com", "invalid"],
    [`${"a".repeat(64)}.example.com`, "invalid"],
    [`${"abcdefghi.".repeat(25)}example.com`, "invalid"],
    ["phishing.test", "blocked"],
    ["login.phishing.test", "blocked"],
    ["qr.bücher-phish.test", "blocked"],
  ];
  for (const [typed, reason] of refused) {
    it(`refuses ${JSON.stringify(typed.slice(0, 40))}: ${reason}`, () => {
      const verdict = checkHostname(typed, rules);
      assert.equal(verdict.ok, false, JSON.stringify(verdict));
      if (verdict.ok) return;
      assert.equal(verdict.reason, reason, verdict.message);
      assert.match(verdict.message, /\.$/, "the refusal is a sentence");
    });
  }

  it("refuses a name above one of the service's own (a merchant cannot claim the service's parent domain)", () => {
    const verdict = checkHostname("example.net", { ownHosts: ["qr.example.net"], blocked: () => undefined });
    assert.equal(verdict.ok ? "ok" : verdict.reason, "own_host");
  });
});
