import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { callTool, toolResult } from "../helpers/rpc";
import { createServer } from "node:net";
import { adminCli as admin, runAdminCli } from "../helpers/admin";
import { signInWithPassword } from "../helpers/merchants";

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

  it("keys minted and revoked with the CLI write key.minted and key.revoked events (on stderr, not in --json output)", async () => {
    const email = `events-${randomUUID()}@example.com`;
    const merchantId = (await admin("create-merchant", "--email", email)).workspace.merchantId;
    const minted = await runAdminCli(["mint-key", "--merchant", merchantId, "--email", email, "--scopes", "all", "--json"]);
    assert.equal(minted.code, 0, minted.stderr);
    const { keyId, prefix } = JSON.parse(minted.stdout);
    const events = (text: string) => text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    const mintEvent = events(minted.stderr).find((e) => e.event === "key.minted");
    assert.deepEqual([mintEvent?.keyId, mintEvent?.prefix, mintEvent?.merchantId, mintEvent?.via], [keyId, prefix, merchantId, "cli"]);
    assert.ok(!minted.stderr.includes(JSON.parse(minted.stdout).key), "the event never carries the key");
    const revoked = await runAdminCli(["revoke-key", "--merchant", merchantId, "--key", keyId]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(events(revoked.stderr).find((e) => e.event === "key.revoked")?.keyId, keyId);
  });

  it("prints no warning noise on a Firestore command", async () => {
    const listed = await runAdminCli(["list-keys", "--merchant", `none-${randomUUID()}`]);
    assert.equal(listed.code, 0);
    assert.equal(listed.stdout.trim(), "no keys");
    assert.equal(listed.stderr.trim(), "", "nothing on stderr (MetadataLookupWarning and the like)");
  });

  it("--help exits 0 with the usage; a mistyped scope is one line naming the field; Auth errors say what they are", async () => {
    const help = await runAdminCli(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: npm run admin/);
    const email = `scopes-${randomUUID()}@example.com`;
    const merchantId = (await admin("create-merchant", "--email", email)).workspace.merchantId;
    const typo = await runAdminCli(["mint-key", "--merchant", merchantId, "--email", email, "--scopes", "qr:wirte"]);
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr.trim().split("\n").length, 1, typo.stderr);
    assert.match(typo.stderr, /^--scopes: "qr:wirte" is not a scope/);
    const badEmail = await runAdminCli(["mint-key", "--merchant", merchantId, "--email", "not an email", "--scopes", "all"]);
    assert.equal(badEmail.code, 1);
    assert.doesNotMatch(badEmail.stderr, /No user with email/);
    assert.match(badEmail.stderr, /Firebase Auth refused: .*\(auth\/invalid-email\)/);
  });

  it("sets a local password, so the owner it creates can sign in to the console", async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const created = await runAdminCli(["create-merchant", "--email", email, "--password", "owner-password-1"]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /console sign-in/);
    assert.ok(await signInWithPassword(email, "owner-password-1"), "signs in with the password");
    assert.equal((await runAdminCli(["set-password", "--email", email, "--password", "another-password"])).code, 0);
    assert.ok(await signInWithPassword(email, "another-password"));
    const remote = await runAdminCli(["create-merchant", "--email", email, "--password", "x-password", "--project", "prod-project"]);
    assert.equal(remote.code, 2);
    assert.match(remote.stderr, /--password: passwords are set only on the local emulators/);
  });
});

describe("admin CLI against stopped emulators", function () {
  this.timeout(30_000);

  it("says within 5 s that the emulators are not running, and how to start them", async () => {
    // A port that was just free: nothing listens there, like a stack that is not running.
    const server = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r));
    const env = { ...process.env, FIRESTORE_EMULATOR_HOST: `127.0.0.1:${port}`, FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${port}` };
    for (const args of [["list-keys", "--merchant", "m"], ["create-merchant", "--email", "a@example.com"]]) {
      const result = await runAdminCli(args, env);
      assert.equal(result.code, 1);
      assert.ok(result.ms < 5000, `answered in ${result.ms} ms`);
      assert.match(result.stderr, /emulator is not running .*`npm start`/);
      assert.doesNotMatch(result.stderr, /UNAVAILABLE|14 /);
    }
  });
});
