import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import * as v2 from "@modelcontextprotocol/client";
import { appUrl, mcpUrl } from "../helpers/env";
import { newClient, type TestClient } from "../helpers/clients";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { consent, MemoryOAuthProvider, REDIRECT_URI, serveClientMetadata } from "../helpers/oauth";
import { rpc } from "../helpers/rpc";

/** The whole flow with the official SDK client: 401, discovery, registration, consent, code exchange, tools. */
async function connectWithOAuth(merchant: TestMerchant, provider: MemoryOAuthProvider, net: TestClient) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider, fetch: net.fetch as typeof fetch });
  const client = new Client({ name: "svc-oauth-test", version: "1.0.0" });
  await client.connect(transport); // initialize needs no credential
  await assert.rejects(client.listTools(), UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${appUrl()}/oauth/authorize`);
  assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authorizationUrl.searchParams.get("resource"), mcpUrl());
  const { redirect, describe } = await consent(net, authorizationUrl, merchant);
  assert.equal(redirect.origin + redirect.pathname, REDIRECT_URI);
  assert.equal(redirect.searchParams.get("iss"), appUrl());
  await transport.finishAuth(redirect.searchParams.get("code")!);
  return { client, describe };
}

describe("OAuth: the official SDK client", function () {
  this.timeout(60_000);

  it("registers dynamically (RFC 7591), is authorized, then lists and calls tools with its token", async () => {
    const merchant = await createMerchant();
    const provider = new MemoryOAuthProvider();
    const { client, describe } = await connectWithOAuth(merchant, provider, newClient());
    try {
      assert.match(String(provider.info?.client_id), /^svc-client-[0-9a-f]{32}$/);
      assert.equal(describe.client.name, "svc SDK test client");
      assert.equal(describe.client.verified, false);
      assert.equal(describe.redirectHost, "127.0.0.1:33418");
      assert.deepEqual(describe.scopes, ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write", "webhooks:read", "webhooks:write", "domains:read", "domains:write", "conversions:write"]);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "svc.ping"));
      const ping = await client.callTool({ name: "svc.ping", arguments: {} });
      assert.deepEqual(ping.structuredContent, { ok: true, merchantId: merchant.merchantId, authMethod: "oauth" });
      const profile = await client.callTool({ name: "svc.merchant.get_profile", arguments: {} });
      assert.equal(profile.isError ?? false, false);
      assert.match(provider.saved!.access_token, /^svc_at_/);
      assert.equal(provider.saved!.token_type.toLowerCase(), "bearer");
      assert.equal(provider.saved!.expires_in, 3600);
    } finally {
      await client.close();
    }
  });

  it("uses a Client ID Metadata Document served from loopback as its client_id", async () => {
    const doc = await serveClientMetadata((clientId) => ({
      client_id: clientId,
      client_name: "Loopback Metadata Client",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
    }));
    try {
      const merchant = await createMerchant();
      // The SDK insists on https for clientMetadataUrl; a client that knows its URL-based id presets it.
      const provider = new MemoryOAuthProvider(undefined, { client_id: doc.clientId });
      const { client, describe } = await connectWithOAuth(merchant, provider, newClient());
      try {
        assert.equal(describe.client.id, doc.clientId);
        assert.equal(describe.client.name, "Loopback Metadata Client");
        assert.equal(describe.client.registration, "metadata-document");
        assert.ok(doc.fetches() >= 1);
        const ping = await client.callTool({ name: "svc.ping", arguments: {} });
        assert.deepEqual(ping.structuredContent, { ok: true, merchantId: merchant.merchantId, authMethod: "oauth" });
      } finally {
        await client.close();
      }
    } finally {
      await doc.close();
    }
  });

  it("refreshes an expired session with the rotated refresh token through the SDK", async () => {
    const merchant = await createMerchant();
    const provider = new MemoryOAuthProvider();
    const { client } = await connectWithOAuth(merchant, provider, newClient());
    try {
      const first = provider.saved!;
      // A token the server no longer knows: the SDK refreshes and retries.
      provider.saved = { ...first, access_token: `svc_at_${first.access_token.slice(7, 37)}.${"A".repeat(43)}` };
      const ping = await client.callTool({ name: "svc.ping", arguments: {} });
      assert.equal((ping.structuredContent as any).authMethod, "oauth");
      assert.notEqual(provider.saved!.refresh_token, first.refresh_token);
      const stale = await rpc("tools/list", {}, first.access_token);
      assert.equal(stale.status, 200, "the first access token stays valid until it expires");
    } finally {
      await client.close();
    }
  });

  it("SDK v2 in 2026-07-28 mode: checks iss (RFC 9207) on the callback, then calls tools with its token", async () => {
    const merchant = await createMerchant();
    const provider = new MemoryOAuthProvider();
    const net = newClient();
    const transport = new v2.StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider, fetch: net.fetch as typeof fetch });
    const client = new v2.Client({ name: "svc-oauth-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    try {
      await assert.rejects(client.connect(transport).then(() => client.listTools()), v2.UnauthorizedError);
      const { redirect } = await consent(net, provider.authorizationUrl!, merchant);
      await transport.finishAuth(redirect.searchParams); // validates iss before redeeming the code
      if (!client.transport) await client.connect(transport);
      const ping: any = await client.callTool({ name: "svc.ping", arguments: {} });
      assert.deepEqual(ping.structuredContent, { ok: true, merchantId: merchant.merchantId, authMethod: "oauth" });
    } finally {
      await client.close();
    }
  });
});
