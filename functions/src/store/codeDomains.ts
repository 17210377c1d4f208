// Codes on a branded domain (docs/domains.md, "Codes on a domain"): the workspace's default domain for new
// codes (a field of the workspace document) and the codes whose links must follow a domain's state.
// A code names its domain by id (`domainId`) and records whether its stored link and PNG use the domain's
// host (`onDomainHost`), so the codes left to change after a domain changes are one equality query.
import { FieldValue, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { codeRecord, codesOf, type QrCode } from "./codes";
import { readDomain, type Domain } from "./domains";

const workspaceDoc = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);

/** The workspace's default domain for new codes; null when it has none. */
export async function readDefaultDomainId(merchantId: string): Promise<string | null> {
  const value = (await workspaceDoc(merchantId).get()).get("defaultDomainId") as unknown;
  return typeof value === "string" ? value : null;
}

/**
 * Sets (or, with null, clears) the default domain. The domain is read in the same transaction and
 * `check` refuses it (throwing) unless it may be the default, so a domain deleted meanwhile is never set.
 */
export async function setDefaultDomainId(merchantId: string, domainId: string | null, check: (domain: Pick<Domain, "state" | "hostname"> | undefined) => void): Promise<void> {
  if (domainId === null) {
    await workspaceDoc(merchantId).update({ defaultDomainId: FieldValue.delete() }).catch(notFound(merchantId));
    return;
  }
  await db().runTransaction(async (tx) => {
    const snap = await tx.get(db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("domains").doc(domainId));
    check(snap.exists ? { state: snap.get("state") as Domain["state"], hostname: snap.get("hostname") as string } : undefined);
    tx.update(workspaceDoc(merchantId), { defaultDomainId: domainId });
  }).catch(notFound(merchantId));
}

const notFound = (merchantId: string) => (error: unknown) => {
  if ((error as { code?: number }).code === 5) throw new AppError("NOT_FOUND", `No workspace ${merchantId}`);
  throw error;
};

/** Domains of one workspace by id, each read once (a call's codes name one or a few); absent ids are left out. */
export async function readDomainsById(merchantId: string, domainIds: Iterable<string>): Promise<Map<string, Domain>> {
  const ids = [...new Set(domainIds)];
  const found = await Promise.all(ids.map((id) => readDomain(merchantId, id)));
  return new Map(found.flatMap((d) => (d ? [[d.domainId, d] as const] : [])));
}

/** Codes naming `domainId` whose stored link is not yet on the side `onDomainHost` says, at most `limit`. */
export async function codesToMove(merchantId: string, domainId: string, onDomainHost: boolean, limit: number): Promise<QrCode[]> {
  const snap = await codesOf(merchantId).withConverter(codeRecord).where("domainId", "==", domainId).where("onDomainHost", "==", !onDomainHost).limit(limit).get();
  return snap.docs.map((d) => d.data());
}

/**
 * Moves one code's stored link to `link` (on the domain's host or the default one), if it still names
 * `domainId` and is not there yet; resolves to whether it moved. Its PNG is re-rendered after this commits.
 */
export async function moveCodeLink(merchantId: string, codeId: string, domainId: string, onDomainHost: boolean, link: string): Promise<boolean> {
  const ref = codesOf(merchantId).withConverter(codeRecord).doc(codeId);
  return db().runTransaction(async (tx: Transaction) => {
    const code = (await tx.get(ref)).data();
    if (!code || code.domainId !== domainId || code.onDomainHost === onDomainHost) return false;
    tx.update(codesOf(merchantId).doc(codeId), { dynamicLink: link, onDomainHost });
    return true;
  });
}
