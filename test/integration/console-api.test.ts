import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, signUp } from "../helpers/merchants";
import { addMember } from "../../functions/src/store/workspaces";
import { hashApiKey } from "../../functions/src/auth/apiKeys";

async function consoleCall(path: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${appUrl()}/api/console${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("console API: workspaces and keys", () => {
  it("creates one workspace per user, idempotently", async () => {
    const user = await signUp();
    const first = await consoleCall("/workspace", user.idToken, { body: { name: "Bean There" } });
    assert.equal(first.status, 201);
    assert.equal(first.body.workspace.name, "Bean There");
    const again = await consoleCall("/workspace", user.idToken, { body: {} });
    assert.equal(again.status, 200);
    assert.equal(again.body.workspace.merchantId, first.body.workspace.merchantId);
    const me = await consoleCall("/me", user.idToken);
    assert.equal(me.body.role, "owner");
    assert.equal(me.body.workspace.merchantId, first.body.workspace.merchantId);
  });

  it("mints a key shown once, stores only its hash and prefix, lists and revokes it", async () => {
    const user = await signUp();
    await consoleCall("/workspace", user.idToken, { body: {} });
    const minted = await consoleCall("/keys", user.idToken, { body: { name: "agent", scopes: ["merchant:read", "qr:write"] } });
    assert.equal(minted.status, 201);
    assert.match(minted.body.key, /^sk-svc-[0-9a-f]{64}$/);
    assert.equal(minted.body.prefix, minted.body.key.slice(0, 15));

    const stored = await firestore().collection("apiKeys").doc(hashApiKey(minted.body.key)).get();
    assert.ok(stored.exists, "document id is the SHA-256 of the key");
    assert.ok(!JSON.stringify(stored.data()).includes(minted.body.key.slice(15)), "plaintext never stored");

    const listed = await consoleCall("/keys", user.idToken);
    assert.equal(listed.body.keys.length, 1);
    const [key] = listed.body.keys;
    assert.deepEqual(key.scopes, ["merchant:read", "qr:write"]);
    assert.equal(key.prefix, minted.body.prefix);
    assert.equal(key.revokedAt, null);
    assert.ok(!("key" in key) && !JSON.stringify(listed.body).includes(hashApiKey(minted.body.key)), "list shows no secret or hash");

    toolResult(await callTool("svc.ping", {}, minted.body.key));
    const used = await consoleCall("/keys", user.idToken);
    assert.ok(used.body.keys[0].lastUsedAt, "last-used time recorded");

    const revoked = await consoleCall(`/keys/${key.keyId}/revoke`, user.idToken, { method: "POST" });
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revokedAt);
  });

  it("rejects bad key requests with field-level errors", async () => {
    const user = await signUp();
    await consoleCall("/workspace", user.idToken, { body: {} });
    const noScopes = await consoleCall("/keys", user.idToken, { body: { scopes: [] } });
    assert.equal(noScopes.status, 400);
    assert.equal(noScopes.body.code, "VALIDATION_FAILED");
    const badScope = await consoleCall("/keys", user.idToken, { body: { scopes: ["admin:all"] } });
    assert.equal(badScope.status, 400);
    assert.equal(badScope.body.details.issues[0].path, "scopes.0");
    const extra = await consoleCall("/keys", user.idToken, { body: { scopes: ["qr:write"], merchantId: "x" } });
    assert.equal(extra.status, 400);
  });

  it("refuses API keys, missing credentials, and other workspaces' keys", async () => {
    const a = await signUp();
    const b = await signUp();
    await consoleCall("/workspace", a.idToken, { body: {} });
    await consoleCall("/workspace", b.idToken, { body: {} });
    const minted = await consoleCall("/keys", a.idToken, { body: { scopes: ["qr:write"] } });

    assert.equal((await consoleCall("/keys", undefined)).body.code, "NO_AUTH");
    const withKey = await consoleCall("/keys", minted.body.key);
    assert.equal(withKey.status, 403, "a key cannot mint or list keys");

    const foreign = await consoleCall(`/keys/${minted.body.keyId}/revoke`, b.idToken, { method: "POST" });
    assert.equal(foreign.status, 404);
    const listB = await consoleCall("/keys", b.idToken);
    assert.equal(listB.body.keys.length, 0);
    toolResult(await callTool("svc.ping", {}, minted.body.key)); // still valid
  });

  it("lets a member mint and revoke their own keys but not the owner's", async () => {
    const owner = await signUp();
    const member = await signUp();
    const ws = await consoleCall("/workspace", owner.idToken, { body: {} });
    await addMember(ws.body.workspace.merchantId, member.uid);
    const ownerKey = await consoleCall("/keys", owner.idToken, { body: { scopes: ["qr:write"] } });
    const memberKey = await consoleCall("/keys", member.idToken, { body: { scopes: ["merchant:read"] } });
    assert.equal(memberKey.status, 201);
    const profile = toolResult(await callTool("svc.merchant.get_profile", {}, memberKey.body.key));
    assert.equal(profile.merchantId, ws.body.workspace.merchantId);
    assert.equal(profile.caller.role, "member");
    assert.equal((await consoleCall(`/keys/${ownerKey.body.keyId}/revoke`, member.idToken, { method: "POST" })).status, 403);
    assert.equal((await consoleCall(`/keys/${memberKey.body.keyId}/revoke`, member.idToken, { method: "POST" })).status, 200);
  });

  it("answers unknown console paths and wrong content types with JSON errors", async () => {
    const user = await signUp();
    assert.equal((await consoleCall("/nope", user.idToken)).status, 404);
    const res = await fetch(`${appUrl()}/api/console/workspace`, {
      method: "POST",
      headers: { Authorization: `Bearer ${user.idToken}`, "Content-Type": "text/plain" },
      body: "{}",
    });
    assert.equal(res.status, 415);
    assert.equal(((await res.json()) as any).code, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("console API: publishing and workspace data", function () {
  this.timeout(60_000);

  it("publishes drafts (console only), lists codes and drafts, and re-points codes; never across workspaces", async () => {
    const owner = await signUp();
    await consoleCall("/workspace", owner.idToken, { body: {} });
    const code = toolResult(await callTool("svc.qr.create", { title: "door", destinationUrl: "https://example.com/a", dynamic: true }, owner.idToken));
    const menu = toolResult(await callTool("svc.menu.create", { name: "Brunch" }, owner.idToken));
    assert.equal(code.status, "draft");

    const codes = await consoleCall("/codes", owner.idToken);
    assert.deepEqual(codes.body.codes.map((c: any) => c.codeId), [code.codeId]);
    const published = await consoleCall("/publish", owner.idToken, { body: { kind: "codes", id: code.codeId } });
    assert.equal(published.status, 200);
    assert.equal(published.body.status, "published");
    const again = await consoleCall("/publish", owner.idToken, { body: { kind: "codes", id: code.codeId } });
    assert.equal(again.body.publishedAt, published.body.publishedAt, "publishing is idempotent");
    assert.equal(toolResult(await callTool("svc.qr.list", {}, owner.idToken)).codes[0].status, "published");
    assert.equal((await consoleCall("/publish", owner.idToken, { body: { kind: "menus", id: menu.menuId } })).body.status, "published");
    assert.equal((await consoleCall("/drafts/menus", owner.idToken)).body.items[0].status, "published");

    const repointed = await consoleCall(`/codes/${code.codeId}`, owner.idToken, { body: { destinationUrl: "https://example.com/b" } });
    assert.equal(repointed.body.destinationUrl, "https://example.com/b");
    assert.equal((await consoleCall(`/codes/${code.codeId}`, owner.idToken, { body: { destinationUrl: "ftp://x" } })).status, 400);
    const summary = await consoleCall("/analytics?days=7", owner.idToken);
    assert.equal(summary.body.byDay.length, 7);
    assert.equal((await consoleCall("/analytics?days=0", owner.idToken)).status, 400);

    const stranger = await signUp();
    await consoleCall("/workspace", stranger.idToken, { body: {} });
    assert.equal((await consoleCall("/publish", stranger.idToken, { body: { kind: "menus", id: menu.menuId } })).status, 404);
    assert.equal((await consoleCall(`/codes/${code.codeId}`, stranger.idToken, { body: { title: "x" } })).status, 404);
    assert.equal((await consoleCall("/codes", stranger.idToken)).body.codes.length, 0);
  });

  it("no tool can publish: tool arguments cannot set status", async () => {
    const owner = await signUp();
    await consoleCall("/workspace", owner.idToken, { body: {} });
    const res = await callTool("svc.qr.create", { title: "t", destinationUrl: "https://example.com", status: "published" }, owner.idToken);
    assert.equal(res.body.error.code, -32602);
  });
});
