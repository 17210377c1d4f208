// A branded domain's app association files (docs/domains.md, "App links"):
//   workspaces/{m}/domains/{domainId}/wellKnown/files   { apple, android: the JSON text to serve or null,
//                                                          updatedAt, updatedBy }
// One small document per domain (each file at most APP_LINK_MAX_BYTES), written only by its owner's
// changes; serving reads the host's claim (domainHosts/{hostname}) and then this document.
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { addAuditEvent } from "./audit";
import { COLLECTIONS } from "./collections";
import { dateOrNull } from "./records";
import type { DomainAudit } from "./domains";

export const APP_LINK_FILES = ["apple", "android"] as const;
export type AppLinkFile = (typeof APP_LINK_FILES)[number];

export interface StoredAppLinks {
  apple: string | null;
  android: string | null;
  updatedAt: Date | null;
}

const domainRef = (merchantId: string, domainId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("domains").doc(domainId);
/** The files' document of a domain (deleteDomain removes it with the domain). */
export const appLinksRef = (merchantId: string, domainId: string) => domainRef(merchantId, domainId).collection("wellKnown").doc("files");

const stored = (data: FirebaseFirestore.DocumentData | undefined): StoredAppLinks => ({
  apple: typeof data?.apple === "string" ? data.apple : null,
  android: typeof data?.android === "string" ? data.android : null,
  updatedAt: dateOrNull(data?.updatedAt),
});

/** The domain's host and files; undefined when the workspace has no such domain. */
export async function readAppLinks(merchantId: string, domainId: string): Promise<(StoredAppLinks & { hostname: string }) | undefined> {
  const [domain, files] = await Promise.all([domainRef(merchantId, domainId).get(), appLinksRef(merchantId, domainId).get()]);
  if (!domain.exists) return undefined;
  return { hostname: domain.get("hostname") as string, ...stored(files.data()) };
}

/**
 * Sets the files given (text to serve, or null to remove; a file not given is kept) with an audit event,
 * in one transaction with the check that the domain is this workspace's.
 */
export async function saveAppLinks(merchantId: string, domainId: string, files: Partial<Record<AppLinkFile, string | null>>, who: DomainAudit, now: Date): Promise<StoredAppLinks & { hostname: string }> {
  return db().runTransaction(async (tx) => {
    const [domain, current] = await Promise.all([tx.get(domainRef(merchantId, domainId)), tx.get(appLinksRef(merchantId, domainId))]);
    if (!domain.exists) throw new AppError("NOT_FOUND", `No domain ${domainId} in this workspace`);
    const next = { ...stored(current.data()), ...files, updatedAt: now };
    tx.set(appLinksRef(merchantId, domainId), { apple: next.apple, android: next.android, updatedAt: Timestamp.fromDate(now), updatedBy: who.uid });
    const changed = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v === null ? "removed" : "set"]));
    addAuditEvent(tx, { merchantId, uid: who.uid, authMethod: who.authMethod, keyPrefix: who.keyPrefix, tool: who.tool, status: "ok", durationMs: 0, details: { domainId, hostname: domain.get("hostname") as string, change: "app_links", ...changed } });
    return { hostname: domain.get("hostname") as string, ...next };
  });
}

/** The file to serve for a host, by the host's claim (a verified domain's); null when there is none. */
export async function appLinkForHost(hostname: string, file: AppLinkFile): Promise<string | null> {
  const claim = await db().collection(COLLECTIONS.domainHosts).doc(hostname).get();
  if (!claim.exists) return null;
  const files = await appLinksRef(claim.get("merchantId") as string, claim.get("domainId") as string).get();
  return stored(files.data())[file];
}
