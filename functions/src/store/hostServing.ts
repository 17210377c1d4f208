// What serving a custom host reads (docs/domains.md, "Serving"): the host's claim, which says whose
// domain holds it and whether it is served (store/domains.ts keeps `serving` beside the claim), and the
// workspace's rootUrl, where `/` on its hosts redirects. One document each, so a scan on a custom host
// costs one read more than on the service's own host, read beside the link.
import { FieldValue } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { readRecords, recordConverter } from "./records";

export interface ServedHost {
  merchantId: string;
  domainId: string;
  /** Active, or invalid after having been active (the grace before it is detached). */
  serving: boolean;
}

const claimRecord = recordConverter<ServedHost>((d) => ({ merchantId: d.merchantId, domainId: d.domainId, serving: d.serving === true }));
const claimRef = (hostname: string) => db().collection(COLLECTIONS.domainHosts).doc(hostname).withConverter(claimRecord);

/** The claims of several hosts in one round trip, in the order asked (undefined: nobody holds it). */
export async function readHostClaims(hostnames: string[]): Promise<Array<ServedHost | undefined>> {
  return readRecords(hostnames.map(claimRef));
}

/** The workspace's rootUrl (an http(s) URL, checked when it was set: domains/service.ts), or null. */
export async function readRootUrl(merchantId: string): Promise<string | null> {
  const value: unknown = (await db().collection(COLLECTIONS.workspaces).doc(merchantId).get()).get("rootUrl");
  return typeof value === "string" && value ? value : null;
}

/** Sets (or with null, removes) the workspace's rootUrl; the caller has validated it. */
export async function setRootUrl(merchantId: string, rootUrl: string | null): Promise<void> {
  try {
    await db().collection(COLLECTIONS.workspaces).doc(merchantId).update({ rootUrl: rootUrl ?? FieldValue.delete() });
  } catch (error) {
    if ((error as { code?: number }).code === 5) throw new AppError("NOT_FOUND", `No workspace ${merchantId}`);
    throw error;
  }
}
