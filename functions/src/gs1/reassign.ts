// An operator's reassignment of a GS1 key to another workspace (issue 37, item 1: "an operator can reassign
// it (admin CLI) after checking the claimant's GS1 company prefix"). The admin CLI (scripts/admin.ts,
// gs1-reassign) only parses its options and calls reassignKey. Rules: docs/gs1-resolver.md, "Reassigning
// a key".
import { AppError } from "../core/errors";
import { ids } from "../core/ids";
import { logGs1KeyReassigned } from "../core/log";
import { reassignGs1Key, type StoredGs1Item } from "../store/gs1Items";
import { checkKeyValue, Gs1SyntaxError, parseDigitalLinkPath, primaryKeyDef, type PrimaryKeyDef } from "./keys";
import { COMPANY_PREFIX, prefixOffset, restrictedNumberProblem } from "./prefixes";
import { resolverHost } from "./service";

const invalid = (message: string, hint?: string) => new AppError("VALIDATION_FAILED", message, { hint });

/**
 * The primary key an operator names: a bare GTIN (8, 12, 13 or 14 digits), or a GS1 Digital Link path or
 * URI of the primary key alone (`/414/9520123456788`, `https://host/01/09506000134352`). Ownership is per
 * primary key, so a path with qualifiers is refused rather than silently widened.
 */
export function keyOfReference(reference: string): { def: PrimaryKeyDef; value: string } {
  const raw = reference.trim();
  try {
    if (/^[0-9]+$/.test(raw)) {
      const def = primaryKeyDef("01")!;
      return { def, value: checkKeyValue(def, raw) };
    }
    const path = /^https?:\/\//i.test(raw) ? new URL(raw).pathname : raw;
    const parsed = parseDigitalLinkPath(path);
    if (parsed.qualifiers.length) {
      throw invalid(`${raw} names qualifiers: a key has one owner for all its lots and serials`, `Give the primary key alone, e.g. /${parsed.key.ai}/${parsed.value}.`);
    }
    return { def: parsed.key, value: parsed.value };
  } catch (error) {
    if (error instanceof Gs1SyntaxError) throw invalid(`--key: ${error.message}`, "Give a GTIN, or a GS1 Digital Link path such as /01/09506000134352 or /414/9520123456788.");
    if (error instanceof TypeError) throw invalid(`--key: ${raw} is not a URI`);
    throw error;
  }
}

/**
 * Why `companyPrefix` does not check out for the key, or undefined when the key begins with it. The
 * prefix is 4 to 12 digits (GS1 company prefixes are). Exceptions, refused or handled:
 * - a GTIN-8 (stored as 000000 + 8 digits) has no company prefix: GS1 Member Organisations allocate each
 *   GTIN-8 on its own, so the operator checks that allocation and gives the GTIN-8's first 7 digits;
 * - numbers that belong to no company (restricted circulation, coupons: prefixes.ts) cannot be reassigned.
 */
export function companyPrefixProblem(def: PrimaryKeyDef, value: string, companyPrefix: string): string | undefined {
  if (!COMPANY_PREFIX.test(companyPrefix)) return `--company-prefix must be a GS1 company prefix: 4 to 12 digits, not "${companyPrefix.slice(0, 20)}"`;
  const restricted = restrictedNumberProblem(def, value);
  if (restricted) return `${restricted} and cannot be reassigned`;
  if ((def.ai === "01" || def.ai === "8006") && value.slice(1, 14).startsWith("00000")) {
    const gtin8 = value.slice(6, 14);
    if (companyPrefix !== gtin8.slice(0, 7)) {
      return `GTIN-8 ${gtin8} has no GS1 company prefix (GTIN-8s are allocated one by one): after checking its allocation, give its first 7 digits ${gtin8.slice(0, 7)} as --company-prefix`;
    }
    return undefined;
  }
  const offset = prefixOffset(def.ai);
  if (value.slice(offset, offset + companyPrefix.length) === companyPrefix) return undefined;
  const upcHint = def.ai === "01" && value.startsWith("00") && !companyPrefix.startsWith("0") ? " (a U.P.C. company prefix is written with a leading 0 as a GS1 company prefix)" : "";
  const where = offset ? ` (its company prefix starts at digit ${offset + 1}, after the ${def.ai === "8003" ? "fixed 0" : def.ai === "00" ? "extension digit" : "indicator digit"})` : "";
  return `${def.title} ${value} does not begin with GS1 company prefix ${companyPrefix}${where}${upcHint}`;
}

export interface Reassigned {
  ai: string;
  value: string;
  host: string;
  from: string;
  to: string;
  /** How many of the previous owner's items were deleted (every page). */
  itemsRemoved: number;
  /** The previous owner's items, deleted with the reassignment (the first GS1_REASSIGN_LISTED_MAX): the operator's record of what they served. */
  removed: Array<{ itemId: string; path: string; links: StoredGs1Item["links"] }>;
}

/**
 * Moves a key to `to` after the company prefix check; the previous owner's items of the key (every
 * qualifier level) are deleted in the same transaction, and the action is audited in both workspaces and
 * logged (gs1.key_reassigned). Any refusal writes nothing.
 */
export async function reassignKey(input: { key: string; to: string; companyPrefix: string; by: string; reason?: string }): Promise<Reassigned> {
  const { def, value } = keyOfReference(input.key);
  const problem = companyPrefixProblem(def, value, input.companyPrefix.trim());
  if (problem) throw invalid(problem, "Check the claimant's GS1 company prefix with GS1 (e.g. GEPIR / Verified by GS1) before reassigning.");
  const to = ids.merchantId.safeParse(input.to);
  if (!to.success) throw invalid(`--to: "${input.to.slice(0, 40)}" is not a workspace id (a merchantId)`);
  const host = resolverHost();
  const { previousOwner, itemsRemoved, removed } = await reassignGs1Key({ host, ai: def.ai, value, to: input.to, by: input.by, reason: input.reason ?? "" });
  logGs1KeyReassigned({ host, ai: def.ai, value, from: previousOwner, to: input.to, by: input.by, itemsRemoved });
  return { ai: def.ai, value, host, from: previousOwner, to: input.to, itemsRemoved, removed: removed.map((i) => ({ itemId: i.itemId, path: i.path, links: i.links })) };
}
