// Certificates for branded domains, behind one interface so the issuer can change without the lifecycle
// changing. Locally the issuer "issues" at once (it plays the part of Google's managed certificates);
// deployed, Certificate Manager issues them (issuerGoogle.ts; docs/deploy.md, "Certificates for branded
// domains"). What an issuer answers is a CertAnswer, which the lifecycle maps to the domain's state.

/** Why a certificate could not be issued, as the domain's invalid reason. */
export type CertFailureReason = "caa_forbids" | "cert_failed";

/** What an issuer says about a host's certificate. Each sentence is for the domain's owner. */
export type CertAnswer =
  /** Issued and served; `expiresAt` when this answer read it (null: not read this time). */
  | { state: "issued"; expiresAt: Date | null }
  /** Being issued (or renewed); `problem` says what is awaited or what went wrong so far. */
  | { state: "pending"; problem: string | null; expiresAt: Date | null }
  /** The issuer gave up: the domain turns invalid with `reason` until a later check issues it. */
  | { state: "failed"; reason: CertFailureReason; problem: string; expiresAt: Date | null }
  /** The issuer could not be asked (its quota, its permissions, an outage): nothing changes but the sentence. */
  | { state: "unavailable"; problem: string };

export interface CertificateIssuer {
  name: string;
  /** The CAA issuer domains this issuer may use: a domain's CAA set must allow every one (docs/domains.md). */
  caaDomains: readonly string[];
  /**
   * Asks for (or about) a certificate for `hostname`. `active`: the domain is active already, so the
   * issuer may answer from what it last saw instead of asking again (issuers with read quotas do).
   */
  request(hostname: string, now: Date, context?: { active: boolean }): Promise<CertAnswer>;
  /** Removes what the issuer made for `hostname` (the domain was deleted or detached); absent is fine. */
  release(hostname: string): Promise<void>;
}

/**
 * Google's managed certificates come from Google Trust Services (pki.goog) or Let's Encrypt, and which one
 * is not the caller's choice: a CAA set must allow both.
 */
export const MANAGED_CAA_DOMAINS = ["pki.goog", "letsencrypt.org"] as const;

/** Locally a certificate "lasts" as long as a managed one does, so expiry alerts have a date to read. */
const LOCAL_CERT_DAYS = 90;

/** The local stack's issuer: every request is issued at once. */
export const localIssuer: CertificateIssuer = {
  name: "local",
  caaDomains: MANAGED_CAA_DOMAINS,
  request: (_hostname, now) => Promise.resolve({ state: "issued", expiresAt: new Date(now.getTime() + LOCAL_CERT_DAYS * 86_400_000) }),
  release: () => Promise.resolve(),
};

/** How long a domain whose records are right may wait for its certificate before it turns invalid. */
export const CERT_TIMEOUT_HOURS = 24;

/**
 * Deployed, the issuer is Certificate Manager's; its client library loads only when a check first asks
 * for a certificate, so functions that never issue (and cold starts of the one that does) do not load it.
 */
export async function defaultIssuer(local: boolean): Promise<CertificateIssuer> {
  if (local) return localIssuer;
  return (await import("./issuerGoogle")).googleIssuer();
}
