import assert from "node:assert/strict";
import { normalizeDomain, normalizePhone } from "../../functions/src/listings/domain";
import { escapeHtml, jsonForScript } from "../../functions/src/listings/html";

describe("phone book helpers", () => {
  it("normalises domains: scheme, www., path, port and case stripped, IDN to punycode", () => {
    const cases: Array<[string, string]> = [
      ["example.com", "example.com"],
      ["https://www.Example.COM/menu?x=1#top", "example.com"],
      ["http://shop.example.co.uk:8080/", "shop.example.co.uk"],
      ["WWW.example.org.", "example.org"],
      ["https://user:pw@example.net/path", "example.net"],
      ["münchen-bäckerei.de", "xn--mnchen-bckerei-dib09a.de"],
      ["https://www.café.fr/carte", "xn--caf-dma.fr"],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeDomain(input), expected, input);
    for (const bad of ["", "localhost", "192.168.0.1", "not a domain", "-bad-.com", "a..com", "http://", "x".repeat(300) + ".com"]) {
      assert.equal(normalizeDomain(bad), undefined, bad);
    }
  });

  it("accepts E.164 phone numbers only", () => {
    assert.equal(normalizePhone("+1 (415) 555-0123"), "+14155550123");
    assert.equal(normalizePhone("+447911123456"), "+447911123456");
    for (const bad of ["4155550123", "+0123456789", "+1 415", "+1234567890123456", "call me"]) assert.equal(normalizePhone(bad), undefined, bad);
  });

  it("escapes text for HTML and JSON-LD", () => {
    assert.equal(escapeHtml(`<script>alert("x")</script>&'`), "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    assert.ok(!jsonForScript({ name: "</script><script>alert(1)</script>" }).includes("</script>"));
    assert.deepEqual(JSON.parse(jsonForScript({ name: "</script>" })), { name: "</script>" });
  });
});
