// In-store sales (docs/attribution.md, "In store"): a QR code hands each person who scans it a one-time
// discount code (from a list the merchant uploaded, or generated here) on a page after the scan; the till
// redeems it through the API, which records it as a sale attributed to that scan's code, rule and A/B arm.
// One person (one click) is shown one code, again on a reload; a code counts once however often the till
// sends it.
import { randomInt } from "node:crypto";
import { z } from "zod";
import { getConfig } from "../core/config";
import { text } from "../core/validation";
import { readLink, type Link } from "../store/codes";
import { addDiscountCodeDocs, claimDiscountCode, redeemDiscountCode } from "../store/conversions";
import { enableDiscounts } from "./admin";
import { appendClickId } from "./append";
import { verifyClickId } from "./clickId";
import { saveSale } from "./service";
import { workspaceAttribution } from "./settings";

export const DISCOUNTS_PER_CALL = 1_000;
const DISCOUNT_CODE = /^[A-Za-z0-9][A-Za-z0-9-]{3,31}$/;
/** Generated codes: no 0/O, 1/I/L, so a cashier can type what the customer's phone shows. */
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** Letters in either case: a code is kept and compared in capitals (normal). */
const discountCode = z.string().regex(DISCOUNT_CODE, "a discount code is 4 to 32 letters, digits and -, starting with a letter or digit");
const normal = (code: string) => code.toUpperCase();

export const DiscountPoolSchema = z
  .strictObject({
    codes: z.array(discountCode).min(1).max(DISCOUNTS_PER_CALL).optional().describe("Your own one-time codes"),
    generate: z.int().min(1).max(DISCOUNTS_PER_CALL).optional().describe("How many codes the service should make"),
  })
  .refine((b) => (b.codes === undefined) !== (b.generate === undefined), "give codes or generate, not both and not neither");
export const DiscountPoolResultSchema = z.object({ codeId: z.string(), added: z.int(), codes: z.array(z.string()).describe("The codes added (one the workspace had already is skipped)") }).meta({ title: "DiscountPool" });

export const RedeemSchema = z
  .strictObject({
    discountCode,
    amount: z.int().min(0).max(1e12).describe("Integer, in the currency's minor unit"),
    currency: z.string().regex(/^[A-Z]{3}$/, "currency is an ISO 4217 code in capitals: EUR, JPY, KWD"),
    invoiceId: text(200),
  })
  .meta({ title: "RedeemDiscount" });

function generated(count: number): string[] {
  const one = () => Array.from({ length: 8 }, (_, i) => (i === 4 ? "-" : "") + ALPHABET[randomInt(ALPHABET.length)]).join("");
  return [...new Set(Array.from({ length: count }, one))];
}

export async function addDiscountCodes(merchantId: string, codeId: string, body: z.output<typeof DiscountPoolSchema>, now = new Date()): Promise<{ codeId: string; added: number; codes: string[] }> {
  await enableDiscounts(merchantId, codeId);
  const added = await addDiscountCodeDocs(merchantId, codeId, body.codes ? [...new Set(body.codes.map(normal))] : generated(body.generate!), now);
  return { codeId, added: added.length, codes: added };
}

export async function redeemDiscount(merchantId: string, body: z.output<typeof RedeemSchema>, now = new Date()): Promise<{ saleId: string; duplicate: boolean }> {
  const attribution = await redeemDiscountCode(merchantId, normal(body.discountCode), body.invoiceId, now);
  return saveSale(merchantId, attribution, body, { source: "till", now });
}

/** Where a discount code's scan goes first: the page that shows the person their code, on the service's own host (a merchant's host serves codes only). */
export const discountPagePath = (uniqueQRCodeID: string, param: string, token: string) => appendClickId(`${getConfig().dynamicLinkUrl}/qr/${uniqueQRCodeID}/discount`, param, token);

export type DiscountView = { kind: "missing" } | { kind: "empty"; onward: string } | { kind: "code"; code: string; onward: string };

/**
 * What the discount page of a scan (its click id in the address) shows: the person's one-time code and the
 * code's destination to go on to. "missing" when the click id is not this code's or not valid: never a
 * code for it.
 */
export async function discountFor(uniqueQRCodeID: string, query: URLSearchParams, now = new Date()): Promise<DiscountView> {
  const link: Link | undefined = await readLink(uniqueQRCodeID);
  if (!link || !link.discounts || link.takenDown) return { kind: "missing" };
  const settings = await workspaceAttribution(link.merchantId);
  const token = query.get(settings.clickIdParam);
  if (!token) return { kind: "missing" };
  const verdict = verifyClickId(token, { merchantId: link.merchantId, windowDays: settings.windowDays, now });
  if ("refused" in verdict || verdict.facts.codeId !== link.codeId) return { kind: "missing" };
  const { facts } = verdict;
  const code = await claimDiscountCode(link.merchantId, link.codeId, { codeId: link.codeId, campaign: link.campaign, rule: facts.rule, scanId: facts.scanId, person: facts.person, clickAt: facts.at }, now);
  const onward = appendClickId(link.destinationUrl, settings.clickIdParam, token);
  return code ? { kind: "code", code, onward } : { kind: "empty", onward };
}
