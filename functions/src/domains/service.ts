// Branded domains of a workspace (docs/domains.md): the operations both surfaces offer (REST /api/domains
// and the svc.domain.* tools), declared once with the zod schemas of what they take and answer, and the
// hourly re-check. Only the workspace's owner adds, verifies or deletes; any member reads.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { ids } from "../core/ids";
import { auth } from "../core/firebase";
import { logInfo, logWarn } from "../core/log";
import { blockedHost } from "../abuse/blocklist";
import type { Caller } from "../auth/caller";
import { getWorkspace } from "../store/workspaces";
import {
  applyDomainCheck,
  deleteDomain,
  DOMAIN_STATES,
  domainsDue,
  INVALID_REASONS,
  listDomains,
  newDomainId,
  readDomain,
  saveNewDomain,
  workspaceOwner,
  type Domain,
  type DomainAudit,
} from "../store/domains";
import { checkHostname, HOSTNAME_MAX } from "./hostname";
import { dnsLookup, type DnsLookup } from "./dns";
import { defaultIssuer, type CertificateIssuer } from "./issuer";
import { certNearExpiry, decide, problemSentence, recordsVerdict, txtName, txtValue, type ServingTarget } from "./lifecycle";
import { syncDomainCodes } from "../codes/domainSync";
import { domainRefusal } from "../codes/domains";
import { readDefaultDomainId, setDefaultDomainId } from "../store/codeDomains";
import { readHostPages, setPageColours, setRootUrl } from "../store/hostServing";
import { CONTRAST_FLOOR, contrastRatio } from "../designs/contrast";
import { assertDestinationAllowed } from "../abuse/service";
import { httpUrl } from "../core/validation";
import { URL_MAX_LENGTH } from "../core/limits";

/** Domains one workspace may hold (detached ones count until deleted). */
export const MAX_DOMAINS = 20;

export const domainIdSchema = ids.domainId;

/** The path parameters of one domain's routes (REST and the console). */
export const DomainParamsSchema = z.object({ domainId: domainIdSchema }).strict();

export const NewDomainSchema = z
  .object({
    hostname: z
      .string()
      .min(1)
      .max(HOSTNAME_MAX + 2)
      .describe("The host to serve codes on, e.g. scan.example.com or example.com; Unicode (IDN) or punycode"),
  })
  .strict();

const RecordSchema = z
  .object({
    type: z.enum(["TXT", "CNAME", "A", "AAAA", "ALIAS"]),
    name: z.string(),
    value: z.string(),
    purpose: z.string(),
  })
  .strict();

export const PublicDomainSchema = z
  .object({
    domainId: z.string(),
    hostname: z.string().describe("Punycode ASCII, lower-case"),
    hostnameUnicode: z.string().describe("The same name in Unicode, for people"),
    apex: z.boolean().describe("A registrable domain itself (example.com), not a sub-domain"),
    state: z.enum(DOMAIN_STATES),
    reason: z.enum(INVALID_REASONS).nullable().describe("Why it is invalid (or, detached, why it was)"),
    problem: z.string().nullable().describe("What is wrong or awaited, as a sentence"),
    records: z.array(RecordSchema).describe("The DNS records to create at the domain's DNS host"),
    recordsNote: z.string().nullable().describe("For an apex: why there is no CNAME, and the alternatives"),
    notice: z.object({ text: z.string(), at: z.string() }).strict().nullable().describe("The owner's notice after it stopped verifying"),
    createdAt: z.string(),
    checkedAt: z.string().nullable(),
    activatedAt: z.string().nullable(),
    invalidSince: z.string().nullable(),
    detachedAt: z.string().nullable(),
  })
  .strict()
  .meta({ title: "Domain" });

export const DomainListSchema = z
  .object({
    count: z.number().int(),
    max: z.number().int(),
    defaultDomainId: z.string().nullable().describe("The domain new dynamic codes go on when they name none (while it is active)"),
    rootUrl: z.string().nullable().describe("Where `/` on the workspace's served hosts redirects (302); null: the neutral 404 page"),
    pageColours: z
      .object({ foreground: z.string(), background: z.string() })
      .nullable()
      .describe("The text and page colours of the pages the workspace's hosts answer (not found); null: the service's plain page"),
    domains: z.array(PublicDomainSchema),
  })
  .strict()
  .meta({ title: "DomainList" });
export const DefaultDomainSchema = z.object({ domainId: ids.domainId.nullable().describe("An active domain of the workspace, or null for the service's own host") }).strict();
export const DefaultDomainSetSchema = z.object({ defaultDomainId: z.string().nullable() }).strict().meta({ title: "DefaultDomain" });
export const RootUrlSchema = z
  .object({ rootUrl: httpUrl(URL_MAX_LENGTH).nullable().describe("An http(s) URL `/` on the workspace's hosts redirects to, or null for the neutral 404 page") })
  .strict()
  .meta({ title: "RootUrl" });
const hexColour = z.string().regex(/^#[0-9a-fA-F]{6}$/, "A colour as #RRGGBB");
export const PageColoursSchema = z
  .object({
    pageColours: z
      .object({ foreground: hexColour.describe("The text, e.g. #1F2937"), background: hexColour.describe("The page, e.g. #FEF3C7") })
      .strict()
      .nullable()
      .describe("The colours of the pages the workspace's hosts answer, with its name above their heading; null for the service's plain page"),
  })
  .strict()
  .meta({ title: "PageColours" });
export const DomainDeletedSchema = z.object({ deleted: z.literal(true), domainId: z.string() }).strict().meta({ title: "DomainDeleted" });

export type PublicDomain = z.infer<typeof PublicDomainSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function servingTarget(): ServingTarget {
  const { targetHost, apexAddresses } = getConfig().domains;
  return { targetHost, apexAddresses };
}

/** The records to create for a domain: ownership TXT, then the serving record(s). */
export function recordsOf(d: Pick<Domain, "hostname" | "apex" | "token">, target = servingTarget()): Pick<PublicDomain, "records" | "recordsNote"> {
  const records: PublicDomain["records"] = [{ type: "TXT", name: txtName(d.hostname), value: txtValue(d.token), purpose: "Proves the domain is yours; keep it while the domain is in use" }];
  if (!d.apex) {
    records.push({ type: "CNAME", name: d.hostname, value: target.targetHost, purpose: "Sends scans to the service" });
    return { records, recordsNote: null };
  }
  for (const address of target.apexAddresses) records.push({ type: address.includes(":") ? "AAAA" : "A", name: d.hostname, value: address, purpose: "Sends scans to the service" });
  records.push({ type: "ALIAS", name: d.hostname, value: target.targetHost, purpose: "Instead of A/AAAA, where the DNS host offers ALIAS, ANAME or CNAME flattening" });
  return {
    records,
    recordsNote: `${d.hostname} is an apex (a registrable domain), and an apex cannot be a CNAME: its other records (mail, ownership) would be hidden. Create ${target.apexAddresses.length ? "the A/AAAA records, or " : ""}an ALIAS (ANAME, CNAME flattening) to ${target.targetHost} if your DNS host offers one.`,
  };
}

export function publicDomain(d: Domain): PublicDomain {
  return {
    domainId: d.domainId,
    hostname: d.hostname,
    hostnameUnicode: checkHostnameUnicode(d.hostname),
    apex: d.apex,
    state: d.state,
    reason: d.reason,
    problem: d.problem,
    ...recordsOf(d),
    notice: d.notice ? { text: d.notice.text, at: d.notice.at.toISOString() } : null,
    createdAt: d.createdAt.toISOString(),
    checkedAt: iso(d.checkedAt),
    activatedAt: iso(d.activatedAt),
    invalidSince: iso(d.invalidSince),
    detachedAt: iso(d.detachedAt),
  };
}

const checkHostnameUnicode = (hostname: string) => {
  const verdict = checkHostname(hostname, { ownHosts: [], blocked: () => undefined });
  return verdict.ok ? verdict.unicode : hostname;
};

/** The caller's role: a key or app acts with its minter's (the workspace's owner, or a member). */
export async function requireOwner(caller: Caller): Promise<void> {
  const role = caller.role ?? ((await getWorkspace(caller.merchantId))?.ownerUid === caller.uid ? "owner" : "member");
  if (role !== "owner") throw new AppError("FORBIDDEN", "Only the workspace's owner can add, verify or delete its domains", { hint: "Ask the owner, or use a key the owner minted." });
}

const auditOf = (caller: Caller, tool: string): DomainAudit => ({ uid: caller.uid, authMethod: caller.authMethod, keyPrefix: caller.keyPrefix ?? null, tool });

async function ownDomain(merchantId: string, domainId: string): Promise<Domain> {
  const domain = await readDomain(merchantId, domainId);
  // Another workspace's id reads as absent: ids are never confirmed across workspaces.
  if (!domain) throw new AppError("NOT_FOUND", `No domain ${domainId} in this workspace`);
  return domain;
}

export async function addDomain(caller: Caller, input: z.infer<typeof NewDomainSchema>, now = new Date()): Promise<PublicDomain> {
  const { ownHosts } = getConfig().domains;
  const verdict = checkHostname(input.hostname, { ownHosts, blocked: blockedHost });
  if (!verdict.ok) throw new AppError("VALIDATION_FAILED", verdict.message, { details: { field: "hostname", reason: verdict.reason } });
  await requireOwner(caller);
  const domain: Domain = {
    domainId: newDomainId(caller.merchantId),
    merchantId: caller.merchantId,
    hostname: verdict.hostname,
    apex: verdict.apex,
    token: randomBytes(16).toString("hex"),
    state: "pending",
    reason: null,
    problem: null,
    createdAt: now,
    createdBy: caller.uid,
    checkedAt: null,
    nextCheckAt: now,
    verifiedAt: null,
    certRequestedAt: null,
    certIssuedAt: null,
    certExpiresAt: null,
    certAlertAt: null,
    activatedAt: null,
    invalidSince: null,
    remindersSent: [],
    detachedAt: null,
    notice: null,
  };
  domain.problem = problemSentence(domain, "pending", servingTarget());
  await saveNewDomain(domain, MAX_DOMAINS, auditOf(caller, "domains.add"));
  return publicDomain(domain);
}

export async function domainList(caller: Caller): Promise<z.infer<typeof DomainListSchema>> {
  const [domains, defaultDomainId, pages] = await Promise.all([listDomains(caller.merchantId, MAX_DOMAINS + 5), readDefaultDomainId(caller.merchantId), readHostPages(caller.merchantId)]);
  return { count: domains.length, max: MAX_DOMAINS, defaultDomainId, rootUrl: pages.rootUrl, pageColours: pages.pageColours, domains: domains.map(publicDomain) };
}

/**
 * Sets (null: clears) the colours of the pages the workspace's hosts answer; owners only. Refused unless
 * text in the one reads on the other at the WCAG contrast floor for text, as a shop owner's customers must read it.
 */
export async function setWorkspacePageColours(caller: Caller, colours: z.infer<typeof PageColoursSchema>["pageColours"]): Promise<z.infer<typeof PageColoursSchema>> {
  await requireOwner(caller);
  const upper = colours && { foreground: colours.foreground.toUpperCase(), background: colours.background.toUpperCase() };
  if (upper) {
    const ratio = contrastRatio(upper.foreground, upper.background);
    if (ratio < CONTRAST_FLOOR) {
      throw new AppError("VALIDATION_FAILED", `Text in ${upper.foreground} on ${upper.background} is hard to read: their contrast is ${Math.round(ratio * 100) / 100}:1, below ${CONTRAST_FLOOR}:1`, {
        hint: "Use a darker text colour or a lighter page colour (or the reverse).",
        details: { field: "pageColours", contrastRatio: Math.round(ratio * 100) / 100, contrastFloor: CONTRAST_FLOOR },
      });
    }
  }
  await setPageColours(caller.merchantId, upper);
  return { pageColours: upper };
}


/**
 * Sets (null: clears) where `/` on the workspace's hosts redirects (docs/domains.md, "Serving"); owners
 * only. The URL is checked as a code's destination is: a redirect from a merchant's host to a listed site
 * is the same harm as a code's.
 */
export async function setWorkspaceRootUrl(caller: Caller, rootUrl: string | null): Promise<z.infer<typeof RootUrlSchema>> {
  await requireOwner(caller);
  if (rootUrl !== null) await assertDestinationAllowed(rootUrl, { merchantId: caller.merchantId });
  await setRootUrl(caller.merchantId, rootUrl);
  return { rootUrl };
}

/** Sets the domain new dynamic codes go on when they name none (docs/domains.md, "Codes on a domain"); owners only. */
export async function setDefaultDomain(caller: Caller, domainId: string | null): Promise<z.infer<typeof DefaultDomainSetSchema>> {
  await requireOwner(caller);
  await setDefaultDomainId(caller.merchantId, domainId, (domain) => {
    const refusal = domainId === null ? null : domainRefusal(domainId, domain);
    if (refusal) throw refusal;
  });
  return { defaultDomainId: domainId };
}

/** The workspace's default domain for new codes (an id; it may since have been deleted), or null. */
export const defaultDomainOf = (caller: Caller): Promise<string | null> => readDefaultDomainId(caller.merchantId);

/** Where `/` on the workspace's hosts redirects, and the colours of their pages (each null when not set). */
export async function hostPagesOf(caller: Caller): Promise<Pick<z.infer<typeof DomainListSchema>, "rootUrl" | "pageColours">> {
  const { rootUrl, pageColours } = await readHostPages(caller.merchantId);
  return { rootUrl, pageColours };
}

export async function domainGet(caller: Caller, domainId: string): Promise<PublicDomain> {
  return publicDomain(await ownDomain(caller.merchantId, domainId));
}

export async function removeDomain(caller: Caller, domainId: string, deps: Pick<CheckDeps, "issuer"> = {}): Promise<z.infer<typeof DomainDeletedSchema>> {
  await requireOwner(caller);
  const deleted = await deleteDomain(caller.merchantId, domainId, auditOf(caller, "domains.delete"));
  if (!deleted) throw new AppError("NOT_FOUND", `No domain ${domainId} in this workspace`);
  // Only a domain that had asked for a certificate has one to remove.
  if (deleted.certRequestedAt) await releaseCertificate(deps.issuer ?? (await defaultIssuer(getConfig().isEmulator)), deleted.hostname);
  // Its codes go back to the service's own host (docs/domains.md, "Codes on a domain").
  await syncDomainCodes(caller.merchantId, domainId, undefined);
  return { deleted: true, domainId };
}

/** What a check runs with: the clock, the DNS servers and the issuer (tests inject them). */
export interface CheckDeps {
  now?: Date;
  /** DNS servers to ask instead of the configured ones (tests: the loopback server). */
  dnsServers?: readonly string[];
  issuer?: CertificateIssuer;
}

async function ownerEmail(merchantId: string): Promise<string | null> {
  const uid = await workspaceOwner(merchantId);
  if (!uid) return null;
  try {
    return (await auth().getUser(uid)).email ?? null;
  } catch {
    return null; // the owner's account is gone: nobody to mail
  }
}

/** Checks one domain now and applies the outcome (state, claim, mail, audit). */
async function checkDomain(merchantId: string, domainId: string, who: DomainAudit, deps: CheckDeps, lookup: DnsLookup): Promise<Domain | undefined> {
  const now = deps.now ?? new Date();
  const domain = await readDomain(merchantId, domainId);
  if (!domain) return undefined;
  const target = servingTarget();
  const issuer = deps.issuer ?? (await defaultIssuer(getConfig().isEmulator));
  const verdict = await recordsVerdict(domain, lookup, target, issuer.caaDomains);
  const cert = verdict.kind === "ok" ? await issuer.request(domain.hostname, now, { active: domain.state === "active" }) : undefined;
  // Mail goes only to owners of domains that were active; the address is read before the transaction.
  const mayMail = verdict.kind !== "ok" || (cert !== undefined && cert.state !== "issued") || certNearExpiry(cert?.expiresAt ?? domain.certExpiresAt, now);
  const email = domain.activatedAt && mayMail ? await ownerEmail(merchantId) : null;
  const consoleUrl = `${getConfig().createUrl}#/domains`; // the console's Domains page (console/domains.ts)
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const checked = await applyDomainCheck(merchantId, domainId, who, (current, claim) => {
    const decision = decide(current, claim, { verdict, cert, now, target, ownerEmail: email, consoleUrl });
    const mail = decision.mail && email ? { to: email, message: { ...decision.mail, html: `<p>${esc(decision.mail.text).replace(/\n/g, "<br>")}</p>` } } : null;
    return { domain: decision.domain, claim: decision.claim, mail, audit: decision.change };
  });
  // The operator's alert (a log-based alert on this event, docs/deploy.md): the owner was just told.
  if (checked?.certAlertAt?.getTime() === now.getTime()) logWarn("domains.cert_alert", "certificate not renewing", { merchantId, domainId, hostname: checked.hostname, expiresAt: checked.certExpiresAt?.toISOString() ?? null });
  if (checked?.state === "detached" && domain.state !== "detached") await releaseCertificate(issuer, checked.hostname);
  // Codes naming the domain follow its state (detached: the service's host; active again: the domain's).
  // Every check asks, so codes a failed or raced move left behind are moved within the hour.
  if (checked) await syncDomainCodes(merchantId, domainId, checked);
  return checked;
}

/** Removes a host's certificate and map entry; a failure is logged (the operator removes it by its label) and never blocks. */
async function releaseCertificate(issuer: CertificateIssuer, hostname: string): Promise<void> {
  try {
    await issuer.release(hostname);
  } catch (error) {
    logWarn("domains.cert_release_failed", "certificate release failed", { hostname, reason: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300) });
  }
}

const lookupFor = (deps: CheckDeps) => dnsLookup(deps.dnsServers ?? getConfig().domains.dnsServers);

/** POST /api/domains/{id}/verify and svc.domain.verify: the check, now. */
export async function verifyDomain(caller: Caller, domainId: string, deps: CheckDeps = {}): Promise<PublicDomain> {
  await requireOwner(caller);
  await ownDomain(caller.merchantId, domainId);
  const checked = await checkDomain(caller.merchantId, domainId, auditOf(caller, "domains.verify"), deps, lookupFor(deps));
  if (!checked) throw new AppError("NOT_FOUND", `No domain ${domainId} in this workspace`);
  return publicDomain(checked);
}

const SCHEDULER: DomainAudit = { uid: "scheduler", authMethod: "schedule", keyPrefix: null, tool: "domains.check" };

/** Domains checked per page of the hourly job, and at most this many pages per run (the rest wait an hour). */
export const CHECK_PAGE = 100;
export const CHECK_PAGES_MAX = 50;

/**
 * The hourly job: every domain whose next check is due, a page at a time, ten at once. Each check moves
 * its domain's next check an hour on, so the next page is the next domains due, and a run ends when none
 * is due or after CHECK_PAGES_MAX pages.
 */
export async function runDomainChecks(deps: CheckDeps = {}): Promise<{ checked: number; pages: number }> {
  const now = deps.now ?? new Date();
  const lookup = lookupFor(deps);
  let checked = 0;
  let pages = 0;
  while (pages < CHECK_PAGES_MAX) {
    const due = await domainsDue(now, CHECK_PAGE);
    if (due.length === 0) break;
    pages++;
    let done = 0;
    for (let i = 0; i < due.length; i += 10) {
      const results = await Promise.allSettled(due.slice(i, i + 10).map((d) => checkDomain(d.merchantId, d.domainId, SCHEDULER, { ...deps, now }, lookup)));
      for (const [j, r] of results.entries()) {
        if (r.status === "fulfilled") done++;
        else logWarn("domains.check_failed", "domain check failed", { ...due[i + j], reason: r.reason instanceof Error ? r.reason.message : String(r.reason) });
      }
    }
    checked += done;
    // A page whose checks all failed would come back unchanged: stop rather than ask again.
    if (due.length < CHECK_PAGE || done === 0) break;
  }
  logInfo("domains.checks_ran", "domain checks", { checked, pages });
  return { checked, pages };
}
