// A workspace's named UTM templates: one array field `utmTemplates` of its workspace document (at most
// UTM_TEMPLATES_MAX entries of a few hundred bytes: bounded), changed in a transaction so two writers never
// lose each other's template. Campaign rules copy a template's parameters onto the code's link when the
// rules are set (campaigns/service.ts).
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";

export interface StoredUtmTemplate {
  name: string;
  source: string;
  medium: string;
  campaign?: string;
  term?: string;
  content?: string;
}

const workspace = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId);

/** What is stored, read defensively: entries that are not templates are dropped, never served. */
function templatesOf(raw: unknown): StoredUtmTemplate[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((t): t is StoredUtmTemplate => typeof t?.name === "string" && typeof t?.source === "string" && typeof t?.medium === "string");
}

export async function readUtmTemplates(merchantId: string): Promise<StoredUtmTemplate[]> {
  return templatesOf((await workspace(merchantId).get()).get("utmTemplates"));
}

/**
 * Applies `change` to the workspace's templates in one transaction and writes the result; `change` may
 * throw (nothing is written). Resolves to what `change` returned and the templates as written.
 */
export async function changeUtmTemplates<T>(merchantId: string, change: (templates: StoredUtmTemplate[]) => { templates: StoredUtmTemplate[]; result: T }): Promise<{ result: T; templates: StoredUtmTemplate[] }> {
  const ref = workspace(merchantId);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    if (!snap.exists) throw new AppError("NOT_FOUND", "No such workspace");
    const { templates, result } = change(templatesOf(snap.get("utmTemplates")));
    // Firestore refuses undefined: optional parameters are left out when absent.
    tx.update(ref, { utmTemplates: templates.map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined))) });
    return { result, templates };
  }, { maxAttempts: 30 }); // as the other one-document transactions: writers of one workspace may race
}
