// Issue 12's probes, each as a test that failed before the hardening: oversized batches, repeated app
// scans, ids that are paths, URLs over a QR code's capacity, malformed percent-encoding, cookie rules,
// security headers, rate limits, sessions and keys whose minter is gone.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appUrl, functionsUrl } from "../helpers/env";
import { callTool, postRaw, readAnswer, rpc, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, signUp, tokenSignedInAgo, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { decodePng, fetchPng } from "../helpers/qr";
import { eventually } from "../helpers/poll";
import { LOG } from "../helpers/logs";
import { addMember, removeMember } from "../../functions/src/store/workspaces";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { auth } from "../../functions/src/core/firebase";
import { RATE_LIMITS } from "../../functions/src/core/rateLimit";
import { nextWholeSecond, nextWindowStart, servedAt } from "../helpers/clock";

const json = { "Content-Type": "application/json" };
const origin = () => new URL(appUrl()).origin;

async function consoleFetch(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return readAnswer(await fetch(`${appUrl()}/api/console${path}`, init));
}

async function createDynamicCode(merchant: TestMerchant, destinationUrl = "https://example.com/menu") {
  return toolResult(await callTool("svc.qr.create", { title: "Door", destinationUrl, dynamic: true }, merchant.apiKey));
}

/** A session cookie for a user who just signed in, minted the way the console does. */
async function sessionCookie(idToken: string): Promise<string> {
  const res = await fetch(`${appUrl()}/api/console/session`, {
    method: "POST",
    headers: { ...json, Origin: origin() },
    body: JSON.stringify({ idToken }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const match = /__session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "");
  assert.ok(match, "a __session cookie is set");
  return match[1];
}

describe("hardening (issue 12 probes)", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;

  before(async () => {
    merchant = await createMerchant();
  });

  describe("limits", () => {
    it("refuses a JSON-RPC batch over 20 entries with 400/-32600 and runs none of it", async () => {
      const entry = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "svc.qr.create", arguments: { title: `b${id}`, destinationUrl: `https://example.com/${id}` } } });
      const before = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").count().get()).data().count;
      const res = await postRaw(JSON.stringify(Array.from({ length: 300 }, (_, i) => entry(i))), { ...json, Authorization: `Bearer ${merchant.apiKey}` });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, -32600);
      assert.match(res.body.error.message, /at most 20/);
      const after = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").count().get()).data().count;
      assert.equal(after, before, "no code was created");
      const ok = await postRaw(JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))), json);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.length, 20);
    });

    it("rate limits tools/call per key: 429, Retry-After, X-RateLimit-*, data.code RATE_LIMITED; other keys unaffected", async () => {
      const limited = await createMerchant();
      await writeRateLimitOverride(limited.merchantId, "toolCalls", 5);
      // The 7 calls served at one instant of a fresh one-minute window (the local stack's test clock), so a
      // loaded machine taking seconds over them cannot split them across two windows.
      const clock = servedAt(nextWindowStart(60_000));
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof callTool>> | undefined;
      for (let i = 0; i < 7; i++) {
        last = await callTool("svc.ping", {}, limited.apiKey, clock);
        statuses.push(last.status);
        if (last.status === 200) {
          assert.equal(last.headers.get("x-ratelimit-limit"), "5");
          assert.equal(last.headers.get("x-ratelimit-remaining"), String(4 - i));
        }
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      assert.equal(last!.body.error.data.code, "RATE_LIMITED");
      assert.equal(last!.body.error.code, -32000);
      const retryAfter = Number(last!.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(last!.headers.get("x-ratelimit-remaining"), "0");
      assert.ok(Number(last!.headers.get("x-ratelimit-reset")) > Date.now() / 1000);
      // tools/list is keyed too: it carries the standing without being counted.
      const list = await rpc("tools/list", {}, limited.apiKey, clock);
      assert.equal(list.status, 200);
      assert.equal(list.headers.get("x-ratelimit-remaining"), "0");
      // Another key of the same workspace has its own budget.
      const other = await mintKey(limited, ["merchant:read"]);
      assert.equal((await callTool("svc.ping", {}, other)).status, 200);
    });

    it("counts refused tool calls (an unknown tool, a refused scope) against tools/call, and writes few audit events for calls over the limit", async () => {
      const limited = await createMerchant();
      await writeRateLimitOverride(limited.merchantId, "toolCalls", 4);
      const readOnly = await mintKey(limited, ["merchant:read"]);
      const clock = servedAt(nextWindowStart(60_000));
      const codes: string[] = [];
      for (let i = 0; i < 6; i++) {
        const answer = i % 2 ? await callTool("svc.qr.create", { destinationUrl: "https://example.com/" }, readOnly, clock) : await callTool(`svc.no_such_tool_${i}`, {}, readOnly, clock);
        codes.push(answer.body.error?.data?.code ?? answer.body.result?.structuredContent?.code ?? JSON.stringify(answer.body).slice(0, 80));
      }
      assert.deepEqual(codes, ["UNKNOWN_TOOL", "INSUFFICIENT_SCOPE", "UNKNOWN_TOOL", "INSUFFICIENT_SCOPE", "RATE_LIMITED", "RATE_LIMITED"]);
      // A loop past the limit: its refusals are audited a few at a time, not one document each.
      for (let i = 0; i < 40; i++) await callTool("svc.no_such_tool", {}, readOnly, clock);
      const audited = await firestore().collection("auditEvents").where("merchantId", "==", limited.merchantId).where("status", "==", "RATE_LIMITED").count().get();
      assert.ok(audited.data().count <= 20, `${audited.data().count} audit events for 42 rate-limited calls`);
    });

    it("console reads count against the read limit before they read; changes against the write limit", async () => {
      const user = await createMerchant();
      const res = await consoleFetch("/keys", { headers: { Authorization: `Bearer ${user.idToken}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-ratelimit-limit"), String(RATE_LIMITS.consoleReads.max));
      assert.equal(res.headers.get("x-ratelimit-remaining"), String(RATE_LIMITS.consoleReads.max - 1), "a read is counted");
      const minted = await consoleFetch("/keys", { method: "POST", headers: { ...json, Authorization: `Bearer ${user.idToken}` }, body: JSON.stringify({ scopes: ["qr:write"] }) });
      assert.equal(minted.status, 201);
      assert.equal(minted.headers.get("x-ratelimit-remaining"), "119");
    });

    it("rate limits the bulk endpoint per key with the REST error shape", async () => {
      const limited = await createMerchant();
      await writeRateLimitOverride(limited.merchantId, "bulk", 1);
      // Both calls served in one window of the limit, however long they take.
      const at = nextWindowStart(RATE_LIMITS.bulk.windowSeconds * 1000);
      const call = () =>
        fetch(`${appUrl()}/api/bulk-qr-codes`, {
          method: "POST",
          headers: { ...json, ...servedAt(at), Authorization: `Bearer ${limited.apiKey}` },
          body: JSON.stringify({ urls: ["https://example.com/a"] }),
        });
      const first = await call();
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("x-ratelimit-limit"), "1");
      const second = await call();
      assert.equal(second.status, 429);
      assert.ok(Number(second.headers.get("retry-after")) >= 1);
      const body = (await second.json()) as any;
      assert.equal(body.code, "RATE_LIMITED");
      assert.equal(body.status, 429);
    });
  });

  describe("app scans", () => {
    it("counts one scan per user per code per 10 minutes, at the server's place; a body place is refused", async () => {
      const owner = await createMerchant();
      const code = await createDynamicCode(owner);
      const scanner = await signUp();
      const client = newClient();
      const post = (body: unknown) =>
        client.fetch(`${appUrl()}/api/scans`, { method: "POST", headers: { ...json, Authorization: `Bearer ${scanner.idToken}` }, body: JSON.stringify(body) });
      const injected = await post({ uniqueQRCodeID: code.uniqueQRCodeID, city: "Injected", state: "XX" });
      assert.equal(injected.status, 400);
      const answers = await Promise.all(Array.from({ length: 20 }, () => post({ uniqueQRCodeID: code.uniqueQRCodeID }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))));
      assert.equal(answers.filter((a) => a.body.counted === true).length, 1, JSON.stringify(answers.map((a) => a.status)));
      assert.equal(answers.filter((a) => a.body.counted === false).length, 19);
      const events = await firestore().collection("workspaces").doc(owner.merchantId).collection("scans").where("codeId", "==", code.codeId).get();
      assert.equal(events.size, 1);
      const place = await client.place();
      assert.equal(events.docs[0].get("city"), place.city);
      assert.notEqual(events.docs[0].get("city"), "Injected");
      // Another user's scan of the same code counts.
      const other = await signUp();
      const res = await client.fetch(`${appUrl()}/api/scans`, { method: "POST", headers: { ...json, Authorization: `Bearer ${other.idToken}` }, body: JSON.stringify({ uniqueQRCodeID: code.uniqueQRCodeID }) });
      assert.equal(((await res.json()) as any).counted, true);
    });
  });

  describe("ids", () => {
    for (const codeId of ["a/b", "../x", "__x__", ".", "x".repeat(200), "é", "%2F"]) {
      it(`svc.qr.update refuses codeId ${JSON.stringify(codeId.slice(0, 20))} with a named field error`, async () => {
        const res = await callTool("svc.qr.update", { codeId, title: "x" }, merchant.apiKey);
        assert.equal(res.status, 200);
        assert.equal(res.body.error.code, -32602);
        assert.equal(res.body.error.data.code, "VALIDATION_FAILED");
        assert.match(res.body.error.message, /codeId/);
      });
    }

    it("svc.menu.add_item refuses menuId m/n; analytics refuses a uniqueQRCodeID that is a path", async () => {
      const menu = await callTool("svc.menu.add_item", { menuId: "m/n", sectionName: "Mains", item: { name: "Soup", price: 4 } }, merchant.apiKey);
      assert.equal(menu.body.error.data.code, "VALIDATION_FAILED");
      assert.match(menu.body.error.message, /menuId/);
      const analytics = await callTool("svc.qr.get_analytics", { uniqueQRCodeID: "../../links/x" }, merchant.apiKey);
      assert.equal(analytics.body.error.data.code, "VALIDATION_FAILED");
    });

    it("console routes refuse path-like ids with 400 naming the field, and publish writes nothing outside its document", async () => {
      const user = merchant.idToken;
      const auth = { Authorization: `Bearer ${user}` };
      const update = await consoleFetch(`/codes/__x__`, { method: "POST", headers: { ...json, ...auth }, body: JSON.stringify({ title: "x" }) });
      assert.equal(update.status, 400);
      assert.match(update.body.message, /codeId/);
      // Hosting resolves the dot segment before routing: the request lands on no route, a JSON 404.
      const analytics = await consoleFetch(`/codes/..%2Fx/analytics`, { headers: auth });
      assert.ok(analytics.status === 400 || analytics.status === 404, String(analytics.status));
      const publish = await consoleFetch(`/publish`, { method: "POST", headers: { ...json, ...auth }, body: JSON.stringify({ kind: "codes", id: "x/scanDays/y" }) });
      assert.equal(publish.status, 400);
      assert.match(publish.body.message, /id/);
      const nested = await firestore().doc(`workspaces/${merchant.merchantId}/codes/x/scanDays/y`).get();
      assert.equal(nested.exists, false);
    });
  });

  describe("text and URLs", () => {
    const longUnicode = `https://example.com/${"é".repeat(1900)}`;

    it("the sandbox refuses a URL over the byte limit with a clear 400 (not a 500)", async () => {
      const client = newClient();
      const res = await client.fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: json, body: JSON.stringify({ url: longUnicode }) });
      assert.equal(res.status, 400);
      const body = (await res.json()) as any;
      assert.equal(body.code, "VALIDATION_FAILED");
      assert.match(body.message, /at most 2048 bytes/);
    });

    it("svc.qr.update of a static code with that URL fails and leaves record and image agreeing", async () => {
      const code = toolResult(await callTool("svc.qr.create", { title: "Static", destinationUrl: "https://example.com/old" }, merchant.apiKey));
      const res = await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: longUnicode }, merchant.apiKey);
      assert.equal(res.body.error.data.code, "VALIDATION_FAILED");
      const stored = await firestore().doc(`workspaces/${merchant.merchantId}/codes/${code.codeId}`).get();
      assert.equal(stored.get("destinationUrl"), "https://example.com/old");
      assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, "https://example.com/old");
    });

    it("stores URLs normalised and refuses control and zero-width characters", async () => {
      const code = toolResult(await callTool("svc.qr.create", { title: "Café", destinationUrl: "HTTPS://Example.COM/café menu" }, merchant.apiKey));
      assert.equal(code.destinationUrl, "https://example.com/caf%C3%A9%20menu");
      assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, "https://example.com/caf%C3%A9%20menu");
      for (const bad of ["https://exa\u200bmple.com/", "https://example.com/\u0007", "https://example.com/a\tb", "https://example.com/\u202Egnp.exe"]) {
        const res = await callTool("svc.qr.create", { title: "x", destinationUrl: bad }, merchant.apiKey);
        assert.equal(res.body.error?.data?.code, "VALIDATION_FAILED", JSON.stringify(bad));
      }
      const title = await callTool("svc.qr.create", { title: "Menu\u200b", destinationUrl: "https://example.com/" }, merchant.apiKey);
      assert.equal(title.body.error?.data?.code, "VALIDATION_FAILED");
    });
  });

  describe("malformed percent-encoding", () => {
    it("a malformed session cookie is an invalid credential (401), never a 500", async () => {
      for (const path of ["/api/mcp", "/api/console/me", "/api/bulk-qr-codes"]) {
        const res = await fetch(`${appUrl()}${path}`, {
          method: path === "/api/console/me" ? "GET" : "POST",
          headers: { ...json, Cookie: "__session=%E0%A4%A", Origin: origin() },
          body: path === "/api/console/me" ? undefined : JSON.stringify(path === "/api/mcp" ? { jsonrpc: "2.0", id: 1, method: "tools/list" } : { urls: ["https://example.com"] }),
        });
        assert.equal(res.status, 401, path);
      }
    });

    it("malformed percent-encoding in a path is a 400 or the not-found page, never a 500", async () => {
      const auth = { Authorization: `Bearer ${merchant.idToken}` };
      const console400 = await consoleFetch(`/codes/%E0%A4%A/analytics`, { headers: auth });
      assert.equal(console400.status, 400);
      // The function itself, reached at its URL without Hosting in front, answers 400 as well.
      const direct = await fetch(`${functionsUrl()}/consoleApi/api/console/codes/%E0%A4%A/analytics`, { headers: auth });
      assert.equal(direct.status, 400);
      const redirect = await fetch(`${appUrl()}/qr/%E0%A4%A`, { redirect: "manual" });
      assert.ok(redirect.status === 404 || redirect.status === 400, String(redirect.status));
      const pages = await fetch(`${appUrl()}/d/%E0%A4%A`);
      assert.ok(pages.status < 500, String(pages.status));
    });

    it("a request line that is no URL against the site (an authority with an impossible host) is a 400, and the site keeps answering", async () => {
      // The Hosting emulator parses it unguarded and would stop the whole stack; the front answers it.
      const res = await fetch(`${appUrl()}//3979441786891849275055265695/254/x?a=1`);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { code: string }).code, "INVALID_REQUEST");
      assert.equal((await fetch(`${appUrl()}/`)).status, 200);
    });
  });

  describe("browser-facing rules", () => {
    it("a session cookie with Content-Type text/plain, or without Origin, cannot call /api/mcp", async () => {
      const user = await createMerchant();
      const cookie = await sessionCookie(user.idToken);
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc.ping", arguments: {} } });
      const plain = await postRaw(body, { "Content-Type": "text/plain", Cookie: `__session=${cookie}`, Origin: origin() });
      assert.equal(plain.status, 415);
      const noOrigin = await postRaw(body, { ...json, Cookie: `__session=${cookie}` });
      assert.equal(noOrigin.status, 403);
      const good = await postRaw(body, { ...json, Cookie: `__session=${cookie}`, Origin: origin() });
      assert.equal(toolResult(good).authMethod, "session-cookie");
    });

    it("a foreign Origin or Host gets 403 on the tool server and the console API", async () => {
      const key = { Authorization: `Bearer ${merchant.apiKey}` };
      const evilOrigin = await rpc("tools/list", {}, merchant.apiKey, { Origin: "http://evil.example" });
      assert.equal(evilOrigin.status, 403);
      const consoleEvil = await consoleFetch("/me", { headers: { Authorization: `Bearer ${merchant.idToken}`, Origin: "http://evil.example" } });
      assert.equal(consoleEvil.status, 403);
      // Host is what a DNS-rebinding page cannot change: the function URL with a foreign Host.
      const direct = await fetch(`${functionsUrl()}/mcp/api/mcp`, {
        method: "POST",
        headers: { ...json, ...key, "X-Forwarded-Host": "evil.example" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(direct.status, 403);
    });

    it("pages and APIs send CSP with frame-ancestors, nosniff and a Referrer-Policy, and no X-Powered-By", async () => {
      for (const path of ["/console/", "/", "/docs/", "/phone-book", "/d/example.com", "/api/console/me", "/api/site.json", "/api/mcp", "/no-such-page"]) {
        const res = await fetch(`${appUrl()}${path}`);
        const csp = res.headers.get("content-security-policy") ?? "";
        if (path !== "/no-such-page") assert.match(csp, /frame-ancestors 'none'/, `${path}: ${csp}`);
        assert.equal(res.headers.get("x-frame-options"), "DENY", path);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
        assert.ok(res.headers.get("referrer-policy"), path);
        assert.equal(res.headers.get("x-powered-by"), null, path);
      }
    });
  });

  describe("sessions and keys", () => {
    it("mints a session only from a sign-in of the last 5 minutes", async () => {
      const user = await signUp();
      const stale = await fetch(`${appUrl()}/api/console/session`, {
        method: "POST",
        headers: { ...json, Origin: origin() },
        body: JSON.stringify({ idToken: await tokenSignedInAgo(user, 10 * 60) }),
      });
      assert.equal(stale.status, 401);
      assert.equal(stale.headers.get("set-cookie"), null);
      assert.match(((await stale.json()) as any).message, /sign-in from the last 5 minutes/);
      assert.ok(await sessionCookie(await tokenSignedInAgo(user, 4 * 60)), "a sign-in 4 minutes old is fresh enough");
    });

    it("signing out revokes the session cookie", async () => {
      const user = await createMerchant();
      const cookie = await sessionCookie(user.idToken);
      const headers = { Cookie: `__session=${cookie}`, Origin: origin() };
      assert.equal((await consoleFetch("/me", { headers })).status, 200);
      // Revocation is recorded in whole seconds and compared with the sign-in second: step past it.
      await nextWholeSecond();
      const out = await consoleFetch("/logout", { method: "POST", headers: { ...headers, ...json }, body: "{}" });
      assert.equal(out.status, 200);
      assert.equal((await consoleFetch("/me", { headers })).status, 401);
    });

    it("a key stops working when its minter leaves the workspace or is disabled", async () => {
      const owner = await createMerchant();
      const member = await signUp();
      await addMember(owner.merchantId, member.uid);
      const memberKey = await mintKey({ ...owner, uid: member.uid }, ["merchant:read"]);
      assert.equal((await callTool("svc.ping", {}, memberKey)).status, 200);
      await removeMember(owner.merchantId, member.uid);
      const left = await callTool("svc.ping", {}, memberKey);
      assert.equal(left.status, 403);
      assert.equal(left.body.error.data.code, "REVOKED");

      const disabledOwner = await createMerchant();
      await auth().updateUser(disabledOwner.uid, { disabled: true });
      const disabled = await callTool("svc.ping", {}, disabledOwner.apiKey);
      assert.equal(disabled.status, 403);
      assert.equal(disabled.body.error.data.code, "REVOKED");
      // The owner's other keys, minted by someone still present, are unaffected.
      assert.equal((await callTool("svc.ping", {}, owner.apiKey)).status, 200);
    });

    it("a failed authentication is logged by name, with the reason and never the credential", async () => {
      const bogus = `sk-svc-${randomUUID().replace(/-/g, "").repeat(2)}`;
      const res = await callTool("svc.ping", {}, bogus);
      assert.equal(res.status, 401);
      const { readFileSync } = await import("node:fs");
      const lines = await eventually(
        () => readFileSync(LOG(), "utf8").split("\n").filter((l) => l.includes("auth.failed") && l.includes("INVALID_API_KEY")),
        (found) => found.length > 0,
        { timeoutMs: 10_000, what: "an auth.failed line" },
      ).catch(() => [] as string[]);
      assert.ok(lines.length > 0, "an auth.failed event was logged");
      assert.ok(!lines.some((l) => l.includes(bogus.slice(7))), "the credential is not in the log");
    });
  });
});
