import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterRotation, newSigningSecret, openSecret, sealSecret, signatureHeader, signingSecrets } from "../../functions/src/webhooks/secrets";
import { postToTarget, targetProblem, type TargetGuards } from "../../functions/src/webhooks/target";
import { covers } from "../../functions/src/webhooks/events";
import { deadlineWithinClaim, MIN_CLAIMED_ATTEMPT_MS } from "../../functions/src/webhooks/deliver";

const KEY = "test-sealing-key";

describe("webhook signing", () => {
  it("signs so that the standardwebhooks library verifies, and rejects a tampered body", () => {
    const secret = newSigningSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"type":"scan.created"}';
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(ts), "webhook-signature": signatureHeader([secret], "msg_1", ts, body) };
    assert.deepEqual(new Webhook(secret).verify(body, headers), { type: "scan.created" });
    assert.throws(() => new Webhook(secret).verify(body.replace("scan", "code"), headers));
    assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
  });

  it("signs with every secret in use during a rotation's overlap, and drops an expired one", () => {
    const now = new Date();
    const stored = [
      { sealed: "new", createdAt: now, expiresAt: null },
      { sealed: "old", createdAt: now, expiresAt: new Date(now.getTime() + 1000) },
      { sealed: "gone", createdAt: now, expiresAt: new Date(now.getTime() - 1) },
    ];
    assert.deepEqual(signingSecrets(stored, now).map((s) => s.sealed), ["new", "old"]);
    const [a, b] = [newSigningSecret(), newSigningSecret()];
    const ts = Math.floor(now.getTime() / 1000);
    const headers = { "webhook-id": "msg_2", "webhook-timestamp": String(ts), "webhook-signature": signatureHeader([a, b], "msg_2", ts, "{}") };
    for (const s of [a, b]) assert.deepEqual(new Webhook(s).verify("{}", headers), {});
  });

  it("keeps at most two live secrets however often an endpoint is rotated", () => {
    const t0 = new Date("2026-11-25T10:00:00Z");
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    let secrets = [{ sealed: "s0", createdAt: t0, expiresAt: null as Date | null }];
    for (let i = 1; i <= 10; i++) {
      const now = at(i);
      secrets = afterRotation(secrets, { sealed: `s${i}`, createdAt: now, expiresAt: null }, now, at(i + 60));
      const live = signingSecrets(secrets, now).map((s) => s.sealed);
      assert.deepEqual(live, [`s${i}`, `s${i - 1}`], `after rotation ${i}`);
    }
    // The replaced secret keeps signing only until the overlap ends.
    assert.deepEqual(signingSecrets(secrets, at(71)).map((s) => s.sealed), ["s10"]);
    assert.deepEqual(afterRotation([], { sealed: "only", createdAt: t0, expiresAt: null }, t0, at(60)).map((s) => s.sealed), ["only"]);
  });

  it("seals secrets so that only the same key and endpoint open them", () => {
    const secret = newSigningSecret();
    const sealed = sealSecret(secret, "m1/wh_a", KEY);
    assert.ok(!sealed.includes(secret.slice(6, 20)));
    assert.equal(openSecret(sealed, "m1/wh_a", KEY), secret);
    assert.throws(() => openSecret(sealed, "m1/wh_b", KEY));
    assert.throws(() => openSecret(sealed, "m1/wh_a", "another key"));
  });
});

describe("webhook targets", () => {
  it("outside the local stack accepts only https on port 443 at a public address", () => {
    assert.equal(targetProblem("https://hooks.example.com/in", false), null);
    assert.equal(targetProblem("http://hooks.example.com/in", false), "must use https");
    assert.equal(targetProblem("https://hooks.example.com:8443/in", false), "must use port 443");
    for (const url of ["https://127.0.0.1/x", "https://10.1.2.3/x", "https://169.254.169.254/latest", "https://[::1]/x", "https://[fd00::1]/x", "https://[::ffff:10.0.0.1]/x"]) {
      assert.match(targetProblem(url, false) ?? "", /private/, url);
    }
    assert.equal(targetProblem("https://user:pw@hooks.example.com/", false), "must not carry credentials");
    assert.equal(targetProblem("http://127.0.0.1:9000/hook", true), null, "the local stack's receiver");
    for (const url of ["https://hooks.example.com/in", "http://10.0.0.1/x"]) assert.match(targetProblem(url, true) ?? "", /local stack/, "nothing leaves loopback locally");
  });

  it("refuses at connection time a name that resolves to a private address (stubbed resolver, nothing sent)", async () => {
    let resolved = 0;
    for (const address of ["10.0.0.5", "127.0.0.1", "192.168.1.1", "::1", "fe80::1"]) {
      const guards: TargetGuards = { local: false, deadlineMs: 2000, resolve: async () => (resolved++, [{ address, family: address.includes(":") ? 6 : 4 }]) };
      const outcome = await postToTarget("https://hooks.example.com/in", {}, "{}", guards);
      assert.equal(outcome.ok, false, address);
      assert.equal(outcome.responseCode, null);
      assert.equal(outcome.detail, "could not connect");
    }
    assert.equal(resolved, 5);
    // One private answer among public ones is refused too (no picking the public one).
    const mixed: TargetGuards = { local: false, deadlineMs: 2000, resolve: async () => [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.1", family: 4 }] };
    assert.equal((await postToTarget("https://hooks.example.com/in", {}, "{}", mixed)).detail, "could not connect");
  });

  it("does not follow redirects, keeps at most 1 KB of the answer, and gives up after the deadline", async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      if (req.url === "/moved") res.writeHead(307, { Location: "/ok" }).end();
      else if (req.url === "/big") res.writeHead(200).end("x".repeat(10_000));
      else if (req.url === "/slow") setTimeout(() => res.writeHead(200).end(), 1500);
      else res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const local: TargetGuards = { local: true, deadlineMs: 500, resolve: async () => [] };
    try {
      const moved = await postToTarget(`${base}/moved`, {}, "{}", local);
      assert.deepEqual([moved.ok, moved.responseCode, hits], [false, 307, 1]);
      const big = await postToTarget(`${base}/big`, {}, "{}", local);
      assert.equal(big.ok, true);
      assert.equal(big.detail.length, 1024);
      const slow = await postToTarget(`${base}/slow`, {}, "{}", local);
      assert.deepEqual([slow.ok, slow.responseCode], [false, null]);
      assert.match(slow.detail, /no answer within 500 ms/);
    } finally {
      server.close();
    }
  });

  it("narrowing: codes or campaigns, either matches; none covers every code", () => {
    assert.equal(covers({ codeIds: null, campaigns: null }, { codeId: "a", campaign: null }), true);
    assert.equal(covers({ codeIds: ["a"], campaigns: null }, { codeId: "b", campaign: null }), false);
    assert.equal(covers({ codeIds: ["a"], campaigns: ["fall"] }, { codeId: "b", campaign: "fall" }), true);
    assert.equal(covers({ codeIds: null, campaigns: ["fall"] }, { codeId: "b", campaign: null }), false);
  });
});

describe("a failing endpoint's claimed attempt", () => {
  it("ends within its claim: its deadline shrinks by the time the claim took, and it is not sent with under a second left", () => {
    assert.equal(deadlineWithinClaim(5_000, 0), 5_000);
    assert.equal(deadlineWithinClaim(5_000, 3_200), 1_800, "a claim and limiter read that took 3.2 s leave 1.8 s");
    assert.equal(deadlineWithinClaim(5_000, 5_000 - MIN_CLAIMED_ATTEMPT_MS), MIN_CLAIMED_ATTEMPT_MS);
    assert.equal(deadlineWithinClaim(5_000, 4_001), null, "too little left: back to the queue, unsent");
    assert.equal(deadlineWithinClaim(5_000, -50), 5_000, "a clock step backwards never lengthens it");
  });
});

