// What serving a custom host reads (docs/domains.md, "Serving"): the host's claim, which says whose
// domain holds it and whether it is served (store/domains.ts keeps `serving` beside the claim), and the
// workspace's rootUrl, where `/` on its hosts redirects, with its name and page colours for the pages
// its hosts answer (workspace fields; docs/data-model.md). One document each, so a scan on a custom host
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
  return rootUrlOf((await db().collection(COLLECTIONS.workspaces).doc(merchantId).get()).get("rootUrl"));
}

const rootUrlOf = (value: unknown): string | null => (typeof value === "string" && value ? value : null);

/** Text and page colours of a workspace's pages on its hosts, "#RRGGBB" each (checked when set: domains/service.ts). */
export interface PageColours {
  foreground: string;
  background: string;
}

function pageColoursOf(value: unknown): PageColours | null {
  const { foreground, background } = (value ?? {}) as Partial<Record<keyof PageColours, unknown>>;
  return typeof foreground === "string" && typeof background === "string" ? { foreground, background } : null;
}

/** What a merchant's host shows of the workspace, from its one document: where `/` goes, its name and page colours. */
export interface HostPages {
  rootUrl: string | null;
  name: string;
  pageColours: PageColours | null;
}

export async function readHostPages(merchantId: string): Promise<HostPages> {
  const snap = await db().collection(COLLECTIONS.workspaces).doc(merchantId).get();
  const name: unknown = snap.get("name");
  return { rootUrl: rootUrlOf(snap.get("rootUrl")), name: typeof name === "string" ? name : "", pageColours: pageColoursOf(snap.get("pageColours")) };
}

/** Sets (or with null, removes) the colours of the workspace's pages on its hosts; the caller has validated them. */
export async function setPageColours(merchantId: string, colours: PageColours | null): Promise<void> {
  await updateWorkspace(merchantId, { pageColours: colours ? { foreground: colours.foreground, background: colours.background } : FieldValue.delete() });
}

/** Sets (or with null, removes) the workspace's rootUrl; the caller has validated it. */
export async function setRootUrl(merchantId: string, rootUrl: string | null): Promise<void> {
  await updateWorkspace(merchantId, { rootUrl: rootUrl ?? FieldValue.delete() });
}

async function updateWorkspace(merchantId: string, fields: Record<string, unknown>): Promise<void> {
  try {
    await db().collection(COLLECTIONS.workspaces).doc(merchantId).update(fields);
  } catch (error) {
    if ((error as { code?: number }).code === 5) throw new AppError("NOT_FOUND", `No workspace ${merchantId}`);
    throw error;
  }
}
