import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { callTool, toolResult } from "../helpers/rpc";
import { adminCli as admin } from "../helpers/admin";

describe("admin CLI (against the emulators)", function () {
  this.timeout(60_000);

  it("creates a merchant, adds a member, mints, lists and revokes keys", async () => {
    const email = `ops-${randomUUID()}@example.com`;
    const created = await admin("create-merchant", "--email", email, "--name", "CLI Cafe");
    assert.equal(created.created, true);
    const merchantId = created.workspace.merchantId;
    const memberEmail = `member-${randomUUID()}@example.com`;
    const member = await admin("add-member", "--merchant", merchantId, "--email", memberEmail);
    assert.equal(member.role, "member");

    const minted = await admin("mint-key", "--merchant", merchantId, "--email", email, "--scopes", "merchant:read,qr:write");
    assert.match(minted.key, /^sk-svc-[0-9a-f]{64}$/);
    const profile = toolResult(await callTool("svc.merchant.get_profile", {}, minted.key));
    assert.equal(profile.name, "CLI Cafe");

    const listed = await admin("list-keys", "--merchant", merchantId);
    assert.equal(listed.length, 1);
    assert.equal(listed[0].prefix, minted.key.slice(0, 15));
    assert.ok(!JSON.stringify(listed).includes(minted.key), "list never prints the key");

    await admin("revoke-key", "--merchant", merchantId, "--key", minted.prefix);
    const res = await callTool("svc.ping", {}, minted.key);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.data.code, "REVOKED");
  });

  it("refuses to mint a key for someone outside the workspace", async () => {
    const a = await admin("create-merchant", "--email", `a-${randomUUID()}@example.com`);
    const outsiderEmail = `b-${randomUUID()}@example.com`;
    await admin("create-merchant", "--email", outsiderEmail);
    await assert.rejects(admin("mint-key", "--merchant", a.workspace.merchantId, "--email", outsiderEmail, "--scopes", "all"), /not a member/);
  });
});
