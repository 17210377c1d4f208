import assert from "node:assert/strict";
import { consoleApi, consoleAs } from "../helpers/consoleApi";
import { callTool, toolResult } from "../helpers/rpc";
import { firestore, signUp } from "../helpers/merchants";
import { addMember } from "../../functions/src/store/workspaces";
import { hashApiKey } from "../../functions/src/auth/apiKeys";

describe("console API: workspaces and keys", () => {
  it("creates one workspace per user, idempotently", async () => {
    const user = await signUp();
    const first = await consoleApi("/workspace", user.idToken, { body: { name: "Bean There" } });
    assert.equal(first.status, 201);
    assert.equal(first.body.workspace.name, "Bean There");
    const again = await consoleApi("/workspace", user.idToken, { body: {} });
    assert.equal(again.status, 200);
    assert.equal(again.body.workspace.merchantId, first.body.workspace.merchantId);
    const me = await consoleApi("/me", user.idToken);
    assert.equal(me.body.role, "owner");
    assert.equal(me.body.workspace.merchantId, first.body.workspace.merchantId);
  });

  it("mints a key shown once, stores only its hash and prefix, lists and revokes it", async () => {
    const user = await signUp();
    await consoleApi("/workspace", user.idToken, { body: {} });
    const minted = await consoleApi("/keys", user.idToken, { body: { name: "agent", scopes: ["merchant:read", "qr:write"] } });
    assert.equal(minted.status, 201);
    assert.match(minted.body.key, /^sk-svc-[0-9a-f]{64}$/);
    assert.equal(minted.body.prefix, minted.body.key.slice(0, 15));

    const stored = await firestore().collection("apiKeys").doc(hashApiKey(minted.body.key)).get();
    assert.ok(stored.exists, "document id is the SHA-256 of the key");
    assert.ok(!JSON.stringify(stored.data()).includes(minted.body.key.slice(15)), "plaintext never stored");

    const listed = await consoleApi("/keys", user.idToken);
    assert.equal(listed.body.keys.length, 1);
    const [key] = listed.body.keys;
    assert.deepEqual(key.scopes, ["merchant:read", "qr:write"]);
    assert.equal(key.prefix, minted.body.prefix);
    assert.equal(key.revokedAt, null);
    assert.ok(!("key" in key) && !JSON.stringify(listed.body).includes(hashApiKey(minted.body.key)), "list shows no secret or hash");

    toolResult(await callTool("svc.ping", {}, minted.body.key));
    const used = await consoleApi("/keys", user.idToken);
    assert.ok(used.body.keys[0].lastUsedAt, "last-used time recorded");

    const revoked = await consoleApi(`/keys/${key.keyId}/revoke`, user.idToken, { method: "POST" });
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revokedAt);
  });

  it("rejects bad key requests with field-level errors", async () => {
    const user = await signUp();
    await consoleApi("/workspace", user.idToken, { body: {} });
    const noScopes = await consoleApi("/keys", user.idToken, { body: { scopes: [] } });
    assert.equal(noScopes.status, 400);
    assert.equal(noScopes.body.code, "VALIDATION_FAILED");
    const badScope = await consoleApi("/keys", user.idToken, { body: { scopes: ["admin:all"] } });
    assert.equal(badScope.status, 400);
    assert.equal(badScope.body.details.issues[0].path, "scopes.0");
    const extra = await consoleApi("/keys", user.idToken, { body: { scopes: ["qr:write"], merchantId: "x" } });
    assert.equal(extra.status, 400);
  });

  it("refuses API keys, missing credentials, and other workspaces' keys", async () => {
    const a = await signUp();
    const b = await signUp();
    await consoleApi("/workspace", a.idToken, { body: {} });
    await consoleApi("/workspace", b.idToken, { body: {} });
    const minted = await consoleApi("/keys", a.idToken, { body: { scopes: ["qr:write"] } });

    assert.equal((await consoleApi("/keys", undefined)).body.code, "NO_AUTH");
    const withKey = await consoleApi("/keys", minted.body.key);
    assert.equal(withKey.status, 403, "a key cannot mint or list keys");

    const foreign = await consoleApi(`/keys/${minted.body.keyId}/revoke`, b.idToken, { method: "POST" });
    assert.equal(foreign.status, 404);
    const listB = await consoleApi("/keys", b.idToken);
    assert.equal(listB.body.keys.length, 0);
    toolResult(await callTool("svc.ping", {}, minted.body.key)); // still valid
  });

  it("lets a member mint and revoke their own keys but not the owner's", async () => {
    const owner = await signUp();
    const member = await signUp();
    const ws = await consoleApi("/workspace", owner.idToken, { body: {} });
    await addMember(ws.body.workspace.merchantId, member.uid);
    const ownerKey = await consoleApi("/keys", owner.idToken, { body: { scopes: ["qr:write"] } });
    const memberKey = await consoleApi("/keys", member.idToken, { body: { scopes: ["merchant:read"] } });
    assert.equal(memberKey.status, 201);
    const profile = toolResult(await callTool("svc.merchant.get_profile", {}, memberKey.body.key));
    assert.equal(profile.merchantId, ws.body.workspace.merchantId);
    assert.equal(profile.caller.role, "member");
    assert.equal((await consoleApi(`/keys/${ownerKey.body.keyId}/revoke`, member.idToken, { method: "POST" })).status, 403);
    assert.equal((await consoleApi(`/keys/${memberKey.body.keyId}/revoke`, member.idToken, { method: "POST" })).status, 200);
  });

  it("answers unknown console paths and wrong content types with JSON errors", async () => {
    const user = await signUp();
    assert.equal((await consoleApi("/nope", user.idToken)).status, 404);
    const res = await consoleApi("/workspace", user.idToken, { body: "{}", headers: { "Content-Type": "text/plain" } });
    assert.equal(res.status, 415);
    assert.equal(res.body.code, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("console API: publishing and workspace data", function () {
  this.timeout(60_000);

  it("publishes drafts (console only), lists codes and drafts, and re-points codes; never across workspaces", async () => {
    const owner = await signUp();
    await consoleApi("/workspace", owner.idToken, { body: {} });
    const code = toolResult(await callTool("svc.qr.create", { title: "door", destinationUrl: "https://example.com/a", dynamic: true }, owner.idToken));
    const menu = toolResult(await callTool("svc.menu.create", { name: "Brunch" }, owner.idToken));
    assert.equal(code.status, "draft");

    const codes = await consoleApi("/codes", owner.idToken);
    assert.deepEqual(codes.body.codes.map((c: any) => c.codeId), [code.codeId]);
    const published = await consoleApi("/publish", owner.idToken, { body: { kind: "codes", id: code.codeId } });
    assert.equal(published.status, 200);
    assert.equal(published.body.status, "published");
    const again = await consoleApi("/publish", owner.idToken, { body: { kind: "codes", id: code.codeId } });
    assert.equal(again.body.publishedAt, published.body.publishedAt, "publishing is idempotent");
    assert.equal(toolResult(await callTool("svc.qr.list", {}, owner.idToken)).codes[0].status, "published");
    assert.equal((await consoleApi("/publish", owner.idToken, { body: { kind: "menus", id: menu.menuId } })).body.status, "published");
    assert.equal((await consoleApi("/drafts/menus", owner.idToken)).body.items[0].status, "published");

    const repointed = await consoleApi(`/codes/${code.codeId}`, owner.idToken, { body: { destinationUrl: "https://example.com/b" } });
    assert.equal(repointed.body.destinationUrl, "https://example.com/b");
    assert.equal((await consoleApi(`/codes/${code.codeId}`, owner.idToken, { body: { destinationUrl: "ftp://x" } })).status, 400);
    const summary = await consoleApi("/analytics?days=7", owner.idToken);
    assert.equal(summary.body.byDay.length, 7);
    assert.equal((await consoleApi("/analytics?days=0", owner.idToken)).status, 400);

    const stranger = await signUp();
    await consoleApi("/workspace", stranger.idToken, { body: {} });
    assert.equal((await consoleApi("/publish", stranger.idToken, { body: { kind: "menus", id: menu.menuId } })).status, 404);
    assert.equal((await consoleApi(`/codes/${code.codeId}`, stranger.idToken, { body: { title: "x" } })).status, 404);
    assert.equal((await consoleApi("/codes", stranger.idToken)).body.codes.length, 0);
  });

  it("publishes by one rule on every path: a change of status sets updatedAt to that instant, a repeat writes nothing", async () => {
    const owner = await signUp();
    await consoleApi("/workspace", owner.idToken, { body: {} });
    const as = consoleAs(owner.idToken);
    const read = async (codeId: string) => (await as.get(`/codes/${codeId}`)).body;

    const code = toolResult(await callTool("svc.qr.create", { title: "door", destinationUrl: "https://example.com/a" }, owner.idToken));
    assert.equal(code.updatedAt, code.createdAt, "a new draft");
    const published = await as.post("/publish", { kind: "codes", id: code.codeId });
    assert.equal(published.status, 200);
    const afterPublish = await read(code.codeId);
    assert.equal(afterPublish.status, "published");
    assert.equal(afterPublish.updatedAt, published.body.publishedAt, "publishing moves updatedAt to publishedAt");
    assert.ok(afterPublish.updatedAt > code.createdAt);
    assert.equal((await as.post("/publish", { kind: "codes", id: code.codeId })).body.publishedAt, published.body.publishedAt);
    assert.equal((await read(code.codeId)).updatedAt, afterPublish.updatedAt, "publishing again writes nothing");

    assert.deepEqual((await as.post(`/codes/${code.codeId}/unpublish`)).body, { id: code.codeId, status: "draft" });
    const afterUnpublish = await read(code.codeId);
    assert.equal(afterUnpublish.status, "draft");
    assert.ok(afterUnpublish.updatedAt > afterPublish.updatedAt, "unpublishing moves updatedAt");
    await as.post(`/codes/${code.codeId}/unpublish`);
    assert.equal((await read(code.codeId)).updatedAt, afterUnpublish.updatedAt, "unpublishing again writes nothing");
    assert.equal((await consoleApi(`/codes/${code.codeId}/unpublish`, (await signUpWithWorkspace()).idToken, { method: "POST" })).status, 404, "never across workspaces");

    // Created and published in one step, by hand or from a spreadsheet: published at its creation.
    const made = await as.post("/codes", { title: "made here", destinationUrl: "https://example.com/b" });
    assert.equal(made.status, 201);
    for (const view of [made.body, await read(made.body.codeId)]) {
      assert.equal(view.status, "published");
      assert.equal(view.updatedAt, view.createdAt);
    }
    const imported = await as.post("/codes/import", { rows: [{ title: "row", destinationUrl: "https://example.com/c" }] }, { "Idempotency-Key": `publish-rule-${code.codeId}` });
    assert.equal(imported.status, 201, imported.text);
    const row = await read(imported.body.codes[0].codeId);
    assert.equal(row.status, "published");
    assert.equal(row.updatedAt, row.createdAt);

    // Drafts of the agents' kinds follow the same rule.
    const menu = toolResult(await callTool("svc.menu.create", { name: "Brunch" }, owner.idToken));
    const menuPublished = await as.post("/publish", { kind: "menus", id: menu.menuId });
    const [listed] = (await as.get("/drafts/menus")).body.items;
    assert.equal(listed.status, "published");
    assert.equal(listed.publishedAt, menuPublished.body.publishedAt);
    assert.equal(listed.updatedAt, menuPublished.body.publishedAt);
  });

  it("no tool can publish: tool arguments cannot set status", async () => {
    const owner = await signUp();
    await consoleApi("/workspace", owner.idToken, { body: {} });
    const res = await callTool("svc.qr.create", { title: "t", destinationUrl: "https://example.com", status: "published" }, owner.idToken);
    assert.equal(res.body.error.code, -32602);
  });
});

async function signUpWithWorkspace() {
  const user = await signUp();
  await consoleApi("/workspace", user.idToken, { body: {} });
  return user;
}
