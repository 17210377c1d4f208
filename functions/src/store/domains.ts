// Branded domains (docs/data-model.md, "Branded domains"; docs/domains.md).
//   workspaces/{m}/domains/{domainId}   one domain of a workspace: host name, token, state, reminders sent
//   domainHosts/{hostname}              the claim: which workspace's domain holds the host, from its first
//                                       verification until it is detached or deleted (one read answers
//                                       "is this host taken?", and later "whose host is this?" for serving)
// A workspace holds at most MAX_DOMAINS: adding reads them all (at most that many) in its transaction.
import { Timestamp, type DocumentData, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { addAuditEvent } from "./audit";
import { COLLECTIONS } from "./collections";
import { queueMail, type MailMessage } from "./listings";
import { dateOf, dateOrNull, listOf, recordConverter } from "./records";

export const DOMAIN_STATES = ["pending", "verifying", "cert_pending", "active", "invalid", "detached"] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

/** Why a domain is invalid (or, detached, why it was). */
export const INVALID_REASONS = ["txt_missing", "txt_stale", "serving_missing", "points_elsewhere", "proxied", "caa_forbids", "cert_timeout", "cert_failed", "host_taken"] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

/** Days after turning invalid at which the owner is told again; at DETACH_AFTER_DAYS the domain is detached. */
export const REMINDER_DAYS = [0, 14, 28] as const;
export const DETACH_AFTER_DAYS = 30;

export interface Domain {
  domainId: string;
  merchantId: string;
  /** Punycode ASCII, lower-case, no trailing dot. */
  hostname: string;
  apex: boolean;
  /** The ownership token `_svc-verify.<hostname>` must hold: new with every add. */
  token: string;
  state: DomainState;
  reason: InvalidReason | null;
  /** What is wrong or awaited, as a sentence; null when nothing is. */
  problem: string | null;
  createdAt: Date;
  createdBy: string;
  checkedAt: Date | null;
  /** The hourly job checks the domain once this has passed. */
  nextCheckAt: Date;
  /** When its records were first all right (ownership proven). */
  verifiedAt: Date | null;
  certRequestedAt: Date | null;
  certIssuedAt: Date | null;
  /** When its certificate expires, as the issuer last read it (null: not read yet). */
  certExpiresAt: Date | null;
  /** When the owner was last told its certificate is failing to renew or near expiry (null: not in such a run). */
  certAlertAt: Date | null;
  /** When it first became active: only such a domain's owner is mailed when it stops verifying. */
  activatedAt: Date | null;
  invalidSince: Date | null;
  /** Which of REMINDER_DAYS the owner has been told at, in this run of being invalid. */
  remindersSent: number[];
  detachedAt: Date | null;
  /** The console's notice for the owner (a sentence) and when it was given; null when there is none. */
  notice: { text: string; at: Date } | null;
}

const domainRecord = (merchantId: string) =>
  recordConverter<Domain>((d, id) => ({
    domainId: id,
    merchantId,
    hostname: d.hostname,
    apex: d.apex === true,
    token: d.token,
    state: d.state,
    reason: (d.reason as InvalidReason | undefined) ?? null,
    problem: typeof d.problem === "string" ? d.problem : null,
    createdAt: dateOf(d.createdAt),
    createdBy: d.createdBy,
    checkedAt: dateOrNull(d.checkedAt),
    nextCheckAt: dateOf(d.nextCheckAt),
    verifiedAt: dateOrNull(d.verifiedAt),
    certRequestedAt: dateOrNull(d.certRequestedAt),
    certIssuedAt: dateOrNull(d.certIssuedAt),
    certExpiresAt: dateOrNull(d.certExpiresAt),
    certAlertAt: dateOrNull(d.certAlertAt),
    activatedAt: dateOrNull(d.activatedAt),
    invalidSince: dateOrNull(d.invalidSince),
    remindersSent: listOf<number>(d.remindersSent),
    detachedAt: dateOrNull(d.detachedAt),
    notice: d.notice ? { text: (d.notice as DocumentData).text, at: dateOf((d.notice as DocumentData).at) } : null,
  }));

const ts = (d: Date | null) => (d ? Timestamp.fromDate(d) : null);

/** The stored form of every field but the id and workspace (the document's path holds those). */
function domainData(d: Domain): DocumentData {
  return {
    hostname: d.hostname,
    apex: d.apex,
    token: d.token,
    state: d.state,
    reason: d.reason,
    problem: d.problem,
    createdAt: Timestamp.fromDate(d.createdAt),
    createdBy: d.createdBy,
    checkedAt: ts(d.checkedAt),
    nextCheckAt: Timestamp.fromDate(d.nextCheckAt),
    verifiedAt: ts(d.verifiedAt),
    certRequestedAt: ts(d.certRequestedAt),
    certIssuedAt: ts(d.certIssuedAt),
    certExpiresAt: ts(d.certExpiresAt),
    certAlertAt: ts(d.certAlertAt),
    activatedAt: ts(d.activatedAt),
    invalidSince: ts(d.invalidSince),
    remindersSent: d.remindersSent,
    detachedAt: ts(d.detachedAt),
    notice: d.notice ? { text: d.notice.text, at: Timestamp.fromDate(d.notice.at) } : null,
  };
}

const domainsOf = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("domains");
const domainRecords = (merchantId: string) => domainsOf(merchantId).withConverter(domainRecord(merchantId));
const claimOf = (hostname: string) => db().collection(COLLECTIONS.domainHosts).doc(hostname);

export const newDomainId = (merchantId: string) => `dom_${domainsOf(merchantId).doc().id}`;

/** Who changed a domain, for its audit event (docs/data-model.md, auditEvents). */
export interface DomainAudit {
  uid: string;
  authMethod: string;
  keyPrefix: string | null;
  tool: string;
}

function audit(tx: Transaction, merchantId: string, who: DomainAudit, details: Record<string, unknown>): void {
  addAuditEvent(tx, { merchantId, uid: who.uid, authMethod: who.authMethod, keyPrefix: who.keyPrefix, tool: who.tool, status: "ok", durationMs: 0, details });
}

/**
 * Saves a new domain, refused (nothing written) when the workspace already has it or `max` domains, or
 * another workspace's domain holds its host. The workspace's domains (at most `max`) and the host's
 * claim are read in the transaction, so two adds racing cannot pass the cap or add one host twice.
 */
export async function saveNewDomain(domain: Domain, max: number, who: DomainAudit): Promise<void> {
  await db().runTransaction(async (tx) => {
    const [existing, claim] = await Promise.all([tx.get(domainsOf(domain.merchantId).select("hostname").limit(max + 1)), tx.get(claimOf(domain.hostname))]);
    if (existing.docs.some((d) => d.get("hostname") === domain.hostname)) {
      throw new AppError("CONFLICT", `${domain.hostname} is already a domain of this workspace`, { hint: "Verify it (POST /api/domains/{id}/verify), or delete it and add it again for a new token." });
    }
    if (claim.exists && claim.get("merchantId") !== domain.merchantId) {
      throw new AppError("CONFLICT", `${domain.hostname} is in use by another workspace`, { hint: "A host belongs to one workspace at a time. If it is yours, ask the other workspace to delete it, or contact support." });
    }
    if (existing.size >= max) {
      throw new AppError("CONFLICT", `A workspace holds at most ${max} domains`, { hint: "Delete one you no longer use first.", details: { max } });
    }
    tx.create(domainsOf(domain.merchantId).doc(domain.domainId), domainData(domain));
    audit(tx, domain.merchantId, who, { domainId: domain.domainId, hostname: domain.hostname, change: "added" });
  }, { maxAttempts: 30 });
}

export async function readDomain(merchantId: string, domainId: string): Promise<Domain | undefined> {
  return (await domainRecords(merchantId).doc(domainId).get()).data();
}

/** A workspace's domains, oldest first (at most the cap, so no pages; the limit only bounds the read). */
export async function listDomains(merchantId: string, max: number): Promise<Domain[]> {
  return (await domainRecords(merchantId).orderBy("createdAt").limit(max).get()).docs.map((d) => d.data());
}

/** Deletes a domain and releases its host's claim if it holds it; false when there was no such domain. */
export async function deleteDomain(merchantId: string, domainId: string, who: DomainAudit): Promise<Domain | undefined> {
  const ref = domainRecords(merchantId).doc(domainId);
  return db().runTransaction(async (tx) => {
    const domain = (await tx.get(ref)).data();
    if (!domain) return undefined;
    const claim = await tx.get(claimOf(domain.hostname));
    tx.delete(ref);
    tx.delete(domainsOf(merchantId).doc(domainId).collection("wellKnown").doc("files")); // its app association files (store/appLinks.ts)
    if (claim.exists && claim.get("domainId") === domainId) tx.delete(claim.ref);
    audit(tx, merchantId, who, { domainId, hostname: domain.hostname, change: "deleted" });
    return domain;
  });
}

/**
 * Whether a domain's host is served (docs/domains.md, "Serving"): active, or invalid after it had been
 * active, for the days before it is detached (its owner is fixing it; printed codes keep working).
 * Kept on the host's claim as `serving`, so serving a host reads one document.
 */
export const servesHost = (d: Pick<Domain, "state" | "activatedAt">): boolean => d.state === "active" || (d.state === "invalid" && d.activatedAt !== null);

/** Whose domain holds a host, if any. */
export interface HostClaim {
  merchantId: string;
  domainId: string;
}

/** What a check decided, given the domain and its host's claim as the transaction read them. */
export interface CheckDecision {
  domain: Domain;
  claim: "take" | "release" | "keep";
  mail: MailMessage | null;
  /** Written as an audit event when the state changed (the change and its reason). */
  audit: Record<string, unknown> | null;
}

/**
 * Applies a check's outcome: the domain and its claim are read in one transaction, `decide` (pure)
 * says what they become, and the domain, the claim, the mail and the audit event are written together,
 * so a reminder is queued once however often checks race. Undefined when the domain is gone.
 */
export async function applyDomainCheck(merchantId: string, domainId: string, who: DomainAudit, decide: (current: Domain, claim: HostClaim | null) => CheckDecision): Promise<Domain | undefined> {
  const ref = domainRecords(merchantId).doc(domainId);
  return db().runTransaction(async (tx) => {
    const current = (await tx.get(ref)).data();
    if (!current) return undefined;
    const claimSnap = await tx.get(claimOf(current.hostname));
    const claim = claimSnap.exists ? { merchantId: claimSnap.get("merchantId") as string, domainId: claimSnap.get("domainId") as string } : null;
    const decision = decide(current, claim);
    tx.set(domainsOf(merchantId).doc(domainId), domainData(decision.domain));
    const ours = claim?.merchantId === merchantId && claim.domainId === domainId;
    const serving = servesHost(decision.domain);
    if (decision.claim === "take" && !ours) tx.set(claimSnap.ref, { merchantId, domainId, claimedAt: Timestamp.fromDate(decision.domain.checkedAt ?? new Date()), serving });
    else if (ours && decision.claim !== "release" && claimSnap.get("serving") !== serving) tx.update(claimSnap.ref, { serving });
    if (decision.claim === "release" && ours) tx.delete(claimSnap.ref);
    if (decision.mail) queueMail(tx, decision.mail);
    if (decision.audit) audit(tx, merchantId, who, { domainId, hostname: current.hostname, ...decision.audit });
    return decision.domain;
  });
}

/** Domains of every workspace whose next check is due, soonest first. */
export async function domainsDue(now: Date, limit: number): Promise<Array<{ merchantId: string; domainId: string }>> {
  const snap = await db().collectionGroup("domains").where("nextCheckAt", "<=", Timestamp.fromDate(now)).orderBy("nextCheckAt").limit(limit).select().get();
  return snap.docs.map((d) => ({ merchantId: d.ref.parent.parent!.id, domainId: d.id }));
}

/** The workspace owner's uid, for mail. */
export async function workspaceOwner(merchantId: string): Promise<string | undefined> {
  return (await db().collection(COLLECTIONS.workspaces).doc(merchantId).get()).get("ownerUid") as string | undefined;
}
