// The official MCP SDK v2 client (@modelcontextprotocol/client) in each of its version-negotiation modes:
// legacy (initialize, 2025-03-26), auto (probes server/discover and goes 2026-07-28) and pinned to
// 2026-07-28. Each lists the tools and calls every one of them with a key; the eras must give the same
// tool outputs, errors and audit events.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { newGtin } from "../helpers/gs1";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { appUrl, mcpUrl } from "../helpers/env";
import { signClickId } from "../../functions/src/attribution/clickId";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { DEFAULT_VIEW, listingFor, TOOLS, toolListing } from "../../functions/src/mcp/registry";
import { UI_RESOURCES } from "../../functions/src/mcp/ui/resources";
import { checkToolContent } from "../helpers/rpc";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Mode = "legacy" | "auto" | { pin: string };

const MODES: { label: string; mode: Mode; era: "legacy" | "modern"; version: string }[] = [
  { label: "legacy", mode: "legacy", era: "legacy", version: "2025-03-26" },
  { label: "auto", mode: "auto", era: "modern", version: "2026-07-28" },
  { label: "pinned to 2026-07-28", mode: { pin: "2026-07-28" }, era: "modern", version: "2026-07-28" },
];

async function connect(mode: Mode, credential: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
    requestInit: { headers: { Authorization: `Bearer ${credential}` } },
  });
  const client = new Client({ name: "svc-test-sdk-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return client;
}

// Each tool's listed outputSchema, compiled once: every result must validate against it.
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
const outputValidators = new Map(toolListing().map((t) => [t.name, ajv.compile(t.outputSchema)]));

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result: any = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
  checkToolContent(result.content, result.structuredContent);
  const validate = outputValidators.get(name)!;
  assert.ok(validate(result.structuredContent), `${name}: structuredContent does not match its outputSchema: ${JSON.stringify(validate.errors)}`);
  return result.structuredContent;
}

/** Calls all tools, in an order that lets later calls use what earlier ones made. */
async function callEveryTool(client: Client, merchant: TestMerchant): Promise<{ results: Map<string, any>; calls: number }> {
  const results = new Map<string, any>();
  let calls = 0;
  const run = async (name: string, args: Record<string, unknown>) => {
    calls++;
    const result = await call(client, name, args);
    results.set(name, result);
    return result;
  };
  const domain = `sdk-v2-${randomUUID().slice(0, 8)}.example.com`;
  assert.deepEqual(await run("svc.ping", {}), { ok: true, merchantId: merchant.merchantId, authMethod: "api-key" });
  assert.equal((await run("svc.merchant.get_profile", {})).merchantId, merchant.merchantId);
  const code = await run("svc.qr.create", { title: "Door", destinationUrl: "https://example.com/a", dynamic: true });
  assert.ok(code.codeId && code.qrImageUrl);
  assert.ok((await run("svc.qr.list", { limit: 5 })).codes.some((c: any) => c.codeId === code.codeId));
  assert.equal((await run("svc.qr.update", { codeId: code.codeId, destinationUrl: "https://example.com/b" })).destinationUrl, "https://example.com/b");
  const rules = { rules: [{ when: { language: ["fr"] }, then: { type: "redirect", url: "https://example.com/fr" } }] };
  assert.deepEqual((await run("svc.qr.set_rules", { codeId: code.codeId, settings: rules })).campaignRules, rules);
  assert.deepEqual((await run("svc.utm.set_template", { template: { name: `sdk-${randomUUID().slice(0, 8)}`, source: "qr", medium: "print" } })).created, true);
  const gtin = newGtin();
  const item = await run("svc.gs1.set_item", { value: gtin, links: [{ linkType: "gs1:pip", href: "https://example.com/product", title: "Product", isDefault: true }] });
  assert.equal(item.created, true);
  assert.deepEqual((await run("svc.gs1.list_items", {})).items.map((i: any) => i.itemId), [item.itemId]);
  const itemFigures = await run("svc.gs1.get_analytics", { itemId: item.itemId, days: 7 });
  assert.deepEqual([itemFigures.uri, itemFigures.totalScans, itemFigures.byLinkType], [item.uri, 0, []]);
  assert.equal((await run("svc.qr.get_analytics", { codeId: code.codeId, days: 7 })).totalScans, 0);
  // Conversions (docs/attribution.md): a click id as the redirect signs it, a lead and a sale on it, the sale
  // reversed, a till's redemption of a discount code the merchant uploaded, and the figures.
  // Signed with the local stack's key, as the redirect signs (the functions read it from the same file).
  process.env.CLICK_ID_KEYS ??= /^CLICK_ID_KEYS=(.+)$/m.exec(readFileSync("functions/.secret.local", "utf8"))![1];
  const clickId = signClickId({ scanId: `sdk-${randomUUID()}`, merchantId: merchant.merchantId, codeId: code.codeId, rule: { index: null }, person: true, at: new Date() });
  assert.equal((await run("svc.conversion.track_lead", { clickId, eventName: "sign_up" })).attributed, true);
  const invoiceId = `sdk-${randomUUID()}`;
  assert.equal((await run("svc.conversion.track_sale", { clickId, amount: 1999, currency: "EUR", invoiceId })).duplicate, false);
  assert.equal((await run("svc.conversion.reverse_sale", { invoiceId, reason: "refund", reversalId: `r-${invoiceId}` })).duplicate, false);
  const uploaded = await fetch(`${appUrl()}/api/track/discounts/${code.codeId}`, { method: "POST", headers: { Authorization: `Bearer ${merchant.apiKey}`, "Content-Type": "application/json" }, body: JSON.stringify({ codes: ["SDK-SAVE-1"] }) });
  assert.ok(uploaded.status < 300, `discount codes: ${uploaded.status} ${await uploaded.text()}`);
  assert.equal((await run("svc.conversion.redeem_discount", { discountCode: "SDK-SAVE-1", amount: 500, currency: "EUR", invoiceId: `till-${invoiceId}` })).duplicate, false);
  assert.equal(typeof (await run("svc.conversion.figures", { codeId: code.codeId })).total.sales, "number");
  assert.equal((await run("svc.analytics.scan_summary", { days: 7 })).days, 7);
  assert.equal((await run("svc.audio.create", { title: "Jingle", payloadText: "https://example.com/deal" })).status, "draft");
  const menu = await run("svc.menu.create", { name: "Brunch" });
  assert.equal((await run("svc.menu.list", {})).count, 1);
  assert.equal((await run("svc.menu.add_item", { menuId: menu.menuId, sectionName: "Mains", name: "Soup", price: 7.5 })).item.name, "Soup");
  const found = await run("svc.tools.search", { query: "brand presets" });
  assert.equal(found.tools[0].name, "svc.brand.list_presets");
  assert.deepEqual((await run("svc.tools.execute", { name: "svc.brand.list_presets", arguments: {} })).result, { count: 0, presets: [] });
  assert.equal((await run("svc.challenge.create", { name: "Ten visits", challengeType: "scan_count" })).status, "draft");
  const listing = await run("svc.voice_agent.register", {
    businessName: "Bean There",
    domain,
    voiceAgentPhone: "+1 415 555 0123",
    email: "owner@example.com",
  });
  assert.equal(listing.domain, domain);
  assert.equal((await run("svc.voice_agent.lookup", { domain })).domain, domain);
  assert.deepEqual(await run("svc.brand.list_presets", {}), { count: 0, presets: [] });
  // A receiver that is never there (loopback, refused): the calls are about the tools' shapes, not delivery.
  const hook = await run("svc.webhook.create", { url: "http://127.0.0.1:9/hook", events: ["code.published"] });
  assert.match(hook.secret, /^whsec_/);
  assert.equal((await run("svc.webhook.list", {})).webhooks.length, 1);
  assert.equal((await run("svc.webhook.test", { webhookId: hook.webhookId })).queued, true);
  // The test delivery is logged when its attempt runs: wait for it, so every mode compares a log holding it.
  let logged: any[] = [];
  for (let i = 0; i < 60 && !logged.length; i++) {
    if (i) await new Promise((r) => setTimeout(r, 500));
    logged = (await run("svc.webhook.deliveries", { webhookId: hook.webhookId })).deliveries;
  }
  assert.equal(logged.length, 1, "the test delivery is in the log");
  assert.match((await run("svc.webhook.rotate_secret", { webhookId: hook.webhookId })).secret, /^whsec_/);
  await run("svc.webhook.delete", { webhookId: hook.webhookId });
  // A host whose records nobody serves here: the calls are about the tools' shapes; the check finds nothing.
  const added = await run("svc.domain.add", { hostname: `sdk-${randomUUID().slice(0, 8)}.shop-example.com` });
  assert.equal(added.state, "pending");
  assert.deepEqual((await run("svc.domain.list", {})).domains.map((d: any) => d.domainId), [added.domainId]);
  assert.equal((await run("svc.domain.verify", { domainId: added.domainId })).domainId, added.domainId);
  assert.deepEqual(await run("svc.domain.remove", { domainId: added.domainId }), { deleted: true, domainId: added.domainId });
  assert.deepEqual(await run("svc.domain.set_page_colours", { pageColours: { foreground: "#1f2937", background: "#FEF3C7" } }), { pageColours: { foreground: "#1F2937", background: "#FEF3C7" } });
  assert.deepEqual((await run("svc.domain.list", {})).pageColours, { foreground: "#1F2937", background: "#FEF3C7" });
  const job = await run("svc.job.start", { format: "json", items: [{ destinationUrl: "https://example.com/job", externalRef: `sdk-${randomUUID()}` }] });
  assert.equal(job.total, 1);
  // Followed until done, so every mode compares the same state's shape.
  for (let i = 0; i < 120 && (await run("svc.job.get", { jobId: job.jobId })).state !== "done"; i++) await new Promise((r) => setTimeout(r, 500));
  assert.equal(results.get("svc.job.get").created, 1);
  assert.deepEqual([...results.keys()].sort(), TOOLS.map((t) => t.name).sort(), "every registered tool was called");
  return { results, calls };
}

/** The shape of a value: object keys (recursively) and primitive types, not the values themselves. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]));
  }
  return value === null ? "null" : typeof value;
}

/**
 * Whether two shapes agree where both are known: a null stands for any value of a nullable field, and an
 * empty array for any list (a webhook's last attempt is null until the delivery task has run once, which
 * depends on timing, not on the protocol era).
 */
function sameShape(a: unknown, b: unknown): boolean {
  if (a === "null" || b === "null") return true;
  if (Array.isArray(a) && Array.isArray(b)) return !a.length || !b.length || sameShape(a[0], b[0]);
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameShape((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

describe("MCP tool server: official SDK v2 client", () => {
  const outputs = new Map<string, Map<string, any>>();

  for (const { label, mode, era, version } of MODES) {
    describe(`in ${label} mode`, () => {
      it(`speaks ${version}, lists the tools and calls every tool with a key`, async () => {
        const merchant = await createMerchant();
        const client = await connect(mode, merchant.apiKey);
        try {
          assert.equal(client.getProtocolEra(), era);
          assert.equal(client.getNegotiatedProtocolVersion(), version);
          assert.deepEqual(client.getServerVersion(), { name: "svc-mcp", version: "v0.1" });
          const { tools } = await client.listTools();
          assert.deepEqual(tools, listingFor(DEFAULT_VIEW, version === "2026-07-28" ? "2026-07-28" : "2025-03-26"), "the listed tools, as the registry derives them for the default endpoint");
          const { results, calls } = await callEveryTool(client, merchant);
          outputs.set(label, results);
          // A client without UI support still lists and reads the app resources as plain resources.
          const { resources } = await client.listResources();
          assert.deepEqual(resources.map((r) => r.uri).sort(), Object.values(UI_RESOURCES).map((r) => r.uri).sort());
          const read = await client.readResource({ uri: UI_RESOURCES.code.uri });
          assert.equal(read.contents[0].mimeType, "text/html;profile=mcp-app");
          const audit = await firestore().collection("auditEvents").where("merchantId", "==", merchant.merchantId).get();
          // Besides each call's own event, a branded domain's change is an audit event of its own (domains.*).
          const changes = audit.docs.filter((d) => String(d.get("tool")).startsWith("domains."));
          assert.deepEqual(changes.map((d) => d.get("details.change")).sort(), ["added", "deleted"]);
          assert.equal(audit.size - changes.length, calls, "one audit event per tools/call");
          assert.ok(audit.docs.every((d) => d.data().status === "ok"));
        } finally {
          await client.close();
        }
      });

      it("surfaces an unknown key and a missing scope as errors", async () => {
        const unknown = await connect(mode, `sk-svc-${"1".repeat(64)}`); // connecting needs no credential
        await assert.rejects(unknown.listTools(), /401|INVALID_API_KEY|not recognised|authoriz/i);
        await unknown.close();
        const merchant = await createMerchant();
        const narrow = await connect(mode, await mintKey(merchant, ["qr:write"]));
        try {
          await assert.rejects(narrow.callTool({ name: "svc.merchant.get_profile", arguments: {} }), (e: any) => {
            assert.equal(e.code, -32000);
            assert.match(e.message, /merchant:read/);
            return true;
          });
          await assert.rejects(narrow.callTool({ name: "svc.nope", arguments: {} }), (e: any) => e.code === -32602);
        } finally {
          await narrow.close();
        }
      });
    });
  }

  // Declared last: mocha runs a suite's own tests before its nested suites, and these run after the modes.
  describe("across eras", () => {
    it("every tool gives output of the same shape in 2025-03-26 and 2026-07-28", () => {
      const legacy = outputs.get("legacy");
      assert.ok(legacy && outputs.size === MODES.length, "every mode ran");
      for (const [label, results] of outputs) {
        for (const [tool, result] of legacy) {
          const [theirs, ours] = [shape(results.get(tool)), shape(result)];
          assert.ok(sameShape(theirs, ours), `${label}: ${tool}: ${JSON.stringify(theirs)} vs ${JSON.stringify(ours)}`);
        }
      }
    });
  });
});
