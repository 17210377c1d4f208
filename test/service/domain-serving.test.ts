// Merchants' own hosts served through the local front's load balancer path over HTTPS (docs/domains.md,
// "Serving"): TLS by SNI with certificates signed by the local CA once the local issuer issued, names
// resolved to 127.0.0.1 by the client itself (no DNS but the loopback server the checks ask), and every
// request for a merchant's host reaching the redirect function with its Host as sent.
import assert from "node:assert/strict";
import http from "node:http";
import { createHash, randomUUID } from "node:crypto";
import { appUrl, baseUrl, functionsDirectUrl } from "../helpers/env";
import { overHttps, PHONE, required, type Answer } from "../helpers/brandHost";
import { TestDns } from "../helpers/dns";
import { newClient } from "../helpers/clients";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { adminCli } from "../helpers/admin";
import { callTool, toolResult } from "../helpers/rpc";
import { countedAnalytics } from "../helpers/scans";
import { encodeComponent, hostileId, int, pick, prng, runCases } from "../helpers/fuzz";
import { scaled } from "../helpers/scale";
import { runDomainChecks } from "../../functions/src/domains/service";
import { setRootUrl } from "../../functions/src/store/hostServing";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";

const DAY = 86_400_000;

/** A request straight to the functions' own port (no front), with any headers at all. */
function direct(path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${functionsDirectUrl()}${path}`, { headers: { "User-Agent": PHONE, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function rest(m: TestMerchant, path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${m.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const createCode = async (m: TestMerchant, destinationUrl: string) => toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl, dynamic: true }, m.apiKey));
const analytics = (m: TestMerchant, codeId: string) => async () => toolResult(await callTool("svc.qr.get_analytics", { codeId, days: 1 }, m.apiKey));

describe("merchants' hosts over HTTPS through the load balancer path", function () {
  this.timeout(180_000);
  let dns: TestDns;
  let a: TestMerchant;
  let b: TestMerchant;
  let host: string;
  let domain: any;
  const defaultHost = () => required("TEST_DOMAINS_DEFAULT_HOST");
  const txtOf = (d: any) => d.records.find((r: any) => r.type === "TXT");
  const verify = (m: TestMerchant, id: string) => rest(m, `/api/domains/${id}/verify`, "POST", {}, { "X-Test-Dns": dns.address });

  before(async () => {
    dns = new TestDns();
    await dns.start();
    [a, b] = await Promise.all([createMerchant(undefined, "Corner Bakery"), createMerchant(undefined, "Other Shop")]);
    for (const m of [a, b]) await writeRateLimitOverride(m.merchantId, "bulk", 100_000);
    host = `scan.m${randomUUID().slice(0, 8)}.example.com`;
    const added = await rest(a, "/api/domains", "POST", { hostname: host });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    domain = added.body;
  });
  after(() => dns.close());

  it("goes pending -> active (DNS from the loopback server, certificate from the local issuer), and only then is served by SNI", async () => {
    const code = await createCode(a, "https://example.com/a-menu");
    assert.equal((await verify(a, domain.domainId)).body.state, "pending");
    // Not served yet: the front presents its own certificate, which does not name the host.
    await assert.rejects(overHttps(host, `/qr/${code.uniqueQRCodeID}`), (e: NodeJS.ErrnoException) => e.code === "ERR_TLS_CERT_ALTNAME_INVALID");
    const byDefaultName = await overHttps(defaultHost(), `/qr/${code.uniqueQRCodeID}`, { headers: { Host: host } });
    assert.equal(byDefaultName.status, 404);
    assert.match(byDefaultName.body, /Page not found/);

    dns.set(txtOf(domain).name, { TXT: [txtOf(domain).value] });
    dns.set(host, { CNAME: domain.records.find((r: any) => r.type === "CNAME").value });
    const active = await verify(a, domain.domainId);
    assert.equal(active.body.state, "active", JSON.stringify(active.body));

    const served = await overHttps(host, `/qr/${code.uniqueQRCodeID}`);
    assert.equal(served.status, 302, served.body);
    assert.equal(served.headers.location, "https://example.com/a-menu");
    assert.equal(served.headers["strict-transport-security"], "max-age=63072000");
    assert.equal(served.headers["x-content-type-options"], "nosniff");
    assert.equal(served.headers["x-frame-options"], "DENY");
    assert.equal(served.headers["referrer-policy"], "same-origin");
  });

  it("gives the same scans the same answers and counts on the merchant's host and the service's own, each client its own", async () => {
    const [onCustom, onDefault] = [await createCode(a, "https://example.com/same"), await createCode(a, "https://example.com/same")];
    // Four people, each scanning on both hosts: behind the load balancer each is still told apart by its own
    // address (the walk skips the load balancer's; were it taken for the client, the four would be one).
    for (const client of Array.from({ length: 4 }, newClient)) {
      const custom = await overHttps(host, `/qr/${onCustom.uniqueQRCodeID}`, { from: client.address });
      const own = await client.fetch(`${baseUrl()}/qr/${onDefault.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
      assert.equal(custom.status, own.status);
      for (const name of ["location", "x-scan-counted", "cache-control", "referrer-policy", "x-content-type-options", "x-frame-options"]) {
        assert.equal(custom.headers[name], own.headers.get(name) ?? undefined, name);
      }
    }
    const [x, y] = await Promise.all([countedAnalytics(analytics(a, onCustom.codeId), 4), countedAnalytics(analytics(a, onDefault.codeId), 4)]);
    for (const field of ["totalScans", "uniqueScanners", "repeatScans"]) assert.equal(x[field], y[field], field);
    assert.deepEqual([x.totalScans, x.uniqueScanners], [4, 4]);
  });

  it("counts people per host a code was opened on, for a plain code (the consumer) and a capped one (counted by its redirect), in the code's and the workspace's analytics", async () => {
    const plain = await createCode(a, "https://example.com/by-host");
    const capped = await createCode(a, "https://example.com/by-host-capped");
    toolResult(await callTool("svc.qr.set_rules", { codeId: capped.codeId, settings: { rules: [], humanScanCap: 50, fallbackUrl: "https://example.com/sold-out" } }, a.apiKey));
    const ownHost = new URL(plain.dynamicLink as string).host;
    for (const code of [plain, capped]) {
      // Two people on the brand's host; the first of them again on the service's own (counted there, not
      // unique: a person is unique once a day per code, on the host of their first scan), and a third there.
      const [first, second, third] = Array.from({ length: 3 }, newClient);
      for (const from of [first, second]) assert.equal((await overHttps(host, `/qr/${code.uniqueQRCodeID}`, { from: from.address })).status, 302);
      for (const client of [first, third]) assert.equal((await client.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } })).status, 302);
      const figures = await countedAnalytics(analytics(a, code.codeId), 4);
      // Most scans first, a tie by name.
      assert.deepEqual(figures.byHost, [
        { host: ownHost, scans: 2, uniqueScanners: 1 },
        { host, scans: 2, uniqueScanners: 2 },
      ].sort((x, y) => x.host.localeCompare(y.host)), code === plain ? "a plain code" : "a capped code");
    }
    // The workspace's summary adds them up per host, and field selection can ask for byHost alone.
    const summary = toolResult(await callTool("svc.analytics.scan_summary", { days: 1, fields: ["byHost"] }, a.apiKey));
    assert.ok("byHost" in summary && !("countries" in summary) && !("totalScans" in summary), Object.keys(summary).join());
    const per = new Map((summary.byHost as Array<{ host: string; scans: number }>).map((r) => [r.host, r.scans]));
    assert.ok(per.get(host)! >= 4 && per.get(ownHost)! >= 4, JSON.stringify(summary.byHost));
    assert.ok(summary.byHost.every((r: { host: string }) => r.host === host || r.host === ownHost), "no other workspace's host, nothing else");
  });

  it("answers another workspace's code on a merchant's host with the host's own 404, names nobody else and counts nothing", async () => {
    const theirs = await createCode(b, "https://example.com/b-secret");
    const crossed = await overHttps(host, `/qr/${theirs.uniqueQRCodeID}`);
    const unknown = await overHttps(host, "/qr/ZZZZZZZZZZZZ");
    assert.equal(crossed.status, 404);
    assert.equal(crossed.body, unknown.body, "the same page as an id that does not exist");
    assert.match(crossed.body, /not active/);
    assert.match(crossed.body, /<p class="brand">Corner Bakery<\/p>/, "the host's merchant");
    assert.doesNotMatch(crossed.body, /b-secret|Other Shop/);
    assert.equal(crossed.headers["x-scan-counted"], undefined);
    // Once the code's one scan on its own host is counted, it is the only one.
    const own = await newClient().fetch(`${baseUrl()}/qr/${theirs.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
    assert.equal(own.headers.get("location"), "https://example.com/b-secret");
    assert.equal((await countedAnalytics(analytics(b, theirs.codeId), 1)).totalScans, 1);
  });

  it("is reported and taken down by a code's address on the merchant's host; another workspace's code there names nothing, and an address the host does not answer is refused", async () => {
    const mine = await createCode(a, "https://example.com/a-reported");
    const theirs = await createCode(b, "https://example.com/b-other");
    const report = async (code: string) => {
      const res = await newClient().fetch(`${baseUrl()}/api/reports`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code, reason: "phishing" }) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const filed = await report(`https://${host.toUpperCase()}/qr/${mine.uniqueQRCodeID}?utm_source=poster`);
    assert.equal(filed.status, 202, JSON.stringify(filed.body));
    const stored = (await firestore().collection("abuseReports").doc(filed.body.reportId).get()).data()!;
    assert.deepEqual([stored.subject, stored.merchantId, stored.codeId, stored.destinationUrl], [mine.uniqueQRCodeID, a.merchantId, mine.codeId, "https://example.com/a-reported"]);
    // The host answers another workspace's code, and an unknown one, with its 404: neither is a code there.
    for (const id of [theirs.uniqueQRCodeID, "ZZZZZZZZZZZZ"]) assert.equal((await report(`https://${host}/qr/${id}`)).status, 404, id);
    // A port, plain http, or a host that serves nobody: no address of this service.
    for (const address of [`https://${host}:8443/qr/${mine.uniqueQRCodeID}`, `http://${host}/qr/${mine.uniqueQRCodeID}`, `https://nobody-${randomUUID().slice(0, 8)}.example/qr/${mine.uniqueQRCodeID}`]) {
      const refused = await report(address);
      assert.deepEqual([refused.status, refused.body.code, refused.body.details?.field], [400, "VALIDATION_FAILED", "code"], address);
    }
    // An operator takes it down by that address: the merchant's host answers the 410 page, and so does the service's.
    const cli = await adminCli("takedown", "--code", `https://${host}/qr/${mine.uniqueQRCodeID}`, "--reason", "Lure page");
    assert.equal(cli.subject, mine.uniqueQRCodeID);
    assert.equal((await overHttps(host, `/qr/${mine.uniqueQRCodeID}`)).status, 410);
    assert.equal((await newClient().fetch(`${baseUrl()}/qr/${mine.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } })).status, 410);
  });

  it("answers an unknown host with the platform's 404, and redirects / to the workspace's rootUrl or the neutral 404", async () => {
    const stranger = await overHttps(defaultHost(), "/qr/ZZZZZZZZZZZZ", { headers: { Host: `nobody${randomUUID().slice(0, 6)}.example.org` } });
    assert.equal(stranger.status, 404);
    assert.match(stranger.body, /Page not found/);
    assert.equal(stranger.headers["strict-transport-security"], undefined, "no HSTS for a name that is not ours");
    await assert.rejects(overHttps("nobody.example.org", "/"), (e: NodeJS.ErrnoException) => e.code === "ERR_TLS_CERT_ALTNAME_INVALID");

    const bare = await overHttps(host, "/");
    assert.equal(bare.status, 404);
    assert.match(bare.body, /not active/);
    assert.equal(bare.headers["strict-transport-security"], "max-age=63072000");
    await setRootUrl(a.merchantId, "https://brand.example.com/");
    const root = await overHttps(host, "/?utm=x");
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, "https://brand.example.com/");
    assert.equal((await overHttps(host, "/menu")).status, 404);
  });

  it("lets the owner set and clear rootUrl through REST, where / then redirects; refused URLs write nothing", async () => {
    const set = await rest(a, "/api/domains/root-url", "POST", { rootUrl: " https://Shop.Example.com/welcome?from=qr " });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, { rootUrl: "https://shop.example.com/welcome?from=qr" }, "stored in its normalised form");
    assert.equal((await rest(a, "/api/domains")).body.rootUrl, "https://shop.example.com/welcome?from=qr");
    const root = await overHttps(host, "/");
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, "https://shop.example.com/welcome?from=qr");

    for (const rootUrl of ["javascript:alert(1)", "ftp://files.example.com/", `https://example.com/${"a".repeat(2048)}`, "", "not a url", 42]) {
      const refused = await rest(a, "/api/domains/root-url", "POST", { rootUrl });
      assert.equal(refused.status, 400, `${String(rootUrl).slice(0, 40)}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.code, "VALIDATION_FAILED");
    }
    assert.equal((await rest(a, "/api/domains/root-url", "POST", { rootUrl: "https://example.com/", extra: 1 })).status, 400, "strict");
    assert.equal((await rest(a, "/api/domains")).body.rootUrl, "https://shop.example.com/welcome?from=qr", "no refusal wrote anything");
    assert.equal((await rest(b, "/api/domains")).body.rootUrl, null, "another workspace's is its own");

    assert.deepEqual((await rest(a, "/api/domains/root-url", "POST", { rootUrl: null })).body, { rootUrl: null });
    assert.equal((await rest(a, "/api/domains")).body.rootUrl, null);
    const cleared = await overHttps(host, "/");
    assert.equal(cleared.status, 404);
    assert.match(cleared.body, /not active/);
  });

  it("answers its pages in the merchant's name and page colours, set through REST: not found, an unknown code, a password", async () => {
    for (const [pageColours, what] of [
      [{ foreground: "#777777", background: "#888888" }, "colours that do not read together"],
      [{ foreground: "red", background: "#FFFFFF" }, "a colour not #RRGGBB"],
      [{ foreground: "#000000" }, "one colour"],
      [{ foreground: "#000000", background: "#FFFFFF", accent: "#FF0000" }, "an unknown field"],
    ] as const) {
      const refused = await rest(a, "/api/domains/page-colours", "POST", { pageColours });
      assert.deepEqual([refused.status, refused.body.code], [400, "VALIDATION_FAILED"], what);
    }
    assert.equal((await rest(a, "/api/domains")).body.pageColours, null, "no refusal wrote anything");
    const set = await rest(a, "/api/domains/page-colours", "POST", { pageColours: { foreground: "#1e3a8a", background: "#fef3c7" } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual((await rest(a, "/api/domains")).body.pageColours, { foreground: "#1E3A8A", background: "#FEF3C7" });

    /** The page is the merchant's, in its colours, and its CSP allows exactly its style block. */
    const branded = (answer: Answer, heading: RegExp) => {
      assert.equal(answer.status, 404);
      assert.match(answer.body, heading);
      assert.match(answer.body, /<title>Corner Bakery: /);
      assert.match(answer.body, /<p class="brand">Corner Bakery<\/p>/);
      assert.match(answer.body, /html\{background:#FEF3C7\}body\{color:#1E3A8A\}/);
      const style = /<style>([^<]*)<\/style>/.exec(answer.body)![1];
      assert.ok(String(answer.headers["content-security-policy"]).includes(`style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`));
    };
    branded(await overHttps(host, "/menu/today"), /<h1>Page not found<\/h1>/);
    branded(await overHttps(host, "/no-such-page-at-all"), /<h1>Page not found<\/h1>/); // a root word the resolver does not know
    branded(await overHttps(host, "/qr/ZZZZZZZZZZZZ"), /<h1>This QR code is not active<\/h1>/);
    // The service's own host names nobody on the same page.
    const plain = await newClient().fetch(`${baseUrl()}/qr/ZZZZZZZZZZZZ`, { headers: { "User-Agent": PHONE } });
    assert.doesNotMatch(await plain.text(), /Corner Bakery|class="brand"/);

    // A password-protected code's page carries the merchant's name and the code's colours, on its host and on the service's.
    const locked = toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl: "https://example.com/locked", dynamic: true, design: { foreground: "#14532D", background: "#F0FDF4" } }, a.apiKey));
    toolResult(await callTool("svc.qr.set_rules", { codeId: locked.codeId, settings: { rules: [{ when: {}, then: { type: "password" } }], password: "correct horse battery" } }, a.apiKey));
    const onOwnHost = await newClient().fetch(`${baseUrl()}/qr/${locked.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
    for (const page of [await overHttps(host, `/qr/${locked.uniqueQRCodeID}`), { status: onOwnHost.status, body: await onOwnHost.text() }]) {
      assert.equal(page.status, 200);
      assert.match(page.body, /<h1>Password needed<\/h1>/);
      assert.match(page.body, /<p class="brand">Corner Bakery<\/p>/);
      assert.match(page.body, /html\{background:#F0FDF4\}body\{color:#14532D\}/);
      assert.doesNotMatch(page.body, /example\.com\/locked/);
    }

    // Cleared: the plain style, still in the merchant's name.
    assert.deepEqual((await rest(a, "/api/domains/page-colours", "POST", { pageColours: null })).body, { pageColours: null });
    const cleared = await overHttps(host, "/menu/today");
    assert.match(cleared.body, /<p class="brand">Corner Bakery<\/p>/);
    assert.doesNotMatch(cleared.body, /html\{background/);
  });

  it("serves the merchant's app association files as 200 JSON with no redirect, and the platform 404 for a file not supplied", async () => {
    const apple = { applinks: { details: [{ appIDs: ["ABCDE12345.com.brand.shop"], components: [{ "/": "/qr/*" }] }] } };
    assert.equal((await overHttps(host, "/.well-known/assetlinks.json")).status, 404, "nothing supplied yet");
    const set = await rest(a, `/api/domains/${domain.domainId}/app-links`, "POST", { appleAppSiteAssociation: apple });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const file = await overHttps(host, "/.well-known/apple-app-site-association");
    assert.equal(file.status, 200, file.body);
    assert.equal(file.headers["content-type"], "application/json");
    assert.equal(file.headers.location, undefined);
    assert.deepEqual(JSON.parse(file.body), apple);
    assert.equal((await overHttps(host, "/.well-known/apple-app-site-association", { method: "HEAD" })).status, 200);
    assert.equal((await overHttps(host, "/.well-known/assetlinks.json")).status, 404, "the other file was not supplied");
    assert.equal((await overHttps(host, "/.well-known/apple-app-site-association/")).status, 404, "exact paths only");
  });

  it("a forged host header changes nothing: X-Forwarded-Host is never read, and Host names the workspace whose codes alone it answers", async () => {
    const theirs = await createCode(b, "https://example.com/b-forged");
    // Through the load balancer, a client-written X-Forwarded-Host naming the service's own host.
    const forged = await overHttps(host, `/qr/${theirs.uniqueQRCodeID}`, { headers: { "X-Forwarded-Host": new URL(baseUrl()).host, "X-Original-Host": new URL(baseUrl()).host } });
    assert.equal(forged.status, 404);
    assert.doesNotMatch(forged.body, /b-forged/);
    // Straight to the function: X-Forwarded-Host naming the merchant's host changes nothing...
    const plain = await direct(`/redirect/qr/${theirs.uniqueQRCodeID}`, { "X-Forwarded-Host": host });
    assert.equal(plain.status, 302);
    assert.equal(plain.headers.location, "https://example.com/b-forged");
    // ...and a forged Host gets that host's own answer, which holds only its workspace's codes.
    const asHost = await direct(`/redirect/qr/${theirs.uniqueQRCodeID}`, { Host: host });
    assert.equal(asHost.status, 404);
    assert.doesNotMatch(asHost.body, /b-forged/);
  });

  it("answers hostile hosts, paths and methods on the load balancer path with no 5xx, and HTML or nothing", async () => {
    const rand = prng(57);
    const hosts = [host, host.toUpperCase(), `${host}.`, `${host}:1`, defaultHost(), "127.0.0.1", "[::1]", "localhost", `x.${host}`, "a".repeat(300), "a..b", "-x.example", "_x.example", "", "xn--zz.example", `${host} ${host}`];
    const cases = Array.from({ length: scaled(400, 60) }, () => {
      const id = rand() < 0.3 ? "ZZZZZZZZZZZZ" : hostileId(rand);
      const word = hostileId(rand);
      const path = pick(rand, [
        `/qr/${encodeComponent(id)}`,
        "/",
        `/${encodeComponent(word)}`,
        `/qr/${encodeComponent(id)}/${int(rand, 9)}`,
        `/qr/ZZZZZZZZZZZZ?${encodeComponent(word)}`,
        "//qr//x",
        "/qr/",
        // The GS1 resolver's paths on the merchant's host: keys, qualifiers, queries, compressed-looking words.
        `/01/${encodeComponent(word)}`,
        `/01/09506000134352/10/${encodeComponent(word)}?linkType=${encodeComponent(hostileId(rand))}`,
        `/414/${encodeComponent(word)}/254/${int(rand, 99)}`,
        `/${"A".repeat(int(rand, 40))}${encodeComponent(word).replace(/[^A-Za-z0-9_-]/g, "")}`,
        "/.well-known/gs1resolver",
      ]);
      return { host: pick(rand, hosts), path, method: pick(rand, ["GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]), body: rand() < 0.3 ? `password=${encodeComponent(hostileId(rand))}` : undefined };
    });
    const failures = await runCases(cases, 8, async (c) => {
      const answer = await overHttps(defaultHost(), c.path, { headers: { Host: c.host, ...(c.body ? { "Content-Type": "application/x-www-form-urlencoded" } : {}) }, method: c.method, body: c.body, timeoutMs: 20_000 }).catch((error: Error) => error);
      if (answer instanceof Error) return `${c.method} ${JSON.stringify(c.host)} ${c.path}: ${answer.message}`;
      if (answer.status >= 500) return `${answer.status} ${c.method} ${c.host} ${c.path}: ${answer.body.slice(0, 120)}`;
      if (c.method === "HEAD" || answer.body === "") return undefined;
      return /text\/html|application\/(linkset\+)?json/.test(String(answer.headers["content-type"])) ? undefined : `${c.method} ${c.host} ${c.path}: ${answer.headers["content-type"]}`;
    });
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures`);
  });

  it("keeps serving while invalid, stops when detached (the host and its certificate), and serves again once verified", async () => {
    const code = await createCode(a, "https://example.com/lifecycle");
    const t0 = Date.now() + 2 * 3_600_000;
    dns.remove(txtOf(domain).name);
    await runDomainChecks({ now: new Date(t0), dnsServers: [dns.address] });
    assert.equal((await rest(a, `/api/domains/${domain.domainId}`)).body.state, "invalid");
    assert.equal((await overHttps(host, `/qr/${code.uniqueQRCodeID}`)).status, 302, "served in the days before it is detached");

    await runDomainChecks({ now: new Date(t0 + 30 * DAY), dnsServers: [dns.address] });
    assert.equal((await rest(a, `/api/domains/${domain.domainId}`)).body.state, "detached");
    await assert.rejects(overHttps(host, `/qr/${code.uniqueQRCodeID}`), (e: NodeJS.ErrnoException) => e.code === "ERR_TLS_CERT_ALTNAME_INVALID");
    const gone = await overHttps(defaultHost(), `/qr/${code.uniqueQRCodeID}`, { headers: { Host: host } });
    assert.equal(gone.status, 404);
    assert.match(gone.body, /Page not found/);
    const onOwnHost = await newClient().fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": PHONE } });
    assert.equal(onOwnHost.headers.get("location"), "https://example.com/lifecycle", "its codes keep working on the service's own host");

    dns.set(txtOf(domain).name, { TXT: [txtOf(domain).value] });
    assert.equal((await verify(a, domain.domainId)).body.state, "active");
    const back = await overHttps(host, `/qr/${code.uniqueQRCodeID}`);
    assert.equal(back.status, 302);
    assert.equal(back.headers.location, "https://example.com/lifecycle");
  });
});
