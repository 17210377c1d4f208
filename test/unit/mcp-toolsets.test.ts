// What each tool server endpoint lists and runs (docs/mcp.md, "Toolsets"), how svc.tools.search finds
// the long tail, and which OAuth resources name the tool server.
import assert from "node:assert/strict";
import { DEFAULT_VIEW, listingFor, toolAt, TOOLS, TOOLSETS, viewOfPath } from "../../functions/src/mcp/registry";
import { searchCatalog } from "../../functions/src/mcp/catalog";
import { canonicalResource, oauthUrls, protectedResourceMetadata, scopesForResource } from "../../functions/src/oauth/metadata";

const names = (view = DEFAULT_VIEW) => listingFor(view).map((t) => t.name);

describe("MCP toolsets", () => {
  it("the default endpoint lists the specification's tools and the two that reach the rest", () => {
    assert.deepEqual(names(), [...TOOLSETS.core.tools, "svc.tools.search", "svc.tools.execute"].sort());
  });

  it("a toolset URL lists exactly its toolsets' tools; all lists every tool but search and execute", () => {
    assert.deepEqual(names(viewOfPath("/x/webhooks")), [...TOOLSETS.webhooks.tools].sort());
    assert.deepEqual(names(viewOfPath("/x/jobs,designs")), [...TOOLSETS.jobs.tools, ...TOOLSETS.designs.tools].sort());
    const all = names(viewOfPath("/x/all"));
    assert.deepEqual(all, TOOLS.map((t) => t.name).filter((n) => !n.startsWith("svc.tools.")).sort());
  });

  it("read-only endpoints list only tools that change nothing (and execute, which refuses the others there)", () => {
    const readOnly = listingFor(viewOfPath("/readonly")!);
    assert.ok(readOnly.length >= 6);
    for (const t of readOnly) assert.ok(t.annotations.readOnlyHint, t.name);
    assert.deepEqual(names(viewOfPath("/x/webhooks/readonly")), ["svc.webhook.deliveries", "svc.webhook.list"]);
  });

  it("paths name views; anything else names none", () => {
    assert.deepEqual(viewOfPath(""), DEFAULT_VIEW);
    assert.deepEqual(viewOfPath("/"), DEFAULT_VIEW);
    assert.deepEqual(viewOfPath("/X/Webhooks/ReadOnly"), { toolsets: ["webhooks"], readOnly: true });
    for (const bad of ["/x/", "/x/nope", "/x/webhooks,nope", "/readonly/x/webhooks", "/server-card", "/x/../x/webhooks", "/xx"]) {
      assert.equal(viewOfPath(bad), undefined, bad);
    }
  });

  it("the default endpoint runs every tool by name; a toolset URL only its own; read-only refuses what changes", () => {
    for (const tool of TOOLS) assert.equal(toolAt(DEFAULT_VIEW, tool.name).name, tool.name);
    assert.throws(() => toolAt(viewOfPath("/x/webhooks")!, "svc.qr.create"), /not in the toolsets of this endpoint/);
    assert.throws(() => toolAt(viewOfPath("/readonly")!, "svc.qr.create"), /read-only/);
    assert.equal(toolAt(viewOfPath("/readonly")!, "svc.qr.list").name, "svc.qr.list");
    assert.throws(() => toolAt(DEFAULT_VIEW, "svc.nope"), /Unknown tool/);
  });

  it("the default list names a brand design's field; the full definitions spell its shape out", () => {
    const create = (view = DEFAULT_VIEW) => listingFor(view).find((t) => t.name === "svc.qr.create")!;
    const short = (create().inputSchema.properties as Record<string, Record<string, unknown>>).design;
    assert.equal(short.type, "object");
    assert.match(String(short.description), /svc\.tools\.search/);
    const full = (create(viewOfPath("/x/designs")).inputSchema.properties as Record<string, Record<string, unknown>>).design;
    assert.ok(Object.keys(full.properties as object).includes("logo"));
  });

  // The words someone who has not read the list would use for each capability.
  const WORDS: Record<string, string> = {
    "svc.webhook.create": "create webhook",
    "svc.webhook.list": "list webhooks",
    "svc.webhook.delete": "delete webhook",
    "svc.webhook.test": "test webhook",
    "svc.webhook.rotate_secret": "rotate webhook secret",
    "svc.webhook.deliveries": "webhook deliveries",
    "svc.brand.list_presets": "brand presets",
    "svc.job.start": "import codes from csv",
    "svc.job.get": "import job status",
    "svc.gs1.set_item": "register a GTIN barcode with its GS1 digital link links",
    "svc.gs1.list_items": "list GS1 items",
    "svc.gs1.get_analytics": "scans of a GS1 item by link type",
    "svc.utm.set_template": "utm template for campaign links",
    "svc.qr.create": "create qr code",
    "svc.qr.update": "change a code's destination",
    "svc.qr.set_rules": "A/B split and schedule rules by country or device",
    "svc.qr.list": "list qr codes",
    "svc.qr.get_analytics": "code scan analytics",
    "svc.analytics.scan_summary": "workspace scan summary",
    "svc.menu.create": "draft menu",
    "svc.menu.add_item": "add menu item",
    "svc.menu.list": "list menus",
    "svc.audio.create": "audio code",
    "svc.challenge.create": "scan challenge",
    "svc.voice_agent.register": "register voice agent",
    "svc.voice_agent.lookup": "look up voice agent",
    "svc.merchant.get_profile": "workspace profile",
    "svc.ping": "check connection",
    "svc.domain.add": "add custom domain",
    "svc.domain.list": "list branded domains",
    "svc.domain.verify": "verify domain dns records",
    "svc.domain.remove": "remove domain",
    "svc.domain.set_page_colours": "page colours of branded hosts",
    "svc.conversion.track_lead": "report a sign up lead",
    "svc.conversion.track_sale": "report a sale with revenue",
    "svc.conversion.reverse_sale": "refund a sale",
    "svc.conversion.redeem_discount": "redeem in-store discount code at the till",
    "svc.conversion.figures": "sales revenue conversion rate of A/B arms",
  };

  it("svc.tools.search finds every catalogue tool by its obvious words, within its first 3 results", () => {
    const catalogue = TOOLS.map((t) => t.name).filter((n) => !n.startsWith("svc.tools."));
    assert.deepEqual(Object.keys(WORDS).sort(), catalogue.sort(), "a query for every tool");
    for (const [name, query] of Object.entries(WORDS)) {
      const found = searchCatalog(query, 3).map((t) => t.name);
      assert.ok(found.includes(name), `"${query}" found ${found.join(", ") || "nothing"}, not ${name}`);
    }
    assert.deepEqual(searchCatalog("zzz qqq", 5), []);
  });

  it("a token for the tool server serves its toolset and read-only URLs; no other resource", () => {
    const { resource } = oauthUrls();
    for (const suffix of ["", "/x/webhooks", "/x/Webhooks", "/x/jobs,designs/readonly", "/x/all", "/readonly"]) assert.equal(canonicalResource(`${resource}${suffix}`), resource, suffix);
    for (const other of [`${resource}/server-card`, `${resource}x/webhooks`, `${resource}/x/../../oauth`, `${resource}/x/nope`, `${resource}/x/webhooks,nope`, "https://evil.example/api/mcp"]) {
      assert.equal(canonicalResource(other), undefined, other);
    }
  });

  it("read-only URLs advertise read scopes only, and a grant started at one carries no write scope (review L3)", () => {
    const { resource } = oauthUrls();
    for (const suffix of ["/readonly", "/readonly/", "/x/jobs,designs/readonly", "/x/all/ReadOnly"]) {
      const advertised = protectedResourceMetadata(`${resource}${suffix}`).scopes_supported;
      assert.deepEqual(advertised, ["merchant:read", "webhooks:read", "domains:read"], suffix);
      assert.deepEqual(scopesForResource(`${resource}${suffix}`, ["merchant:read", "qr:write", "webhooks:write"]), ["merchant:read"], suffix);
      assert.deepEqual(scopesForResource(`${resource}${suffix}`, ["qr:write"]), ["merchant:read"], suffix);
    }
    for (const suffix of ["", "/x/webhooks"]) {
      assert.ok(protectedResourceMetadata(`${resource}${suffix}`).scopes_supported.includes("qr:write"), suffix);
      assert.deepEqual(scopesForResource(`${resource}${suffix}`, ["merchant:read", "qr:write"]), ["merchant:read", "qr:write"], suffix);
    }
  });
});
