// Verifying a GS1 company prefix for a workspace (docs/gs1-resolver.md, "Who may claim a key"): an
// operator's approval (admin CLI gs1-approve-prefix), exclusive on the host, or the workspace's DNS proof on
// one of its verified branded domains, which lifts its own claim limit only (a domain proves who holds the
// domain, not who holds a GS1 licence, so it cannot shut anyone else out).
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { ids } from "../core/ids";
import { readDomain } from "../store/domains";
import { recordGs1PrefixProof, setGs1PrefixApproval } from "../store/gs1Items";
import { dnsLookup } from "../domains/dns";
import type { Caller } from "../auth/caller";
import { COMPANY_PREFIX } from "./prefixes";
import { resolverHost } from "./service";

const invalid = (message: string, field: string, hint?: string) => new AppError("VALIDATION_FAILED", message, { hint, details: { field } });

/** The TXT record a domain publishes a prefix in: `_svc-gs1.<domain>` = `svc-gs1-prefix=<prefix>` (one record per prefix). */
export const prefixRecordName = (hostname: string) => `_svc-gs1.${hostname}`;
export const prefixRecordValue = (prefix: string) => `svc-gs1-prefix=${prefix}`;

/** Ownership of the domain proven and not lost since (docs/domains.md, "States"). */
const PROVEN_STATES = new Set(["verifying", "cert_pending", "active"]);

function checkPrefix(prefix: string, field: string): string {
  const p = prefix.trim();
  if (!COMPANY_PREFIX.test(p)) throw invalid(`${field} must be a GS1 company prefix: 4 to 12 digits, not "${p.slice(0, 20)}"`, field);
  return p;
}

/**
 * The workspace's DNS proof of a prefix: the domain must be one of its branded domains whose ownership is
 * proven, and `_svc-gs1.<domain>` must hold `svc-gs1-prefix=<prefix>`. Recorded (and audited) when it does.
 */
export async function provePrefixByDns(caller: Pick<Caller, "merchantId" | "uid" | "authMethod" | "keyPrefix">, input: { companyPrefix: string; domainId: string }, deps: { dnsServers?: readonly string[] } = {}, now = new Date()) {
  const prefix = checkPrefix(input.companyPrefix, "companyPrefix");
  const domain = await readDomain(caller.merchantId, input.domainId);
  if (!domain) throw new AppError("NOT_FOUND", `No domain ${input.domainId} in this workspace`);
  if (!PROVEN_STATES.has(domain.state)) {
    throw new AppError("CONFLICT", `The domain ${domain.hostname} is ${domain.state}: its ownership must be proven (verifying, cert_pending or active) before it can vouch for a company prefix`, { hint: "Verify the domain first (POST /api/domains/{id}/verify)." });
  }
  const name = prefixRecordName(domain.hostname);
  const expected = prefixRecordValue(prefix);
  const answer = await dnsLookup(deps.dnsServers ?? getConfig().domains.dnsServers).txt(name);
  if (!answer.ok) throw new AppError("UNAVAILABLE", `The DNS lookup of ${name} failed (${answer.error}); nothing was recorded`, { hint: "Try again in a few minutes." });
  if (!answer.values.some((v) => v.trim() === expected)) {
    throw new AppError("CONFLICT", `${name} does not hold the TXT record ${expected}: the prefix is not proven`, {
      hint: `Add a TXT record ${name} with the value ${expected}, wait for it to be served, and try again.`,
      details: { record: { type: "TXT", name, value: expected } },
    });
  }
  const host = resolverHost();
  await recordGs1PrefixProof({ merchantId: caller.merchantId, host, prefix, domain: domain.hostname }, { uid: caller.uid, authMethod: caller.authMethod, keyPrefix: caller.keyPrefix ?? null }, now);
  return { companyPrefix: prefix, domain: domain.hostname, host, provenAt: now.toISOString() };
}

/** An operator's approval of a prefix for a workspace, or its withdrawal (`to` null). */
export async function approvePrefix(input: { companyPrefix: string; to: string | null; by: string; reason?: string }) {
  const prefix = checkPrefix(input.companyPrefix, "--company-prefix");
  if (input.to !== null && !ids.merchantId.safeParse(input.to).success) throw invalid(`--to: "${input.to.slice(0, 40)}" is not a workspace id (a merchantId)`, "--to");
  const host = resolverHost();
  const { previous } = await setGs1PrefixApproval({ host, prefix, merchantId: input.to, by: input.by, reason: input.reason ?? "" });
  return { companyPrefix: prefix, host, from: previous, to: input.to };
}
