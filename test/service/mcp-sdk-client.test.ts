import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { appUrl, mcpUrl } from "../helpers/env";
import { checkToolContent } from "../helpers/rpc";
import { UI_RESOURCES } from "../../functions/src/mcp/ui/resources";
import { createMerchant } from "../helpers/merchants";

async function connect(credential: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } });
  const client = new Client({ name: "svc-test-client", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("MCP tool server: official SDK client", () => {
  it("connects with a key, lists tools and calls svc.ping", async () => {
    const merchant = await createMerchant();
    const client = await connect(merchant.apiKey);
    try {
      assert.equal(client.getServerVersion()?.name, "svc-mcp");
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "svc.ping"));
      const result = await client.callTool({ name: "svc.ping", arguments: {} });
      assert.deepEqual(result.structuredContent, { ok: true, merchantId: merchant.merchantId, authMethod: "api-key" });
      assert.equal(await client.ping().then(() => "pong"), "pong");
    } finally {
      await client.close();
    }
  });

  it("a client without UI support gets each app tool's data as text and structuredContent, and can read the ui:// resources", async () => {
    const merchant = await createMerchant();
    const client = await connect(merchant.apiKey);
    try {
      assert.ok(client.getServerCapabilities()?.resources, "the resources capability is offered");
      // listTools first: the SDK then checks every structuredContent against the tool's outputSchema.
      const { tools } = await client.listTools();
      const create = tools.find((t) => t.name === "svc.qr.create")!;
      // MCP's defaults (not read-only, not idempotent) are left out; the hints that differ from them stay.
      assert.deepEqual(create.annotations, { title: "Create a QR code", destructiveHint: false, openWorldHint: false });
      assert.equal(create.outputSchema?.type, "object");
      assert.deepEqual(create._meta, { ui: { resourceUri: UI_RESOURCES.code.uri } });
      const code: any = await client.callTool({ name: "svc.qr.create", arguments: { title: "Lunch", destinationUrl: "https://example.com/lunch", dynamic: true } });
      checkToolContent(code.content, code.structuredContent);
      assert.match(code.content[0].text, /^Created draft dynamic code "Lunch" \(/);
      assert.match(code.content[0].text, new RegExp(`Publish it in the console: ${appUrl()}/console#/code/${code.structuredContent.codeId}`));
      const analytics: any = await client.callTool({ name: "svc.qr.get_analytics", arguments: { codeId: code.structuredContent.codeId, days: 7 } });
      checkToolContent(analytics.content, analytics.structuredContent);
      assert.match(analytics.content[0].text, /: 0 scans by 0 unique scanners from \d{4}-\d\d-\d\d to /);
      const menu: any = await client.callTool({ name: "svc.menu.create", arguments: { name: "Brunch" } });
      checkToolContent(menu.content, menu.structuredContent);
      assert.equal(menu.structuredContent.status, "draft");
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri), [UI_RESOURCES.code.uri, UI_RESOURCES.scans.uri, UI_RESOURCES.menu.uri]);
      for (const { uri } of resources) {
        const { contents } = await client.readResource({ uri });
        assert.equal(contents.length, 1);
        assert.equal(contents[0].mimeType, "text/html;profile=mcp-app");
        assert.match(String((contents[0] as { text?: string }).text), /^<!doctype html>/i);
      }
      await assert.rejects(client.readResource({ uri: "ui://svc/nope.html" }), /Unknown resource/);
    } finally {
      await client.close();
    }
  });

  it("surfaces a revoked or unknown key as an error to the client", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
      requestInit: { headers: { Authorization: `Bearer sk-svc-${"1".repeat(64)}` } },
    });
    const client = new Client({ name: "svc-test-client", version: "1.0.0" });
    await client.connect(transport); // initialize needs no auth
    await assert.rejects(client.listTools(), /401|INVALID_API_KEY|not recognised/);
    await client.close();
  });
});
