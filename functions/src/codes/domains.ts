// Which host a code's dynamic link is on (docs/domains.md, "Codes on a domain"). A dynamic code may name
// one of its workspace's active domains; its link, PNG, SVG, PDF and print files then carry that host.
// The link on the service's own host keeps answering either way (the link document is the same).
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import type { Domain } from "../store/domains";
import { readDefaultDomainId, readDomainsById } from "../store/codeDomains";

/**
 * Whether codes naming the domain carry its host: while it is active, and while it is invalid after having
 * been active (its 30 days' grace: it still holds its host). Detached, deleted, never active, or beaten to
 * the host by another workspace: the service's own host.
 */
export function carriesHost(domain: Pick<Domain, "state" | "activatedAt" | "reason"> | undefined): boolean {
  if (!domain) return false;
  return domain.state === "active" || (domain.state === "invalid" && domain.activatedAt !== null && domain.reason !== "host_taken");
}

/** A dynamic link: on the domain's host when given, else on the service's (DYNAMIC_LINK_URL). */
export function dynamicLinkFor(uniqueQRCodeID: string, hostname: string | null = null): string {
  return hostname ? `https://${hostname}/qr/${uniqueQRCodeID}` : `${getConfig().dynamicLinkUrl}/qr/${uniqueQRCodeID}`;
}

/** What a new code asks for: a domain by id, null for none, absent for the workspace's default. */
export interface DomainAsk {
  domainId?: string | null;
  /** Whether the code is dynamic once its look is applied (a static code encodes its URL, not a link). */
  dynamic: boolean;
}

/** The domain a new code is on (its id and host), or null: the service's own host. */
export type CodeDomain = { domainId: string; hostname: string } | null;

export type DomainChoice = { ok: true; domain: CodeDomain } | { ok: false; error: AppError };

/** The refusal for naming `domainId` when the workspace has no such domain, or it is not active. */
export function domainRefusal(domainId: string, domain: Pick<Domain, "state" | "hostname"> | undefined, what = "codes"): AppError | null {
  if (!domain) {
    return new AppError("VALIDATION_FAILED", `This workspace has no domain ${domainId}`, {
      hint: "List the workspace's domains (GET /api/domains) and give the id of an active one, or leave domainId out.",
      details: { field: "domainId", reason: "unknown_domain" },
    });
  }
  if (domain.state !== "active") {
    return new AppError("CONFLICT", `The domain ${domain.hostname} is ${domain.state}, not active: ${what} can only be put on an active domain`, {
      hint: "Verify it (POST /api/domains/{id}/verify) until it is active, or leave domainId out to use the service's own host.",
      details: { field: "domainId", reason: "domain_not_active", state: domain.state },
    });
  }
  return null;
}

/**
 * The domain of each new code, in order: a named one must be the workspace's and active (else that input's
 * refusal); none named: the workspace's default when the code is dynamic and the default is active, else none.
 * A static code cannot name one: it encodes its destination, not a link.
 */
export async function domainChoices(merchantId: string, asks: readonly DomainAsk[]): Promise<DomainChoice[]> {
  const named = asks.flatMap((a) => (typeof a.domainId === "string" ? [a.domainId] : []));
  const wantsDefault = asks.some((a) => a.domainId === undefined && a.dynamic);
  const defaultId = wantsDefault ? await readDefaultDomainId(merchantId) : null;
  const domains = named.length || defaultId ? await readDomainsById(merchantId, defaultId ? [...named, defaultId] : named) : new Map<string, Domain>();
  return asks.map((ask): DomainChoice => {
    if (typeof ask.domainId === "string") {
      if (!ask.dynamic) {
        return {
          ok: false,
          error: new AppError("VALIDATION_FAILED", "domainId needs a dynamic code: a static code encodes its destination URL itself, not a link on a host", {
            hint: "Give dynamic: true to put the code's link on the domain.",
            details: { field: "domainId", reason: "static_code" },
          }),
        };
      }
      const domain = domains.get(ask.domainId);
      const refusal = domainRefusal(ask.domainId, domain);
      return refusal ? { ok: false, error: refusal } : { ok: true, domain: { domainId: domain!.domainId, hostname: domain!.hostname } };
    }
    const fallback = ask.domainId === undefined && ask.dynamic && defaultId ? domains.get(defaultId) : undefined;
    return { ok: true, domain: fallback?.state === "active" ? { domainId: fallback.domainId, hostname: fallback.hostname } : null };
  });
}
