// Our express apps answer without X-Powered-By even when the platform's express app in front of them set
// it, and with nosniff, a Referrer-Policy and a CSP that forbids framing.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { readFileSync } from "node:fs";
import path from "node:path";
import { siteApp } from "../../functions/src/contract/surfaces";
import { withEmulatorOrigins } from "../../scripts/lib/front";

describe("security headers", () => {
  it("removes the platform's X-Powered-By and sets nosniff, Referrer-Policy and frame-ancestors", async () => {
    const platform = express(); // x-powered-by is on by default, as in an emulator
    platform.use((req, res) => siteApp(req, res));
    const server = http.createServer(platform).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/site.json`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-powered-by"), null);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("referrer-policy"), "strict-origin-when-cross-origin");
      assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
      assert.equal(res.headers.get("strict-transport-security"), null, "no HSTS on the local (http) stack");
    } finally {
      server.close();
    }
  });

  it("the production CSP of the console and consent pages allows no emulator or loopback origin; the local front adds them", () => {
    const config = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "firebase.json"), "utf8"));
    const policies = (config.hosting.headers as Array<{ source: string; headers: Array<{ key: string; value: string }> }>).flatMap((h) =>
      h.headers.filter((x) => x.key === "Content-Security-Policy").map((x) => ({ source: h.source, value: x.value })),
    );
    assert.ok(policies.some((p) => p.source.startsWith("/console")) && policies.some((p) => p.source.startsWith("/oauth/consent")));
    for (const p of policies) assert.doesNotMatch(p.value, /127\.0\.0\.1|localhost|\[::1\]|http:\/\//, p.source);
    const consolePolicy = policies.find((p) => p.source.startsWith("/console"))!.value;
    const local = withEmulatorOrigins(consolePolicy);
    assert.match(local, /connect-src 'self'[^;]* http:\/\/127\.0\.0\.1:9099/);
    assert.match(local, /img-src 'self'[^;]* http:\/\/127\.0\.0\.1:9199/);
    assert.equal(local.split(";").length, consolePolicy.split(";").length, "no directive added or lost");
  });
});
