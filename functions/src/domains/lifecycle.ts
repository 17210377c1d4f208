// A domain's check: what its DNS records say (recordsVerdict, I/O through a DnsLookup), then what the
// domain becomes (decide, pure: given the verdict, the certificate answer, its host's claim and the time).
// docs/domains.md, "States".
import { parse } from "tldts";
import { DETACH_AFTER_DAYS, REMINDER_DAYS, type Domain, type HostClaim, type InvalidReason } from "../store/domains";
import type { CaaRecord, DnsLookup } from "./dns";
import { isProxyAddress } from "./proxies";
import { CERT_TIMEOUT_HOURS, type CertAnswer } from "./issuer";

export const TXT_PREFIX = "svc-verify=";
export const txtName = (hostname: string) => `_svc-verify.${hostname}`;
export const txtValue = (token: string) => `${TXT_PREFIX}${token}`;

/** Where the serving record must point (core/config.ts, domains). */
export interface ServingTarget {
  targetHost: string;
  apexAddresses: readonly string[];
}

export type RecordsVerdict =
  | { kind: "ok" }
  | { kind: "unanswered"; error: string }
  | { kind: "txt_missing" }
  | { kind: "serving_missing" }
  | { kind: Exclude<InvalidReason, "txt_missing" | "serving_missing" | "cert_timeout" | "cert_failed" | "host_taken">; seen: string };

/** What the records of `domain` say: the first thing wrong, in the order a person would fix them. */
export async function recordsVerdict(domain: Pick<Domain, "hostname" | "apex" | "token">, dns: DnsLookup, target: ServingTarget, caaDomains: readonly string[]): Promise<RecordsVerdict> {
  const txt = await dns.txt(txtName(domain.hostname));
  if (!txt.ok) return { kind: "unanswered", error: txt.error };
  const ours = txt.values.filter((v) => v.startsWith(TXT_PREFIX));
  if (!ours.includes(txtValue(domain.token))) return ours.length > 0 ? { kind: "txt_stale", seen: ours.join(", ") } : { kind: "txt_missing" };

  const serving = await servingVerdict(domain, dns, target);
  if (serving.kind !== "ok") return serving;

  const caa = await relevantCaa(domain.hostname, dns);
  if (!caa.ok) return { kind: "unanswered", error: caa.error };
  const issuers = caa.values.filter((r) => r.issue !== undefined).map((r) => (r.issue ?? "").split(";")[0].trim().toLowerCase());
  const missing = issuers.length > 0 ? caaDomains.filter((d) => !issuers.includes(d)) : [];
  if (missing.length > 0) return { kind: "caa_forbids", seen: missing.join(", ") };
  return { kind: "ok" };
}

async function servingVerdict(domain: Pick<Domain, "hostname" | "apex">, dns: DnsLookup, target: ServingTarget): Promise<RecordsVerdict> {
  if (!domain.apex) {
    const cname = await dns.cname(domain.hostname);
    if (!cname.ok) return { kind: "unanswered", error: cname.error };
    if (cname.values.length > 0) return cname.values.includes(target.targetHost) ? { kind: "ok" } : { kind: "points_elsewhere", seen: cname.values.join(", ") };
  }
  const [a, aaaa] = await Promise.all([dns.a(domain.hostname), dns.aaaa(domain.hostname)]);
  if (!a.ok) return { kind: "unanswered", error: a.error };
  if (!aaaa.ok) return { kind: "unanswered", error: aaaa.error };
  const addresses = [...a.values, ...aaaa.values];
  if (addresses.length === 0) return { kind: "serving_missing" };
  const proxied = addresses.filter(isProxyAddress);
  if (proxied.length > 0) return { kind: "proxied", seen: proxied.join(", ") };
  // Flattening (an apex's ALIAS, or a sub-domain's CNAME flattened by its DNS host) answers with our addresses.
  const allowed = new Set(target.apexAddresses.map((x) => x.toLowerCase()));
  return addresses.every((x) => allowed.has(x.toLowerCase())) ? { kind: "ok" } : { kind: "points_elsewhere", seen: addresses.join(", ") };
}

/**
 * The CAA set that governs a name (RFC 8659 section 3): the name's own, else its parent's, climbing to
 * the registrable domain, the first set that is not empty.
 */
async function relevantCaa(hostname: string, dns: DnsLookup): Promise<{ ok: true; values: CaaRecord[] } | { ok: false; error: string }> {
  const registrable = parse(hostname, { allowPrivateDomains: true }).domain ?? hostname;
  for (let name = hostname; ; name = name.slice(name.indexOf(".") + 1)) {
    const answer = await dns.caa(name);
    if (!answer.ok) return answer;
    if (answer.values.length > 0 || name === registrable || !name.includes(".")) return { ok: true, values: answer.values };
  }
}

const DAY_MS = 86_400_000;
/** Checks of a domain are an hour apart (the scheduled job runs hourly). */
export const CHECK_INTERVAL_MS = 3_600_000;

export interface CheckInput {
  verdict: RecordsVerdict;
  /** The issuer's answer when the records are right (undefined when it was not asked). */
  cert: CertAnswer | undefined;
  now: Date;
  target: ServingTarget;
  /** The owner's address for mail, when the owner has one and a mail may be due. */
  ownerEmail: string | null;
  consoleUrl: string;
}

export interface Decision {
  domain: Domain;
  claim: "take" | "release" | "keep";
  /** A mail to the owner, if one is due now. */
  mail: { subject: string; text: string } | null;
  /** What changed, for the audit event; null when the state did not. */
  change: Record<string, unknown> | null;
}

/** The sentence saying what is wrong or awaited, per verdict. */
export function problemSentence(domain: Pick<Domain, "hostname" | "apex" | "token">, reason: InvalidReason | "unanswered" | "pending" | "verifying", target: ServingTarget, seen = ""): string {
  const txt = `the TXT record ${txtName(domain.hostname)} with the value ${txtValue(domain.token)}`;
  const serving = domain.apex ? `A/AAAA records naming ${target.apexAddresses.join(" and ") || "the service's addresses"} (or an ALIAS to ${target.targetHost})` : `a CNAME record to ${target.targetHost}`;
  switch (reason) {
    case "pending":
      return `Waiting for ${txt}: create it at your DNS host; changes can take up to an hour to be seen.`;
    case "verifying":
      return `Ownership is proven; waiting for ${serving} at ${domain.hostname}.`;
    case "unanswered":
      return "The DNS servers did not answer this check; the domain is checked again within the hour.";
    case "txt_missing":
      return `${txt} is no longer found: put it back to keep the domain.`;
    case "txt_stale":
      return `${txtName(domain.hostname)} holds another token (${seen}), left from an earlier add: change its value to ${txtValue(domain.token)}.`;
    case "serving_missing":
      return `${domain.hostname} no longer has ${serving}: put it back to keep the domain.`;
    case "points_elsewhere":
      return `${domain.hostname} points elsewhere (${seen}): it needs ${serving}.`;
    case "proxied":
      return `${domain.hostname} answers with a proxy's addresses (${seen}): turn the DNS host's proxy off for this record (Cloudflare: "DNS only") so it is ${serving}.`;
    case "caa_forbids":
      return `A CAA record at ${domain.hostname} or above it does not allow ${seen} to issue certificates: add CAA "issue" records for ${seen}, or remove the CAA records.`;
    case "cert_failed":
      return `The certificate for ${domain.hostname} could not be issued; it is asked for again within a day.`;
    case "cert_timeout":
      return `No certificate was issued within ${CERT_TIMEOUT_HOURS} hours although the records are right: verify again, or contact support.`;
    case "host_taken":
      return `${domain.hostname} is already in use by another workspace.`;
  }
}

/** What a domain becomes after a check. Pure: the transaction (store/domains.ts) may call it more than once. */
export function decide(current: Domain, claim: HostClaim | null, input: CheckInput): Decision {
  const { verdict, now } = input;
  const d: Domain = { ...current, checkedAt: now, nextCheckAt: new Date(now.getTime() + CHECK_INTERVAL_MS) };
  const heldByOther = claim !== null && (claim.merchantId !== current.merchantId || claim.domainId !== current.domainId);
  if (verdict.kind === "unanswered") return { domain: { ...d, problem: problemSentence(d, "unanswered", input.target) }, claim: "keep", mail: null, change: null };

  const everVerified = current.verifiedAt !== null;
  let next: { state: Domain["state"]; reason: InvalidReason | null; problem: string | null };
  if (verdict.kind === "ok" && heldByOther) next = { state: "invalid", reason: "host_taken", problem: problemSentence(d, "host_taken", input.target) };
  else if (verdict.kind === "ok") {
    const cert: CertAnswer = input.cert ?? { state: "pending", problem: null, expiresAt: null };
    // The issuer could not be asked: as with DNS that does not answer, only the sentence changes.
    if (cert.state === "unavailable") return { domain: { ...d, problem: cert.problem }, claim: "keep", mail: null, change: null };
    if (cert.expiresAt) d.certExpiresAt = cert.expiresAt;
    d.verifiedAt ??= now;
    d.certRequestedAt ??= now;
    // An active domain whose certificate is being renewed (or failing to be) still serves the one it has until it expires.
    const renewing = current.state === "active" && cert.state !== "issued" && d.certExpiresAt !== null && d.certExpiresAt > now;
    if (cert.state === "issued" || renewing) {
      d.certIssuedAt ??= now;
      d.activatedAt ??= now;
      next = { state: "active", reason: null, problem: cert.state === "issued" ? null : cert.problem };
    } else if (cert.state === "failed") {
      next = { state: "invalid", reason: cert.reason, problem: cert.problem };
    } else if (now.getTime() - d.certRequestedAt.getTime() >= CERT_TIMEOUT_HOURS * 3_600_000) {
      next = { state: "invalid", reason: "cert_timeout", problem: problemSentence(d, "cert_timeout", input.target) };
    } else next = { state: "cert_pending", reason: null, problem: cert.problem ?? "The records are right; the certificate is being issued." };
    if (next.state === "active") {
      const recovered = { ...d, ...next, invalidSince: null, remindersSent: [], detachedAt: null, notice: null };
      const change = current.state === "active" ? null : { change: "active" };
      return certAlertDecision(current, recovered, renewing, input, change);
    }
  } else if (verdict.kind === "txt_missing" && !everVerified) next = { state: "pending", reason: null, problem: problemSentence(d, "pending", input.target) };
  else if (verdict.kind === "serving_missing" && !everVerified) next = { state: "verifying", reason: null, problem: problemSentence(d, "verifying", input.target) };
  else next = { state: "invalid", reason: verdict.kind, problem: problemSentence(d, verdict.kind, input.target, "seen" in verdict ? verdict.seen : "") };

  // A detached domain stays detached until it verifies again; then it starts over as a new run.
  if (current.state === "detached" && next.state !== "active" && next.state !== "cert_pending") {
    return { domain: { ...d, reason: next.reason ?? current.reason, problem: next.problem }, claim: "keep", mail: null, change: null };
  }
  if (next.state !== "invalid") {
    const recovered = { ...d, ...next, invalidSince: null, remindersSent: [], detachedAt: null, notice: null };
    return { domain: recovered, claim: verdict.kind === "ok" ? "take" : "keep", mail: null, change: current.state === next.state ? null : { change: next.state } };
  }
  return invalidDecision(current, { ...d, ...next }, input);
}

/** An invalid domain: told at once, at 14 and at 28 days (once it had been active), detached at 30. */
function invalidDecision(current: Domain, d: Domain, input: CheckInput): Decision {
  const { now } = input;
  d.invalidSince ??= now;
  const days = Math.floor((now.getTime() - d.invalidSince.getTime()) / DAY_MS);
  const changed = current.state !== "invalid" || current.reason !== d.reason;
  const change = changed ? { change: "invalid", reason: d.reason } : null;
  const detachOn = new Date(d.invalidSince.getTime() + DETACH_AFTER_DAYS * DAY_MS).toISOString().slice(0, 10);
  if (days >= DETACH_AFTER_DAYS) {
    d.state = "detached";
    d.detachedAt = now;
    const text = `${d.hostname} stopped verifying ${DETACH_AFTER_DAYS} days ago and has been detached: its codes keep working on the service's own host. Verify it again to bring them back. ${d.problem ?? ""}`.trim();
    d.notice = current.activatedAt ? { text, at: now } : d.notice;
    return { domain: d, claim: "release", mail: current.activatedAt ? mailOf(d, "detached", text, input) : null, change: { change: "detached", reason: d.reason } };
  }
  const due = REMINDER_DAYS.filter((r) => days >= r && !d.remindersSent.includes(r));
  if (!current.activatedAt || due.length === 0) return { domain: d, claim: "keep", mail: null, change };
  d.remindersSent = [...d.remindersSent, ...due];
  const text = `${d.hostname} stopped verifying on ${d.invalidSince.toISOString().slice(0, 10)}: ${d.problem ?? ""} Unless it verifies again it will be detached on ${detachOn}.`;
  d.notice = { text, at: now };
  return { domain: d, claim: "keep", mail: mailOf(d, "invalid", text, input), change };
}

/** Google renews a managed certificate about 30 days before it expires: one with fewer days left is not renewing. */
export const CERT_EXPIRY_ALERT_DAYS = 14;
/** While a certificate stays failing or near expiry, the owner is told again this often. */
export const CERT_ALERT_REPEAT_DAYS = 7;

/** True when an active domain's certificate, as last read, expires within the alert window. */
export const certNearExpiry = (expiresAt: Date | null, now: Date) => expiresAt !== null && expiresAt.getTime() - now.getTime() < CERT_EXPIRY_ALERT_DAYS * DAY_MS;

/**
 * An active domain: its owner is told (notice and mail, then every CERT_ALERT_REPEAT_DAYS while it lasts)
 * when its certificate is not renewing or is near expiry; the alert run ends once a certificate with time
 * left is read.
 */
function certAlertDecision(current: Domain, d: Domain, renewing: boolean, input: CheckInput, change: Decision["change"]): Decision {
  const { now } = input;
  if (!renewing && !certNearExpiry(d.certExpiresAt, now)) return { domain: { ...d, certAlertAt: null }, claim: "take", mail: null, change };
  const due = current.certAlertAt === null || now.getTime() - current.certAlertAt.getTime() >= CERT_ALERT_REPEAT_DAYS * DAY_MS;
  if (!due) return { domain: { ...d, notice: current.notice }, claim: "take", mail: null, change };
  const expires = d.certExpiresAt ? d.certExpiresAt.toISOString().slice(0, 10) : "soon";
  const why = renewing ? (d.problem ?? "its renewal has not succeeded yet.") : "Google has not renewed it yet; check that the domain's records still name the service.";
  const text = `The certificate for ${d.hostname} expires on ${expires} and has not been renewed. ${why} Once it expires, visitors to ${d.hostname} get a certificate warning.`;
  const domain = { ...d, certAlertAt: now, notice: { text, at: now } };
  return { domain, claim: "take", mail: mailOf(domain, "certificate", text, input), change };
}

function mailOf(d: Domain, kind: "invalid" | "detached" | "certificate", text: string, input: CheckInput): Decision["mail"] {
  if (!input.ownerEmail) return null;
  const subject = kind === "detached" ? `Domain ${d.hostname} detached` : kind === "certificate" ? `Certificate for ${d.hostname} not renewed` : `Domain ${d.hostname} stopped verifying`;
  return { subject, text: `${text}\nSee Domains in the console: ${input.consoleUrl}\n` };
}
