// The deployed certificate issuer: Certificate Manager (docs/deploy.md, "Certificates for branded
// domains"). Per host it makes a Google-managed certificate with load balancer authorization (the host's
// CNAME or A/AAAA records already name the load balancer, so the merchant creates no further record) and a
// certificate map entry that serves it for that host on the one map the load balancer uses. Only
// @google-cloud/certificate-manager's official client talks to the API; it is loaded on first use.
import { createHash } from "node:crypto";
import { parse } from "tldts";
import { projectId } from "../core/config";
import { logWarn } from "../core/log";
import { MANAGED_CAA_DOMAINS, type CertAnswer, type CertificateIssuer } from "./issuer";

/** The certificate map the load balancer's target HTTPS proxy uses (the deploy script creates it). */
export const CERT_MAP = "svc-domains";
/** Certificate Manager's location for certificates a global load balancer serves. */
export const CERT_LOCATION = "global";
/** Labels every resource the issuer makes, so an operator can list them (and nothing else is touched). */
export const CERT_LABELS = { svc: "branded-domain" } as const;
/** A certificate that failed this long ago is deleted, so the next check asks for a new one (once a day at most). */
export const FAILED_RETRY_HOURS = 24;

type Timestamp = { seconds?: number | string | { toString(): string } | null; nanos?: number | null } | null | undefined;
type Enum = string | number | null | undefined;
interface AttemptInfo { domain?: string | null; state?: Enum; failureReason?: Enum; details?: string | null }
export interface CertificateRecord {
  name?: string | null;
  managed?: { state?: Enum; provisioningIssue?: { reason?: Enum; details?: string | null } | null; authorizationAttemptInfo?: AttemptInfo[] | null } | null;
  expireTime?: Timestamp;
  updateTime?: Timestamp;
}
export interface MapEntryRecord { name?: string | null; state?: Enum }
interface Operation { promise(): Promise<unknown> }

/** The calls the issuer makes: a subset of CertificateManagerClient, so a test can hand the real client in. */
export interface CertificateManagerApi {
  getCertificate(request: { name: string }): Promise<[CertificateRecord, ...unknown[]]>;
  createCertificate(request: { parent: string; certificateId: string; certificate: object }): Promise<[Operation, ...unknown[]]>;
  deleteCertificate(request: { name: string }): Promise<[Operation, ...unknown[]]>;
  getCertificateMapEntry(request: { name: string }): Promise<[MapEntryRecord, ...unknown[]]>;
  createCertificateMapEntry(request: { parent: string; certificateMapEntryId: string; certificateMapEntry: object }): Promise<[Operation, ...unknown[]]>;
  deleteCertificateMapEntry(request: { name: string }): Promise<[Operation, ...unknown[]]>;
}

export interface GoogleIssuerOptions {
  project?: string;
  map?: string;
  /** Makes the client (default: the library's CertificateManagerClient with the runtime's credentials). */
  client?: () => Promise<CertificateManagerApi>;
}

// gRPC status codes (google.rpc.Code) the issuer tells apart.
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;

/** A host's resource id: ids allow [a-z0-9-]{1,63}, host names do not fit, so a digest of the name. */
export const resourceId = (hostname: string) => `dom-${createHash("sha256").update(hostname).digest("hex").slice(0, 40)}`;

/** The names the issuer uses for `hostname`. */
export function resourceNames(hostname: string, project: string, map = CERT_MAP) {
  const location = `projects/${project}/locations/${CERT_LOCATION}`;
  const mapName = `${location}/certificateMaps/${map}`;
  const id = resourceId(hostname);
  return { location, mapName, id, certificate: `${location}/certificates/${id}`, entry: `${mapName}/certificateMapEntries/${id}` };
}

/**
 * An active domain's certificate is read once a day, in an hour of the day its name picks: reading every
 * domain every hour would pass the API's read quota at a few thousand domains (docs/deploy.md).
 */
export function readsThisHour(hostname: string, now: Date): boolean {
  return createHash("sha256").update(hostname).digest()[0] % 24 === now.getUTCHours();
}

const codeOf = (error: unknown) => (typeof error === "object" && error && typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : undefined);
const dateOf = (t: Timestamp) => (t && t.seconds !== undefined && t.seconds !== null ? new Date(Number(String(t.seconds)) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)) : null);
const name = (value: Enum) => (value === null || value === undefined ? "" : String(value));

// Enum values arrive as names (the gRPC transport) or numbers (some decoders): both are read.
const CERT_STATES: Record<string, string> = { "0": "STATE_UNSPECIFIED", "1": "PROVISIONING", "2": "FAILED", "3": "ACTIVE" };
const FAILURES: Record<string, string> = { "0": "FAILURE_REASON_UNSPECIFIED", "1": "CONFIG", "2": "CAA", "3": "RATE_LIMITED" };
const ISSUES: Record<string, string> = { "0": "REASON_UNSPECIFIED", "1": "AUTHORIZATION_ISSUE", "2": "RATE_LIMITED" };
const SERVING: Record<string, string> = { "0": "SERVING_STATE_UNSPECIFIED", "1": "ACTIVE", "2": "PENDING" };
const enumName = (table: Record<string, string>, value: Enum) => table[name(value)] ?? name(value);

/** Google's own words, kept short: they go into a sentence for the owner. */
const google = (details: string | null | undefined) => (details ? ` (the certificate authority said: ${details.replace(/\s+/g, " ").trim().slice(0, 200)})` : "");

/** The sentence for an authorization failure of `hostname`, by Certificate Manager's failure reason. */
export function failureSentence(hostname: string, reason: string, details?: string | null): string {
  switch (reason) {
    case "CAA":
      return `A CAA record at ${hostname} or above it does not let Google's certificate authorities issue for it: add CAA "issue" records for ${MANAGED_CAA_DOMAINS.join(" and ")}, or remove the CAA records${google(details)}.`;
    case "RATE_LIMITED":
      return `The certificate authority is limiting new certificates for ${parse(hostname).domain ?? hostname} (too many were issued for it lately); the request is retried automatically${google(details)}.`;
    case "CONFIG":
      return `The certificate authority could not reach the service at ${hostname}: check that its DNS records name the service, with no proxy or other server in front${google(details)}.`;
    default:
      return `The certificate for ${hostname} could not be issued${google(details)}; it is asked for again within a day.`;
  }
}

/** How a certificate and its map entry, as read, map to an answer (pure: the unit test checks every case). */
export function answerOf(hostname: string, cert: CertificateRecord, entry: MapEntryRecord | null): CertAnswer {
  const expiresAt = dateOf(cert.expireTime);
  const managed = cert.managed ?? {};
  const state = enumName(CERT_STATES, managed.state);
  const attempts = (managed.authorizationAttemptInfo ?? []).filter((a) => !a.domain || a.domain === hostname);
  const failed = attempts.find((a) => enumName(FAILURES, a.failureReason) !== "FAILURE_REASON_UNSPECIFIED" && name(a.failureReason) !== "");
  const failure = failed ? enumName(FAILURES, failed.failureReason) : managed.provisioningIssue ? enumName(ISSUES, managed.provisioningIssue.reason) : "";
  const details = failed?.details ?? managed.provisioningIssue?.details ?? null;
  if (state === "ACTIVE") {
    if (entry && enumName(SERVING, entry.state) === "PENDING") return { state: "pending", problem: `The certificate for ${hostname} is issued and is being put in service.`, expiresAt };
    return { state: "issued", expiresAt };
  }
  if (state === "FAILED") {
    const reason = failure === "CAA" ? "caa_forbids" : "cert_failed";
    return { state: "failed", reason, problem: failureSentence(hostname, failure === "AUTHORIZATION_ISSUE" ? "CONFIG" : failure, details), expiresAt };
  }
  // PROVISIONING (or a state this client does not know yet): waiting, with what went wrong so far.
  const problem = failure && failure !== "REASON_UNSPECIFIED" ? failureSentence(hostname, failure === "AUTHORIZATION_ISSUE" ? "CONFIG" : failure, details) : `The certificate for ${hostname} is being issued.`;
  return { state: "pending", problem, expiresAt };
}

/** The sentence when the API refused or failed, by its status code. */
export function unavailableSentence(code: number | undefined): string {
  if (code === RESOURCE_EXHAUSTED) return "The service's certificate quota is used up for now; the operator has been alerted and the certificate is asked for again within the hour.";
  if (code === PERMISSION_DENIED) return "The service is not allowed to request certificates right now; the operator has been alerted and the certificate is asked for again within the hour.";
  return "The certificate service did not answer this check; the certificate is asked for again within the hour.";
}

async function libraryClient(): Promise<CertificateManagerApi> {
  const { CertificateManagerClient } = await import("@google-cloud/certificate-manager");
  return new CertificateManagerClient() as unknown as CertificateManagerApi;
}

/** Certificate Manager as a CertificateIssuer. */
export function googleIssuer(options: GoogleIssuerOptions = {}): CertificateIssuer {
  let client: Promise<CertificateManagerApi> | undefined;
  const api = () => (client ??= (options.client ?? libraryClient)());
  const names = (hostname: string) => resourceNames(hostname, options.project ?? projectId(), options.map ?? CERT_MAP);

  async function absentOk<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      if (codeOf(error) === NOT_FOUND) return null;
      throw error;
    }
  }

  async function create(call: () => Promise<unknown>): Promise<void> {
    try {
      await call(); // the operation is not awaited: the next check reads what it made
    } catch (error) {
      if (codeOf(error) !== ALREADY_EXISTS) throw error; // a racing check made it first
    }
  }

  async function ask(hostname: string, now: Date): Promise<CertAnswer> {
    const c = await api();
    const n = names(hostname);
    const cert = await absentOk(async () => (await c.getCertificate({ name: n.certificate }))[0]);
    if (!cert) {
      await create(() =>
        c.createCertificate({
          parent: n.location,
          certificateId: n.id,
          certificate: { description: hostname, labels: { ...CERT_LABELS }, managed: { domains: [hostname] } },
        }),
      );
      return { state: "pending", problem: `The certificate for ${hostname} has been asked for; it is usually issued within an hour.`, expiresAt: null };
    }
    const entry = await absentOk(async () => (await c.getCertificateMapEntry({ name: n.entry }))[0]);
    if (!entry) {
      await create(() => c.createCertificateMapEntry({ parent: n.mapName, certificateMapEntryId: n.id, certificateMapEntry: { hostname, certificates: [n.certificate], labels: { ...CERT_LABELS } } }));
    }
    const answer = answerOf(hostname, cert, entry);
    const updated = dateOf(cert.updateTime);
    if (answer.state === "failed" && updated && now.getTime() - updated.getTime() >= FAILED_RETRY_HOURS * 3_600_000) {
      // A failed managed certificate stays failed: remove it so the next check asks afresh (the merchant may have fixed the cause).
      await release(hostname);
    }
    return answer;
  }

  async function release(hostname: string): Promise<void> {
    const c = await api();
    const n = names(hostname);
    // The entry first: a certificate a map entry names cannot be deleted.
    const entry = await absentOk(async () => (await c.deleteCertificateMapEntry({ name: n.entry }))[0]);
    if (entry) await absentOk(() => entry.promise());
    await absentOk(async () => (await c.deleteCertificate({ name: n.certificate }))[0]);
  }

  return {
    name: "certificate-manager",
    caaDomains: MANAGED_CAA_DOMAINS,
    async request(hostname, now, context) {
      if (context?.active && !readsThisHour(hostname, now)) return { state: "issued", expiresAt: null };
      try {
        return await ask(hostname, now);
      } catch (error) {
        const code = codeOf(error);
        logWarn("domains.cert_unavailable", "certificate manager call failed", { hostname, code: code ?? null, reason: error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300) });
        return { state: "unavailable", problem: unavailableSentence(code) };
      }
    },
    release,
  };
}
