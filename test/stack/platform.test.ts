// What only the platform's own layers decide, checked through the front, firebase-tools' Hosting emulator and
// the Functions emulator (the stack tier). The service tier serves the same apps in process and cannot
// prove these: the Functions HTTP layer's own answer to a body it cannot parse, Hosting's static headers
// and CORS as a browser meets them through Hosting, and the hosted images' URLs.
import assert from "node:assert/strict";
import { appUrl, baseUrl, functionsUrl } from "../helpers/env";
import { postRaw } from "../helpers/rpc";

const ORIGIN = "https://agent.example";

describe("stack: the platform's layers", () => {
  it("a body declared JSON that does not parse is the Functions HTTP layer's 400, through Hosting and at the function URL", async () => {
    for (const url of [`${appUrl()}/api/mcp`, `${functionsUrl()}/mcp/api/mcp`]) {
      const res = await postRaw("{not json", { "Content-Type": "application/json" }, url);
      assert.equal(res.status, 400, url);
      assert.ok(!/at .*\.js:\d+/.test(res.text), `no stack trace in the answer: ${res.text.slice(0, 200)}`);
    }
  });

  it("Hosting's static headers reach a page and an API answer; the emulators' X-Powered-By does not", async () => {
    for (const p of ["/", "/api/site.json"]) {
      const res = await fetch(`${baseUrl()}${p}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, p);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", p);
      assert.equal(res.headers.get("x-frame-options"), "DENY", p);
      assert.match(res.headers.get("strict-transport-security") ?? "", /max-age=63072000/, p);
      assert.equal(res.headers.get("x-powered-by"), null, p);
    }
    const page = await fetch(`${baseUrl()}/`);
    assert.match(page.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  });

  it("CORS through Hosting: the tool server answers a bearer client's preflight; the console API allows no other origin", async () => {
    const preflight = (url: string) =>
      fetch(url, { method: "OPTIONS", headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" } });
    const open = await preflight(`${appUrl()}/api/mcp`);
    assert.equal(open.status, 204);
    assert.equal(open.headers.get("access-control-allow-origin"), "*");
    const closed = await preflight(`${appUrl()}/api/console/codes`);
    assert.notEqual(closed.status, 204);
    assert.equal(closed.headers.get("access-control-allow-origin"), null);
  });
});
