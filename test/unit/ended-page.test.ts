// The branded ended page (redirect/pages.ts; docs/campaign-rules.md, "The ended page is the merchant's"),
// and the other pages in a merchant's name and colours: its hosts' not-found pages and a code's password
// page (docs/gs1-on-brand-hosts.md, "The merchant's pages on its host").
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ENDED_STYLE, endedPage, endedStyle, NOT_FOUND_STYLE, notFoundPage, notFoundStyle, pageNotFoundPage, PASSWORD_STYLE, passwordPage, passwordStyle } from "../../functions/src/redirect/pages";
import { isResolverPath } from "../../functions/src/gs1/routes";

describe("ended page: the merchant's, escaped, readable", () => {
  it("escapes the workspace name, heading and message; names the default texts when absent", () => {
    const page = endedPage({ name: `A&B <script>x()</script>`, heading: `"Done" <i>`, message: "it's over" });
    assert.ok(page.includes('<p class="brand">A&amp;B &lt;script&gt;x()&lt;/script&gt;</p>'));
    assert.ok(page.includes("<h1>&quot;Done&quot; &lt;i&gt;</h1><p>it&#39;s over</p>"));
    assert.ok(!page.includes("<script>") && !page.includes("<i>"));
    const plain = endedPage();
    assert.match(plain, /<h1>This campaign has ended<\/h1>/);
    assert.ok(!plain.includes('class="brand"'));
  });

  it("uses the design colours only when they read at the contrast floor; the style in the page is the one returned", () => {
    const brand = { name: "Shop", foreground: "#1E3A8A", background: "#FEF3C7" };
    assert.equal(endedStyle(brand), `${ENDED_STYLE}html{background:#FEF3C7}body{color:#1E3A8A}a{color:inherit}.warn{color:#111}.brand{font-weight:600;letter-spacing:.02em}`);
    assert.ok(endedPage(brand).includes(`<style>${endedStyle(brand)}</style>`));
    assert.equal(endedStyle({ name: "Shop", foreground: "#777777", background: "#888888" }), ENDED_STYLE, "too little contrast");
    assert.equal(endedStyle({ name: "Shop", foreground: "red;}body{x:y", background: "#FFFFFF" }), ENDED_STYLE, "not a colour");
    assert.equal(endedStyle({ name: "Shop" }), ENDED_STYLE);
  });
});

describe("a merchant's pages on its host, and its password page", () => {
  const brand = { name: `Bakery <b>&</b> "Co"`, foreground: "#3B1F0E", background: "#FDF2E3" };

  it("names the merchant, escaped, above the heading, in its colours; the service's own pages name nobody", () => {
    for (const [page, heading] of [[notFoundPage(brand), "This QR code is not active"], [pageNotFoundPage(brand), "Page not found"], [passwordPage("wrong", brand), "Password needed"]]) {
      assert.ok(page.includes(`<p class="brand">Bakery &lt;b&gt;&amp;&lt;/b&gt; &quot;Co&quot;</p><h1>${heading}</h1>`), page);
      assert.ok(page.includes(`<title>Bakery &lt;b&gt;&amp;&lt;/b&gt; &quot;Co&quot;: `), page);
      assert.ok(!page.includes("<b>"));
    }
    assert.ok(notFoundPage(brand).includes(`<style>${notFoundStyle(brand)}</style>`));
    assert.ok(passwordPage("none", brand).includes(`<style>${passwordStyle(brand)}</style>`));
    assert.match(passwordStyle(brand), /\.warn\{color:#111\}/, "the notice box keeps dark text on its light background");
    for (const plain of [notFoundPage(), pageNotFoundPage(), passwordPage()]) assert.ok(!plain.includes('class="brand"'), plain);
    assert.equal(notFoundStyle(), NOT_FOUND_STYLE);
    assert.equal(passwordStyle({ name: "Shop", foreground: "#777777", background: "#888888" }), PASSWORD_STYLE, "too little contrast: the plain style");
  });

  it("routes on a merchant's host the paths Hosting rewrites to the resolver on the shared host, and no others", () => {
    const rewrites = (JSON.parse(readFileSync(path.join(__dirname, "..", "..", "firebase.json"), "utf8")) as { hosting: { rewrites: Array<{ source?: string; regex?: string; function?: { functionId?: string } }> } }).hosting.rewrites;
    const resolverSources = rewrites.filter((r) => r.function?.functionId === "gs1Resolver");
    assert.ok(resolverSources.length > 10);
    for (const rule of resolverSources) {
      const example = rule.source ? rule.source.replace("/**", "/09506000134352") : "/HxPnY0Qs2Tg0V3CYBsAIQA";
      assert.ok(isResolverPath(example), `${example} (${rule.source ?? rule.regex})`);
    }
    for (const other of ["/", "/qr/ABCDEFGHJKLM", "/menu", "/short", "/.well-known/assetlinks.json", "/012/x", "/d/example.com", "/favicon.svg", "/01x/1"]) assert.ok(!isResolverPath(other), other);
  });
});
