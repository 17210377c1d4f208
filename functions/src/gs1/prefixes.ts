// GS1 company prefixes and numbers that belong to no company (docs/gs1-resolver.md, "Who may claim a key").
// Pure: the claim path (gs1/service.ts) and the operator's reassignment (gs1/reassign.ts) both use it.
import type { PrimaryKeyDef } from "./keys";

/** Where the GS1 company prefix starts in a key's canonical value (the digits before it are not the company's). */
const PREFIX_OFFSET: Record<string, number> = {
  // GTIN-14: indicator digit, then the company prefix. GTIN-8/12/13 are stored padded to 14 digits, so
  // their prefix starts there too: a GTIN-13's first digit, or a GTIN-12's U.P.C. company prefix, which
  // as a GS1 company prefix is written with its leading 0 (U.P.C. 614141 is GS1 0614141).
  "01": 1,
  // ITIP: a GTIN-14 followed by piece and total.
  "8006": 1,
  // SSCC: extension digit, then the company prefix.
  "00": 1,
  // GRAI: a fixed 0, then the company prefix.
  "8003": 1,
};

export const prefixOffset = (ai: string) => PREFIX_OFFSET[ai] ?? 0;

/** GS1 company prefixes are 4 to 12 digits (a GTIN-8 has none: its first 7 digits stand in, see below). */
export const COMPANY_PREFIX = /^[0-9]{4,12}$/;

/** A GTIN-8 as stored (000000 + 8 digits), or undefined for a longer GTIN. */
const gtin8Of = (def: PrimaryKeyDef, value: string) => ((def.ai === "01" || def.ai === "8006") && value.slice(1, 14).startsWith("00000") ? value.slice(6, 14) : undefined);

/**
 * Why the key belongs to no company, or undefined. GS1 General Specifications 1.4.4 (GS1 Prefixes) and
 * 2.1.11 (restricted circulation numbers): in GTIN-13 form, 020-029 and 200-299 are RCNs within a
 * geographic region (in-store and variable-measure numbers; a GTIN-12 of U.P.C. number system 2 reads as
 * 02), 040-049 RCNs within a company (U.P.C. number system 4), 050-059 coupons (U.P.C. number system 5),
 * 980 refund receipts, 981-984 and 99 coupons; a GTIN-8 beginning with 0 or 2 is an RCN-8. Many retailers
 * reuse the same such numbers, so on a host every workspace shares none of them can have one owner.
 */
export function restrictedNumberProblem(def: PrimaryKeyDef, value: string): string | undefined {
  if (def.ai !== "01" && def.ai !== "8006") return undefined;
  const gtin8 = gtin8Of(def, value);
  if (gtin8 !== undefined) {
    return gtin8[0] === "0" || gtin8[0] === "2" ? `GTIN-8 ${gtin8} is a restricted circulation number (RCN-8): it belongs to no company` : undefined;
  }
  const gtin13 = value.slice(1, 14);
  const kind = /^(02|2)/.test(gtin13)
    ? "a restricted circulation number (in-store or variable-measure, within a geographic region)"
    : gtin13.startsWith("04")
      ? "a restricted circulation number (within a company)"
      : /^(05|98[1-4]|99)/.test(gtin13)
        ? "a coupon number"
        : gtin13.startsWith("980")
          ? "a refund receipt number"
          : undefined;
  if (!kind) return undefined;
  const prefix = /^(98|99)/.test(gtin13) ? gtin13.slice(0, 3) : gtin13.slice(0, 2);
  return `${def.title} ${value} is ${kind} (GS1 prefix ${prefix}): it belongs to no company`;
}

/**
 * The company prefixes the key may begin with: the leading digits from the prefix's offset, 4 to 12 of
 * them (a claim is matched against every verified prefix among these). A GTIN-8 gives its first 7 digits,
 * as an operator names it (reassign.ts).
 */
export function prefixCandidates(def: PrimaryKeyDef, value: string): string[] {
  const gtin8 = gtin8Of(def, value);
  if (gtin8 !== undefined) return [gtin8.slice(0, 7)];
  const digits = /^[0-9]*/.exec(value.slice(prefixOffset(def.ai)))![0];
  const out: string[] = [];
  for (let n = 4; n <= Math.min(12, digits.length); n++) out.push(digits.slice(0, n));
  return out;
}

/** Whether `prefix` is one of the key's candidates (prefixCandidates). */
export const keyHasPrefix = (def: PrimaryKeyDef, value: string, prefix: string) => prefixCandidates(def, value).includes(prefix);
