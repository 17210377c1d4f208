import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import * as oauth from "oauth4webapi";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser";
import { appUrl, mcpUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { createMerchant } from "../helpers/merchants";
import { serveClientMetadata } from "../helpers/oauth";
import { callTool, rpc } from "../helpers/rpc";

const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts");

describe("OAuth consent page in a browser", function () {
  this.timeout(120_000);
  let browser: Browser;
  let page: Page;
  let doc: Awaited<ReturnType<typeof serveClientMetadata>>;

  before(async () => {
    doc = await serveClientMetadata((clientId) => ({
      client_id: clientId,
      client_name: "Browser Test Assistant",
      client_uri: "https://assistant.example",
      redirect_uris: [`${new URL(clientId).origin}/callback`],
      token_endpoint_auth_method: "none",
    }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    page.on("pageerror", (e) => console.error("page error:", e.message));
  });

  after(async () => {
    await browser?.close();
    await doc?.close();
  });

  it("signs in, narrows scopes, approves; the app's token works until it is revoked under Connected apps", async () => {
    const merchant = await createMerchant([], "Browser Cafe");
    const net = newClient();
    const options = { [oauth.customFetch]: net.fetch as typeof fetch, [oauth.allowInsecureRequests]: true };
    const issuer = new URL(appUrl());
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }));
    const client: oauth.Client = { client_id: doc.clientId, token_endpoint_auth_method: "none" };
    const redirectUri = `${doc.origin}/callback`;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: "code", client_id: doc.clientId, redirect_uri: redirectUri, state, resource: mcpUrl(),
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", scope: "merchant:read qr:write",
    })) authorize.searchParams.set(k, v);

    await page.goto(String(authorize));
    await page.fill("#email", merchant.email);
    await page.fill("#password", "password-123");
    await page.click("#sign-in");
    await page.waitForSelector("#consent");
    assert.equal(await page.textContent("#client-name"), "Browser Test Assistant");
    assert.equal(await page.textContent("#redirect-host"), new URL(doc.origin).host);
    assert.equal(await page.textContent("#workspace-name"), "Browser Cafe");
    assert.match((await page.textContent("#consent"))!, /Unverified app/);
    assert.equal(await page.locator("input[name=scope]").count(), 2);
    await page.uncheck("#scope-qr-write");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "oauth-consent.png"), fullPage: true });
    await page.click("#approve");
    await page.waitForURL((url) => url.href.startsWith(redirectUri));

    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state); // checks state and iss
    const tokens = await oauth.processAuthorizationCodeResponse(
      as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, { ...options, additionalParameters: { resource: mcpUrl() } }),
    );
    assert.equal(tokens.scope, "merchant:read");
    const ping = await callTool("svc.ping", {}, tokens.access_token);
    assert.equal(ping.body.result.structuredContent.authMethod, "oauth");
    assert.equal(ping.body.result.structuredContent.merchantId, merchant.merchantId);

    // Webhook scopes asked for by name are listed, but unticked until the person ticks them.
    const withWebhooks = new URL(authorize);
    withWebhooks.searchParams.set("scope", "merchant:read webhooks:read webhooks:write");
    withWebhooks.searchParams.set("state", "hooks-state");
    await page.goto(String(withWebhooks));
    await page.waitForSelector("#consent");
    assert.deepEqual(
      await page.$$eval("input[name=scope]", (boxes) => (boxes as HTMLInputElement[]).map((b) => [b.value, b.checked])),
      [["merchant:read", true], ["webhooks:read", false], ["webhooks:write", false]],
    );

    // Denying comes back as access_denied.
    const denyUrl = new URL(authorize);
    denyUrl.searchParams.set("state", "deny-state");
    await page.goto(String(denyUrl));
    await page.waitForSelector("#consent");
    await page.click("#deny");
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const denied = new URL(page.url());
    assert.equal(denied.searchParams.get("error"), "access_denied");
    assert.equal(denied.searchParams.get("state"), "deny-state");

    await page.goto(`${appUrl()}/console#/settings`);
    const row = page.locator("#app-rows tr", { hasText: "Browser Test Assistant" });
    await row.waitFor();
    assert.equal((await row.locator(".app-status").textContent())?.trim(), "active");
    assert.match((await row.textContent())!, /merchant:read/);
    await row.locator("button.revoke-app").click();
    await page.locator("#app-rows tr", { hasText: "Browser Test Assistant" }).locator(".app-status", { hasText: "revoked" }).waitFor();
    const after = await rpc("tools/list", {}, tokens.access_token);
    assert.equal(after.status, 401);
    assert.match(after.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  });
});
