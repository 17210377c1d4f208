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
