// Our express apps answer without X-Powered-By even when the platform's express app in front of them set
// it, and with nosniff, a Referrer-Policy and a CSP that forbids framing.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { siteApp } from "../../functions/src/site/app";

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
});
