import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpUrl } from "../helpers/env";
import { createMerchant } from "../helpers/merchants";

describe("MCP tool server: official SDK client", () => {
  it("connects with a key, lists tools and calls svc.ping", async () => {
    const merchant = await createMerchant();
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
      requestInit: { headers: { Authorization: `Bearer ${merchant.apiKey}` } },
    });
    const client = new Client({ name: "svc-test-client", version: "1.0.0" });
    await client.connect(transport);
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
