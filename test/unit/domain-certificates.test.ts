// Production certificates for branded domains (functions/src/domains/issuerGoogle.ts; docs/deploy.md,
// "Certificates for branded domains"): the requests the issuer makes through the official client, with the
// client's own seam (its innerApiCalls, as the library's generated tests stub them) answering instead of
// the network; how every answer maps to a CertAnswer; and what the lifecycle makes of those answers,
// renewal and expiry alerts included, with an injected clock.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { CertificateManagerClient } from "@google-cloud/certificate-manager";
import { googleIssuer, readsThisHour, resourceNames, type CertificateManagerApi } from "../../functions/src/domains/issuerGoogle";
import { CERT_ALERT_REPEAT_DAYS, decide, type CheckInput } from "../../functions/src/domains/lifecycle";
import type { CertAnswer } from "../../functions/src/domains/issuer";
import type { Domain } from "../../functions/src/store/domains";
import { certificateCommands, ISSUER_ROLE } from "../../scripts/lib/certificates";

const HOST = "scan.brand.example";
const PROJECT = "shop-prod";
const names = resourceNames(HOST, PROJECT);
const DAY = 86_400_000;
const T0 = new Date("2026-11-29T10:00:00Z");

interface Call { method: string; request: Record<string, unknown> }
type Answer = unknown | { error: number };

/**
 * The real client, initialised with bogus credentials (no request leaves: every call is answered by the
 * stubs), its inner API calls replaced so each records the request the library passes down.
 */
async function stubbedClient(answers: Record<string, Answer[]>): Promise<{ client: CertificateManagerApi; calls: Call[] }> {
  const client = new CertificateManagerClient({ credentials: { client_email: "bogus@example.com", private_key: "bogus" }, projectId: PROJECT });
  await client.initialize();
  const calls: Call[] = [];
  const inner = (client as unknown as { innerApiCalls: Record<string, unknown> }).innerApiCalls;
  for (const method of Object.keys(inner)) {
    inner[method] = (request: Record<string, unknown>) => {
      calls.push({ method, request });
      const queue = answers[method];
      if (!queue?.length) return Promise.reject(Object.assign(new Error(`unexpected ${method}`), { code: 2 }));
      const answer = queue.shift();
      if (answer && typeof answer === "object" && "error" in answer) return Promise.reject(Object.assign(new Error(`status ${String(answer.error)}`), { code: answer.error }));
      return Promise.resolve([answer, undefined, undefined]);
    };
  }
  return { client: client as unknown as CertificateManagerApi, calls };
}

const operation = (done: Answer = {}) => ({ promise: () => (done && typeof done === "object" && "error" in done ? Promise.reject(Object.assign(new Error("op"), { code: done.error })) : Promise.resolve([done])) });
const ts = (d: Date) => ({ seconds: String(Math.floor(d.getTime() / 1000)), nanos: 0 });
const cert = (state: string, over: Record<string, unknown> = {}) => ({ name: names.certificate, managed: { domains: [HOST], state, authorizationAttemptInfo: [], ...over }, expireTime: ts(new Date(T0.getTime() + 80 * DAY)), updateTime: ts(T0) });

async function ask(answers: Record<string, Answer[]>, now = T0, context?: { active: boolean }) {
  const { client, calls } = await stubbedClient(answers);
  const issuer = googleIssuer({ project: PROJECT, client: () => Promise.resolve(client) });
  const answer = await issuer.request(HOST, now, context);
  return { answer, calls, issuer };
}

describe("Certificate Manager issuer: requests and answers", () => {
  it("a host with nothing yet: reads its certificate, then asks for a Google-managed one for that host alone (load balancer authorization), labelled", async () => {
    const { answer, calls } = await ask({ getCertificate: [{ error: 5 }], createCertificate: [operation()] });
    assert.deepEqual(calls.map((c) => c.method), ["getCertificate", "createCertificate"]);
    assert.deepEqual(calls[0].request, { name: `projects/${PROJECT}/locations/global/certificates/${names.id}` });
    assert.deepEqual(calls[1].request, {
      parent: `projects/${PROJECT}/locations/global`,
      certificateId: names.id,
      certificate: { description: HOST, labels: { svc: "branded-domain" }, managed: { domains: [HOST] } },
    });
    assert.match(names.id, /^dom-[0-9a-f]{40}$/, "a resource id Certificate Manager accepts, whatever the host's length");
    assert.equal(answer.state, "pending");
  });

  it("a certificate without its map entry: the entry is made on the service's map, naming the host and the certificate", async () => {
    const { answer, calls } = await ask({ getCertificate: [cert("PROVISIONING")], getCertificateMapEntry: [{ error: 5 }], createCertificateMapEntry: [operation()] });
    assert.deepEqual(calls.map((c) => c.method), ["getCertificate", "getCertificateMapEntry", "createCertificateMapEntry"]);
    assert.deepEqual(calls[1].request, { name: `projects/${PROJECT}/locations/global/certificateMaps/svc-domains/certificateMapEntries/${names.id}` });
    assert.deepEqual(calls[2].request, {
      parent: `projects/${PROJECT}/locations/global/certificateMaps/svc-domains`,
      certificateMapEntryId: names.id,
      certificateMapEntry: { hostname: HOST, certificates: [names.certificate], labels: { svc: "branded-domain" } },
    });
    assert.deepEqual(answer, { state: "pending", problem: `The certificate for ${HOST} is being issued.`, expiresAt: new Date(T0.getTime() + 80 * DAY) });
  });

  it("ACTIVE and served: issued, with its expiry; ACTIVE but its entry still PENDING: not yet", async () => {
    const issued = await ask({ getCertificate: [cert("ACTIVE")], getCertificateMapEntry: [{ name: names.entry, state: "ACTIVE" }] });
    assert.deepEqual(issued.answer, { state: "issued", expiresAt: new Date(T0.getTime() + 80 * DAY) });
    assert.equal(issued.calls.length, 2, "nothing is created when both exist");
    const numeric = await ask({ getCertificate: [cert(3 as unknown as string)], getCertificateMapEntry: [{ state: 1 }] });
    assert.equal(numeric.answer.state, "issued", "enum values as numbers read the same");
    const serving = await ask({ getCertificate: [cert("ACTIVE")], getCertificateMapEntry: [{ state: "PENDING" }] });
    assert.equal(serving.answer.state, "pending");
  });

  it("FAILED maps by its authorization failure: CAA to caa_forbids, CONFIG and other issues to cert_failed, each with a sentence and Google's details", async () => {
    const caa = await ask({ getCertificate: [cert("FAILED", { authorizationAttemptInfo: [{ domain: HOST, state: "FAILED", failureReason: "CAA", details: "CAA forbids" }] })], getCertificateMapEntry: [{ state: "ACTIVE" }] });
    assert.equal(caa.answer.state, "failed");
    assert.equal(caa.answer.state === "failed" && caa.answer.reason, "caa_forbids");
    assert.match(caa.answer.state === "failed" ? caa.answer.problem : "", /CAA record at scan\.brand\.example .*pki\.goog and letsencrypt\.org.*CAA forbids/);
    const config = await ask({ getCertificate: [cert("FAILED", { authorizationAttemptInfo: [{ domain: HOST, state: "FAILED", failureReason: "CONFIG" }] })], getCertificateMapEntry: [{ state: "ACTIVE" }] });
    assert.equal(config.answer.state === "failed" && config.answer.reason, "cert_failed");
    assert.match(config.answer.state === "failed" ? config.answer.problem : "", /could not reach the service at scan\.brand\.example/);
    const issue = await ask({ getCertificate: [cert("FAILED", { provisioningIssue: { reason: "AUTHORIZATION_ISSUE", details: "x" } })], getCertificateMapEntry: [{ state: "ACTIVE" }] });
    assert.equal(issue.answer.state === "failed" && issue.answer.reason, "cert_failed");
  });

  it("PROVISIONING after a rate limit: still pending, and the sentence says it is retried", async () => {
    const { answer } = await ask({ getCertificate: [cert("PROVISIONING", { authorizationAttemptInfo: [{ domain: HOST, state: "AUTHORIZING", failureReason: "RATE_LIMITED" }] })], getCertificateMapEntry: [{ state: "ACTIVE" }] });
    assert.equal(answer.state, "pending");
    assert.match(answer.state === "pending" ? (answer.problem ?? "") : "", /limiting new certificates for brand\.example.*retried automatically/);
  });

  it("a certificate FAILED a day ago is removed (its entry first), so the next check asks afresh", async () => {
    const old = { ...cert("FAILED", { authorizationAttemptInfo: [{ failureReason: "CONFIG" }] }), updateTime: ts(new Date(T0.getTime() - 25 * 3_600_000)) };
    const { calls } = await ask({ getCertificate: [old], getCertificateMapEntry: [{ state: "ACTIVE" }], deleteCertificateMapEntry: [operation()], deleteCertificate: [operation()] });
    assert.deepEqual(calls.map((c) => c.method), ["getCertificate", "getCertificateMapEntry", "deleteCertificateMapEntry", "deleteCertificate"]);
    assert.deepEqual(calls[2].request, { name: names.entry });
    assert.deepEqual(calls[3].request, { name: names.certificate });
    const recent = await ask({ getCertificate: [cert("FAILED", { authorizationAttemptInfo: [{ failureReason: "CONFIG" }] })], getCertificateMapEntry: [{ state: "ACTIVE" }] });
    assert.equal(recent.calls.length, 2, "a fresh failure is kept for a day (one retry a day at most)");
  });

  it("quota, permission and other API errors answer unavailable, with the sentence for each; a create that lost a race is pending", async () => {
    const quota = await ask({ getCertificate: [{ error: 8 }] });
    assert.deepEqual(quota.answer, { state: "unavailable", problem: "The service's certificate quota is used up for now; the operator has been alerted and the certificate is asked for again within the hour." });
    const denied = await ask({ getCertificate: [{ error: 5 }], createCertificate: [{ error: 7 }] });
    assert.match(denied.answer.state === "unavailable" ? denied.answer.problem : "", /not allowed to request certificates/);
    const down = await ask({ getCertificate: [{ error: 14 }] });
    assert.match(down.answer.state === "unavailable" ? down.answer.problem : "", /did not answer/);
    const raced = await ask({ getCertificate: [{ error: 5 }], createCertificate: [{ error: 6 }] });
    assert.equal(raced.answer.state, "pending");
  });

  it("an active domain is read once a day, in the hour its name picks; other hours make no call", async () => {
    const hour = [...Array(24).keys()].find((h) => readsThisHour(HOST, new Date(Date.UTC(2026, 10, 29, h))))!;
    assert.equal([...Array(24).keys()].filter((h) => readsThisHour(HOST, new Date(Date.UTC(2026, 10, 29, h)))).length, 1);
    const skipped = await ask({}, new Date(Date.UTC(2026, 10, 29, (hour + 1) % 24)), { active: true });
    assert.deepEqual([skipped.calls.length, skipped.answer], [0, { state: "issued", expiresAt: null }]);
    const read = await ask({ getCertificate: [cert("ACTIVE")], getCertificateMapEntry: [{ state: "ACTIVE" }] }, new Date(Date.UTC(2026, 10, 29, hour)), { active: true });
    assert.equal(read.calls.length, 2);
  });

  it("release deletes the entry, waits for it, then the certificate; what is already gone is fine", async () => {
    const { client, calls } = await stubbedClient({ deleteCertificateMapEntry: [{ error: 5 }], deleteCertificate: [{ error: 5 }] });
    await googleIssuer({ project: PROJECT, client: () => Promise.resolve(client) }).release(HOST);
    assert.deepEqual(calls.map((c) => `${c.method} ${String(c.request.name)}`), [`deleteCertificateMapEntry ${names.entry}`, `deleteCertificate ${names.certificate}`]);
    const { client: refusing } = await stubbedClient({ deleteCertificateMapEntry: [{ error: 7 }] });
    await assert.rejects(googleIssuer({ project: PROJECT, client: () => Promise.resolve(refusing) }).release(HOST), /status 7/, "a refusal is the caller's to log");
  });

  it("the client library is not loaded by the domain code until a certificate is asked for", () => {
    const script = "require('./functions/src/domains/service'); process.stdout.write(String(Object.keys(require.cache).some((k) => k.includes('certificate-manager'))))";
    assert.equal(execFileSync(process.execPath, ["--import", "tsx", "-e", script], { cwd: `${__dirname}/../..`, encoding: "utf8" }), "false");
  });
});

describe("certificate deploy commands (checked, never run)", () => {
  it("enable the API, make the one map the issuer writes to, let the functions' account issue; attach the map to a named proxy", () => {
    const account = "123-compute@developer.gserviceaccount.com";
    const lines = certificateCommands({ project: PROJECT, runtimeAccount: account }).map((c) => c.join(" "));
    assert.deepEqual(lines, [
      `gcloud services enable certificatemanager.googleapis.com --project=${PROJECT}`,
      `gcloud certificate-manager maps create svc-domains --location=global --labels=svc=branded-domain --description=Branded domains: one entry per active host --project=${PROJECT}`,
      `gcloud projects add-iam-policy-binding ${PROJECT} --member=serviceAccount:${account} --role=${ISSUER_ROLE} --condition=None`,
    ]);
    assert.ok(names.mapName.endsWith("/certificateMaps/svc-domains"), "the map the script makes is the one the issuer's entries go on");
    const withProxy = certificateCommands({ project: PROJECT, runtimeAccount: account, httpsProxy: "svc-https" }).map((c) => c.join(" "));
    assert.equal(withProxy.at(-1), `gcloud compute target-https-proxies update svc-https --certificate-map=svc-domains --global --project=${PROJECT}`);
  });
});

describe("certificates in the domain lifecycle (injected clock)", () => {
  const target = { targetHost: "domains.svc.test", apexAddresses: [] };
  const active: Domain = {
    domainId: "dom_aaaaaaaaaaaaaaaaaaaa",
    merchantId: "m1",
    hostname: HOST,
    apex: false,
    token: "t".repeat(32),
    state: "active",
    reason: null,
    problem: null,
    createdAt: new Date(T0.getTime() - 100 * DAY),
    createdBy: "u1",
    checkedAt: null,
    nextCheckAt: T0,
    verifiedAt: new Date(T0.getTime() - 100 * DAY),
    certRequestedAt: new Date(T0.getTime() - 100 * DAY),
    certIssuedAt: new Date(T0.getTime() - 99 * DAY),
    certExpiresAt: new Date(T0.getTime() + 60 * DAY),
    certAlertAt: null,
    activatedAt: new Date(T0.getTime() - 99 * DAY),
    invalidSince: null,
    remindersSent: [],
    detachedAt: null,
    notice: null,
  };
  const input = (cert: CertAnswer | undefined, now = T0): CheckInput => ({ verdict: { kind: "ok" }, cert, now, target, ownerEmail: "owner@example.com", consoleUrl: "https://app/console#settings" });
  const issued = (days: number, now = T0): CertAnswer => ({ state: "issued", expiresAt: new Date(now.getTime() + days * DAY) });

  it("a renewed certificate with time left: active, no alert, its expiry kept", () => {
    const d = decide(active, null, input(issued(80)));
    assert.deepEqual([d.domain.state, d.mail, d.domain.notice, d.domain.certAlertAt], ["active", null, null, null]);
    assert.deepEqual(d.domain.certExpiresAt, new Date(T0.getTime() + 80 * DAY));
    const unread = decide(active, null, input({ state: "issued", expiresAt: null }));
    assert.deepEqual(unread.domain.certExpiresAt, active.certExpiresAt, "an hour it is not read keeps the last expiry");
  });

  it("near expiry and not renewed: notice and mail at once, not again the next day, again a week later; over once renewed", () => {
    const first = decide(active, null, input(issued(10)));
    assert.equal(first.domain.state, "active");
    assert.match(first.mail?.subject ?? "", /Certificate for scan\.brand\.example not renewed/);
    assert.match(first.domain.notice?.text ?? "", /expires on 2026-12-09/);
    assert.deepEqual(first.domain.certAlertAt, T0);
    const nextDay = new Date(T0.getTime() + DAY);
    const quiet = decide(first.domain, null, input({ state: "issued", expiresAt: first.domain.certExpiresAt }, nextDay));
    assert.equal(quiet.mail, null);
    assert.deepEqual(quiet.domain.notice, first.domain.notice, "the notice stays while it lasts");
    const weekLater = new Date(T0.getTime() + CERT_ALERT_REPEAT_DAYS * DAY);
    const again = decide(quiet.domain, null, input({ state: "issued", expiresAt: first.domain.certExpiresAt }, weekLater));
    assert.ok(again.mail, "told again a week on");
    const renewed = decide(again.domain, null, input(issued(90, weekLater), weekLater));
    assert.deepEqual([renewed.mail, renewed.domain.notice, renewed.domain.certAlertAt], [null, null, null]);
  });

  it("an active domain whose renewal fails keeps serving until expiry, and its owner is told why; once expired it turns invalid", () => {
    const failing: CertAnswer = { state: "failed", reason: "caa_forbids", problem: "A CAA record forbids it.", expiresAt: new Date(T0.getTime() + 20 * DAY) };
    const d = decide(active, null, input(failing));
    assert.equal(d.domain.state, "active");
    assert.match(d.mail?.text ?? "", /A CAA record forbids it\./);
    const later = new Date(T0.getTime() + 21 * DAY);
    const expired = decide(d.domain, null, input({ ...failing, expiresAt: new Date(T0.getTime() + 20 * DAY) }, later));
    assert.deepEqual([expired.domain.state, expired.domain.reason], ["invalid", "caa_forbids"]);
    assert.match(expired.mail?.subject ?? "", /stopped verifying/, "the invalid domain's reminders take over");
  });

  it("a new domain: failed is invalid with the issuer's reason and sentence (no mail: never active); pending waits, then times out; unavailable changes only the sentence", () => {
    const fresh: Domain = { ...active, state: "verifying", certRequestedAt: null, certIssuedAt: null, certExpiresAt: null, activatedAt: null };
    const failed = decide(fresh, null, input({ state: "failed", reason: "cert_failed", problem: "Could not reach it.", expiresAt: null }));
    assert.deepEqual([failed.domain.state, failed.domain.reason, failed.domain.problem, failed.mail], ["invalid", "cert_failed", "Could not reach it.", null]);
    const pending = decide(fresh, null, input({ state: "pending", problem: "Being issued.", expiresAt: null }));
    assert.deepEqual([pending.domain.state, pending.domain.problem], ["cert_pending", "Being issued."]);
    const late = decide(pending.domain, null, input({ state: "pending", problem: null, expiresAt: null }, new Date(T0.getTime() + DAY)));
    assert.deepEqual([late.domain.state, late.domain.reason], ["invalid", "cert_timeout"]);
    const unavailable = decide(pending.domain, null, input({ state: "unavailable", problem: "Quota." }));
    assert.deepEqual([unavailable.domain.state, unavailable.domain.problem, unavailable.change], ["cert_pending", "Quota.", null]);
    const activeUnavailable = decide(active, null, input({ state: "unavailable", problem: "Quota." }));
    assert.equal(activeUnavailable.domain.state, "active", "an active domain is never demoted because the API could not be asked");
  });
});
