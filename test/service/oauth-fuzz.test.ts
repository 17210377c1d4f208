// Seeded fuzzing of the OAuth surfaces issue 20 changed, with real fixtures mixed into hostile input: a
// registered client and its exact redirect URI (so requests get past the client check), parked requests
// and their browser cookie, a spent code, a live grant's id. Besides no 5xx and every answer in its shape,
// the properties the changes promise: authorize never redirects anywhere but the consent page, only the
// starting browser's cookie decides a request, nothing a case sends revokes the sentinel grant, and an
// OAuth access token opens nothing but /api/mcp.
import assert from "node:assert/strict";
import { scaled } from "../helpers/scale";
import * as oauth from "oauth4webapi";
import { appUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { authorizeUrl, codeFor, exchange, REDIRECT_URI, session, startAuthorization, type Session } from "../helpers/oauth";
import { encodeComponent, hostileId, hostileUrl, pick, prng, randomValue, rawRequest, runCases, type Rand, type RawAnswer, type RawRequest } from "../helpers/fuzz";
import { rpc } from "../helpers/rpc";

const SEED = 20261123;

interface Fixtures {
  s: Session;
  clients: string[];
  /** Parked requests and the cookie of the browser that started each. */
  pending: Array<{ requestId: string; cookie: string }>;
  spentCode: string;
  verifier: string;
  grantId: string;
  accessToken: string;
}

type Expect = "authorize" | "oauth-json" | "decision" | "rest-401" | "mcp-401";
interface Case {
  request: RawRequest;
  expect: Expect;
  /** For decisions: whether the case carries the starting browser's cookie. */
  rightBrowser?: boolean;
}

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
/** What an HTTP client can put in a header value at all. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const headerSafe = (value: string) => value.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, "");

/** Bodies sent as JSON that the platform's strict parser refuses with its own bare 400, before our code. */
function platformRefusesBody(request: RawRequest): boolean {
  if (!String(request.headers?.["Content-Type"] ?? "").includes("json") || request.body === undefined) return false;
  const value = parse(String(request.body));
  return value === undefined || value === null || typeof value !== "object";
}

function hostileCookie(rand: Rand): string {
  return headerSafe(pick(rand, [
    `__session=${hostileId(rand)}`,
    `__session=${"A".repeat(43)}`,
    `__session=%zz; __session=${"b".repeat(43)}`,
    `${hostileId(rand)}=${hostileId(rand)}`,
    `__session=${encodeComponent(hostileUrl(rand))}`,
    Array.from({ length: 40 }, (_, i) => `__session=${String(i).padStart(43, "x")}`).join("; "),
    "",
  ]));
}

function authorizeCase(rand: Rand, f: Fixtures): Case {
  const real: Record<string, string> = Object.fromEntries(authorizeUrl(f.s, "c".repeat(43)).searchParams);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(real)) {
    if (k === "client_id" || k === "redirect_uri" ? rand() < 0.9 : rand() < 0.5) params.append(k, v);
    else if (rand() < 0.6) params.append(k, pick(rand, [hostileId(rand), hostileUrl(rand), "token", "plain", "S256", ""]));
    if (rand() < 0.05) params.append(k, v); // repeated
  }
  const headers = rand() < 0.3 ? { Cookie: hostileCookie(rand) } : undefined;
  return { request: { method: "GET", path: `/oauth/authorize?${params}`, headers, localAddress: pick(rand, f.clients) }, expect: "authorize" };
}

function decisionCase(rand: Rand, f: Fixtures): Case {
  const target = pick(rand, f.pending);
  const sendRight = rand() < 0.05;
  const method = pick(rand, ["GET", "POST", "POST"]);
  const body = method === "POST" ? JSON.stringify(rand() < 0.5 ? { approve: rand() < 0.5, scopes: rand() < 0.5 ? ["merchant:read"] : undefined } : randomValue(rand)) : undefined;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${f.s.merchant.idToken}`,
    Cookie: sendRight ? target.cookie : rand() < 0.5 ? pick(rand, f.pending).cookie : hostileCookie(rand),
    ...(body ? { "Content-Type": "application/json" } : {}),
  };
  const id = rand() < 0.9 ? target.requestId : encodeComponent(hostileId(rand));
  return { request: { method, path: `/oauth/requests/${id}`, headers, body, localAddress: pick(rand, f.clients) }, expect: "decision", rightBrowser: headers.Cookie === target.cookie && id === target.requestId };
}

function tokenCase(rand: Rand, f: Fixtures): Case {
  const clientId = rand() < 0.7 ? f.s.client.client_id : pick(rand, [hostileId(rand), hostileUrl(rand), "svc-client-" + "0".repeat(32)]);
  const grantToken = (kind: "at" | "rt") => `svc_${kind}_${rand() < 0.8 ? f.grantId : hostileId(rand)}.${pick(rand, ["A".repeat(43), hostileId(rand)])}`;
  const body =
    rand() < 0.5
      ? form({
          grant_type: "authorization_code",
          client_id: clientId,
          code: rand() < 0.7 ? f.spentCode : hostileId(rand),
          // The sentinel's own verifier only with a foreign client: a replay by its client would (rightly) revoke it.
          code_verifier: clientId !== f.s.client.client_id && rand() < 0.5 ? f.verifier : pick(rand, ["v".repeat(43), hostileId(rand)]),
          redirect_uri: rand() < 0.7 ? REDIRECT_URI : hostileUrl(rand),
        })
      : rand() < 0.7
        ? form({ grant_type: "refresh_token", client_id: clientId, refresh_token: grantToken("rt"), ...(rand() < 0.3 ? { scope: hostileId(rand) } : {}) })
        : form({ token: grantToken(rand() < 0.5 ? "at" : "rt"), client_id: clientId, ...(rand() < 0.3 ? { token_type_hint: hostileId(rand) } : {}) });
  const path = body.startsWith("token=") ? "/oauth/revoke" : "/oauth/token";
  const type = rand() < 0.9 ? "application/x-www-form-urlencoded" : pick(rand, ["application/json", "text/plain", ""]);
  return { request: { method: "POST", path, headers: { "Content-Type": type }, body, localAddress: pick(rand, f.clients) }, expect: "oauth-json" };
}

function audienceCase(rand: Rand, f: Fixtures): Case {
  const headers = { Authorization: `Bearer ${f.accessToken}`, "Content-Type": "application/json" };
  if (rand() < 0.5) {
    return { request: { method: "POST", path: "/api/bulk-qr-codes", headers, body: JSON.stringify({ codes: randomValue(rand) }) }, expect: "rest-401" };
  }
  // A token whose grant id is real but whose secret is not: refused at the tool server.
  const forged = headerSafe(`svc_at_${f.grantId}.${pick(rand, ["A".repeat(43), hostileId(rand)])}`);
  return { request: { method: "POST", path: "/api/mcp", headers: { ...headers, Authorization: `Bearer ${forged}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }, expect: "mcp-401" };
}

function check(c: Case, answer: RawAnswer): string | undefined {
  const where = `${c.request.method} ${c.request.path.slice(0, 80)}`;
  if (answer.status >= 500) return `${answer.status} ${where}: ${answer.text.slice(0, 120)}`;
  if ((answer.status === 431 || answer.status === 414) && answer.text === "") return undefined;
  const type = String(answer.headers["content-type"] ?? "");
  const body = parse(answer.text);
  if (answer.status === 400 && body === undefined && platformRefusesBody(c.request)) return undefined;
  // A dot segment or encoded slash in the id leaves /oauth/requests/: Hosting's own 404 page.
  if (answer.status === 404 && type.includes("text/html") && c.expect === "decision") return undefined;
  switch (c.expect) {
    case "authorize": {
      if (answer.status === 302) {
        const location = new URL(String(answer.headers.location), appUrl());
        return location.origin === new URL(appUrl()).origin && location.pathname === "/oauth/consent" ? undefined : `open redirect to ${location}`;
      }
      if (answer.headers.location) return `Location on a ${answer.status}`;
      return type.includes("text/html") ? undefined : `authorize ${answer.status} not HTML`;
    }
    case "decision":
      if (answer.status === 200 && c.request.method === "POST" && !c.rightBrowser) return `decided from another browser: ${where}`;
      if (!type.includes("json") || body === undefined) return `decision ${answer.status} not JSON`;
      return answer.status >= 400 && typeof body.error !== "string" ? `decision ${answer.status} without error code` : undefined;
    case "oauth-json":
      if (c.request.path === "/oauth/revoke" && answer.status === 200) return answer.text === "" ? undefined : "revoke answered with a body";
      if (answer.status === 200) return `token issued to a fuzz case: ${c.request.body}`;
      if (!type.includes("json") || typeof body?.error !== "string") return `token ${answer.status} not an OAuth error: ${answer.text.slice(0, 80)}`;
      return undefined;
    case "rest-401":
      return answer.status === 401 && body?.code === "INVALID_TOKEN" ? undefined : `bulk took an OAuth token: ${answer.status} ${answer.text.slice(0, 80)}`;
    case "mcp-401":
      return answer.status === 401 ? undefined : `tool server took a forged token: ${answer.status}`;
  }
}

describe("fuzz: the OAuth authorization server after issue 20", function () {
  this.timeout(600_000);
  let f: Fixtures;

  before(async () => {
    const s = await session();
    const { verifier, redirect } = await codeFor(s);
    const params = oauth.validateAuthResponse(s.as, s.client, redirect, "st-123");
    const tokens = await oauth.processAuthorizationCodeResponse(s.as, s.client, await exchange(s, params, verifier));
    const pending = [];
    for (let i = 0; i < 6; i++) {
      const { consentUrl, cookie } = await startAuthorization(newClient(), authorizeUrl(s, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())));
      pending.push({ requestId: consentUrl.searchParams.get("request")!, cookie });
    }
    f = {
      s,
      clients: Array.from({ length: 60 }, () => newClient().address),
      pending,
      spentCode: params.get("code")!,
      verifier,
      grantId: /^svc_at_(grant_[0-9a-f]{24})\./.exec(tokens.access_token)![1],
      accessToken: tokens.access_token,
    };
  });

  // 1,200 cases at full size (TEST_SCALE=1); scaled, each generator still makes at least 20.
  const plan: Array<[number, (r: Rand, f: Fixtures) => Case]> = (
    [
      [400, authorizeCase],
      [300, decisionCase],
      [400, tokenCase],
      [100, audienceCase],
    ] as Array<[number, (r: Rand, f: Fixtures) => Case]>
  ).map(([n, make]) => [scaled(n, 20), make]);
  const total = plan.reduce((sum, [n]) => sum + n, 0);
  it(`answers ${total.toLocaleString("en-US")} seeded cases with no 5xx, no redirect off the consent page, no foreign decision and no revocation`, async () => {
    const rand = prng(SEED);
    const cases = plan.flatMap(([n, make]) => Array.from({ length: n }, () => make(rand, f)));
    const order = cases.map((c, i) => ({ c, k: prng(SEED + i)() })).sort((a, b) => a.k - b.k).map((x) => x.c);
    const statuses = new Map<string, number>();
    const started = Date.now();
    // Six at a time: the functions emulator starts a worker process per concurrent request, and a dozen cold
    // starts at once on a busy two-core machine have outlasted Hosting's 60 s proxy timeout (504).
    const failures = await runCases(order, 6, async (c) => {
      const answer = await rawRequest(appUrl(), c.request);
      const key = `${c.expect} ${answer.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      return check(c, answer);
    });
    console.log(`      ${order.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s:`, Object.fromEntries([...statuses].sort()));
    assert.deepEqual(failures.slice(0, 20), []);
    assert.equal((await rpc("tools/list", {}, f.accessToken)).status, 200, "the sentinel grant survived every case");
  });
});
