// Certificates for branded domains, behind one interface so the issuer can change without the lifecycle
// changing. Locally the issuer "issues" at once (it plays the part of Google's managed certificates);
// deployed, no issuer exists yet (production certificates are issue 59), so a domain waits in
// cert_pending and turns invalid after CERT_TIMEOUT_HOURS, which is the honest answer until then.

export interface CertificateIssuer {
  name: string;
  /** The CAA issuer domains this issuer may use: a domain's CAA set must allow every one (docs/domains.md). */
  caaDomains: readonly string[];
  /** Asks for (or about) a certificate for `hostname`; true once one is issued. */
  request(hostname: string, now: Date): Promise<boolean>;
}

/**
 * Google's managed certificates come from Google Trust Services (pki.goog) or Let's Encrypt, and which one
 * is not the caller's choice: a CAA set must allow both.
 */
export const MANAGED_CAA_DOMAINS = ["pki.goog", "letsencrypt.org"] as const;

/** The local stack's issuer: every request is issued at once. */
export const localIssuer: CertificateIssuer = { name: "local", caaDomains: MANAGED_CAA_DOMAINS, request: () => Promise.resolve(true) };

/** Deployed, until issue 59 brings managed certificates: nothing is ever issued. */
export const noIssuer: CertificateIssuer = { name: "none", caaDomains: MANAGED_CAA_DOMAINS, request: () => Promise.resolve(false) };

/** How long a domain whose records are right may wait for its certificate before it turns invalid. */
export const CERT_TIMEOUT_HOURS = 24;

export const defaultIssuer = (local: boolean): CertificateIssuer => (local ? localIssuer : noIssuer);
