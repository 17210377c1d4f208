// Discovery before connecting and the ui:// resources, over HTTP through Hosting (docs/mcp.md, "Discovery"
// and "Inline app").
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { appUrl, mcpUrl } from "../helpers/env";
import { rpc, rpc2026 } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../functions/src/mcp/era2026";
import { toolListing } from "../../functions/src/mcp/registry";
import { UI_RESOURCES } from "../../functions/src/mcp/ui/resources";

const APP_MIME = "text/html;profile=mcp-app";
const NO_ORIGINS = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe("MCP discovery and app resources", () => {
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  describe("server card and catalog", () => {
    it("/.well-known/mcp/catalog.json and /.well-known/ai-catalog.json list the card of /api/mcp; /.well-known/mcp moved there for good", async () => {
      const moved = await fetch(`${appUrl()}/.well-known/mcp`, { redirect: "manual" });
      assert.equal(moved.status, 308);
      assert.equal(new URL(moved.headers.get("location")!, appUrl()).href, `${appUrl()}/.well-known/mcp/catalog.json`);
      assert.equal(moved.headers.get("access-control-allow-origin"), "*");
      const followed = await fetch(`${appUrl()}/.well-known/mcp`);
      assert.equal(followed.url, `${appUrl()}/.well-known/mcp/catalog.json`);
      for (const path of ["/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json"]) {
        const res = await fetch(`${appUrl()}${path}`);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        const catalog: any = await res.json();
        assert.deepEqual(catalog.entries.map((e: any) => [e.type, e.url]), [["application/mcp-server-card+json", `${mcpUrl()}/server-card`]]);
        assert.match(catalog.entries[0].identifier, /^urn:air:.+:mcp:svc-mcp$/);
      }
    });

    it("the card names the server, both revisions, the transport, authorization and a tools summary", async () => {
      const res = await fetch(`${mcpUrl()}/server-card`, { headers: { Accept: "application/mcp-server-card+json" } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/mcp-server-card\+json/);
      assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
      const card: any = await res.json();
      assert.equal(card.version, "v0.1");
      assert.deepEqual(card.remotes.map((r: any) => [r.type, r.url]), [["streamable-http", mcpUrl()]]);
      assert.deepEqual(card.remotes[0].supportedProtocolVersions, ["2026-07-28", "2025-03-26"]);
      assert.deepEqual(card.remotes[0].supportedProtocolVersions, [...SUPPORTED_PROTOCOL_VERSIONS]);
      assert.deepEqual(card.remotes[0].authentication, { required: true, schemes: ["bearer", "oauth2"] });
      assert.equal(card._meta["svc/authorization"].protectedResourceMetadata, `${appUrl()}/.well-known/oauth-protected-resource/api/mcp`);
      assert.deepEqual(card._meta["svc/tools"].map((t: any) => t.name), toolListing().map((t) => t.name));
      assert.equal(card._meta["svc/tools"].find((t: any) => t.name === "svc.qr.update").destructiveHint, true);
      // The same card at SEP-2127's location, as plain JSON for a client that does not ask for the draft type.
      const again = await fetch(`${appUrl()}/.well-known/mcp/server-card`);
      assert.match(again.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(await again.json(), card);
    });

    it("answers If-None-Match with 304 and no body", async () => {
      const first = await fetch(`${mcpUrl()}/server-card`);
      const etag = first.headers.get("etag");
      assert.ok(etag);
      const second = await fetch(`${mcpUrl()}/server-card`, { headers: { "If-None-Match": etag } });
      assert.equal(second.status, 304);
      assert.equal(await second.text(), "");
    });
  });

  describe("ui:// resources", () => {
    it("resources/list in both revisions: the three app pages, with no outside origins; 2026-07-28 adds caching hints", async () => {
      const legacy = await rpc("resources/list", undefined, merchant.apiKey);
      assert.equal(legacy.status, 200, legacy.text);
      const { resources } = legacy.body.result;
      assert.deepEqual(resources.map((r: any) => r.uri), [UI_RESOURCES.code.uri, UI_RESOURCES.scans.uri, UI_RESOURCES.menu.uri]);
      for (const r of resources) {
        assert.equal(r.mimeType, APP_MIME);
        assert.deepEqual(r._meta.ui.csp, NO_ORIGINS);
      }
      const modern = await rpc2026("resources/list", {}, { credential: merchant.apiKey });
      assert.equal(modern.status, 200, modern.text);
      assert.deepEqual(modern.body.result.resources, resources);
      assert.equal(modern.body.result.ttlMs, 300_000);
      const templates = await rpc2026("resources/templates/list", {}, { credential: merchant.apiKey });
      assert.deepEqual(templates.body.result.resourceTemplates, []);
    });

    it("resources/read in both revisions: self-contained HTML, at most 150 KB gzipped, loading nothing from outside", async () => {
      for (const { uri } of Object.values(UI_RESOURCES)) {
        const legacy = await rpc("resources/read", { uri }, merchant.apiKey);
        assert.equal(legacy.status, 200, legacy.text);
        const [content] = legacy.body.result.contents;
        assert.equal(content.uri, uri);
        assert.equal(content.mimeType, APP_MIME);
        assert.deepEqual(content._meta.ui.csp, NO_ORIGINS);
        const html: string = content.text;
        const gzipped = gzipSync(html).length;
        assert.ok(gzipped <= 150 * 1024, `${uri}: ${gzipped} bytes gzipped`);
        assert.doesNotMatch(html, /<(script|link|img|iframe)[^>]+(src|href)=/i, `${uri}: no element loads a file`);
        assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"]*">/);
        const csp = /Content-Security-Policy" content="([^"]*)"/.exec(html)![1];
        assert.doesNotMatch(csp, /https?:|\*/, "the page's own CSP names no origin");
        const modern = await rpc2026("resources/read", { uri }, { credential: merchant.apiKey });
        assert.equal(modern.status, 200, modern.text);
        assert.equal(modern.body.result.contents[0].text, html);
      }
    });

    it("an unknown or missing uri is a -32602 error, and resources need a credential", async () => {
      const unknown = await rpc("resources/read", { uri: "ui://svc/nope.html" }, merchant.apiKey);
      assert.equal(unknown.status, 200);
      assert.equal(unknown.body.error.code, -32602);
      assert.equal(unknown.body.error.data.code, "RESOURCE_NOT_FOUND");
      const missing = await rpc2026("resources/read", {}, { credential: merchant.apiKey });
      assert.equal(missing.body.error.code, -32602);
      const anonymous = await rpc("resources/list");
      assert.equal(anonymous.status, 401);
    });
  });
});
