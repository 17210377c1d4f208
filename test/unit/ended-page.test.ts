// The branded ended page (redirect/pages.ts; docs/campaign-rules.md, "The ended page is the merchant's").
import assert from "node:assert/strict";
import { ENDED_STYLE, endedPage, endedStyle } from "../../functions/src/redirect/pages";

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
    assert.equal(endedStyle(brand), `${ENDED_STYLE}html{background:#FEF3C7}body{color:#1E3A8A}.brand{font-weight:600;letter-spacing:.02em}`);
    assert.ok(endedPage(brand).includes(`<style>${endedStyle(brand)}</style>`));
    assert.equal(endedStyle({ name: "Shop", foreground: "#777777", background: "#888888" }), ENDED_STYLE, "too little contrast");
    assert.equal(endedStyle({ name: "Shop", foreground: "red;}body{x:y", background: "#FFFFFF" }), ENDED_STYLE, "not a colour");
    assert.equal(endedStyle({ name: "Shop" }), ENDED_STYLE);
  });
});
