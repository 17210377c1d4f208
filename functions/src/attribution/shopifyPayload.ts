// Reading Shopify's order and refund webhooks (docs/shopify.md): only the fields attribution needs, each
// checked and bounded; everything else in Shopify's large payloads is ignored. Pure: no Firestore.
import { z } from "zod";
import { AppError } from "../core/errors";
import { parseOrThrow } from "../core/validation";
import { currencyExponent } from "./currency";

/** The click id's name as a cart (note) attribute and in the landing URL, unless the workspace set its own (clickIdParam). */
export const CLICK_ID_PARAM = "svc_sid";
/** A click id longer than this is no click id of ours. */
const CLICK_ID_MAX = 512;

/**
 * Shopify's ids are 64-bit integers (its documented example order is 820982911946154508), beyond what a
 * JavaScript number holds exactly: JSON.parse would round them. Integers of 16 digits or more are read as
 * strings instead. Run on the verified raw body, only to read it.
 */
export function parseShopifyJson(raw: Buffer): unknown {
  const text = raw.toString("utf8").replace(/(:\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("MALFORMED_JSON", "The webhook body is not valid JSON");
  }
}

const id = z.union([z.string().regex(/^\d{1,20}$/, "an id is digits"), z.int().min(0)]).transform(String);
const decimal = z.string().max(32).regex(/^-?\d{1,18}(\.\d{1,6})?$/, "an amount is a decimal number such as 369.97");
const currency = z.string().regex(/^[A-Z]{3}$/, "a currency is an ISO 4217 code such as USD");
const money = z.looseObject({ shop_money: z.looseObject({ amount: decimal, currency_code: currency }) });

const orderSchema = z.looseObject({
  id,
  currency,
  total_price: decimal,
  total_price_set: money.optional().nullable(),
  landing_site: z.string().max(8192).optional().nullable(),
  note_attributes: z
    .array(z.looseObject({ name: z.string().max(256), value: z.unknown() }))
    .max(250)
    .optional()
    .nullable(),
  customer: z.looseObject({ id: id.optional().nullable() }).optional().nullable(),
});

const refundSchema = z.looseObject({
  id,
  order_id: id,
  transactions: z
    .array(z.looseObject({ kind: z.string().max(40), status: z.string().max(40), amount: decimal, currency: currency.optional().nullable() }))
    .max(250)
    .optional()
    .nullable(),
  refund_line_items: z
    .array(z.looseObject({ subtotal_set: money.optional().nullable(), total_tax_set: money.optional().nullable() }))
    .max(1000)
    .optional()
    .nullable(),
});

/** "369.97" USD as 36997: exact, by digits, never through a float. */
export function toMinorUnits(amount: string, code: string): number {
  const exponent = currencyExponent(code);
  if (exponent === undefined) throw new AppError("VALIDATION_FAILED", `${code} is not an ISO 4217 currency sales are counted in`);
  const [whole, fraction = ""] = amount.replace(/^-/, "").split(".");
  const kept = fraction.replace(/0+$/, "");
  if (kept.length > exponent) throw new AppError("VALIDATION_FAILED", `${amount} ${code} has more decimals than ${code} has minor units (${exponent})`);
  const units = Number(whole + fraction.padEnd(exponent, "0").slice(0, exponent));
  if (!Number.isSafeInteger(units)) throw new AppError("VALIDATION_FAILED", `${amount} ${code} is too large`);
  return amount.startsWith("-") ? -units : units;
}

/** The click id an order carries: a cart attribute first (what checkout keeps), else the landing URL's. */
export function clickIdOf(order: { note_attributes?: Array<{ name: string; value: unknown }> | null; landing_site?: string | null }, param = CLICK_ID_PARAM): string | undefined {
  const attribute = order.note_attributes?.find((a) => a.name === param)?.value;
  if (typeof attribute === "string" && attribute.length > 0 && attribute.length <= CLICK_ID_MAX) return attribute;
  if (order.landing_site) {
    try {
      // landing_site is a path with its query ("/products/mug?svc_sid=..."), sometimes a whole URL.
      const value = new URL(order.landing_site, "https://shop.invalid").searchParams.get(param);
      if (value && value.length <= CLICK_ID_MAX) return value;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface ShopifyOrder {
  orderId: string;
  amount: number;
  currency: string;
  clickId?: string;
  customerId?: string;
}

export function readOrder(payload: unknown, clickIdParam = CLICK_ID_PARAM): ShopifyOrder {
  const order = parseOrThrow(orderSchema, payload, "order");
  // The shop's money: what the shop is paid in, whatever the buyer saw.
  const shopMoney = order.total_price_set?.shop_money;
  const currencyCode = shopMoney?.currency_code ?? order.currency;
  const amount = toMinorUnits(shopMoney?.amount ?? order.total_price, currencyCode);
  if (amount < 0) throw new AppError("VALIDATION_FAILED", "An order's total is not negative");
  const clickId = clickIdOf(order, clickIdParam);
  const customerId = order.customer?.id ?? undefined;
  return { orderId: order.id, amount, currency: currencyCode, ...(clickId ? { clickId } : {}), ...(customerId ? { customerId } : {}) };
}

export interface ShopifyRefund {
  refundId: string;
  orderId: string;
  /** Minor units refunded; 0 when the refund moved no money (a restock alone). */
  amount: number;
}

/**
 * A refund's amount: its successful refund transactions when it has any (the money that moved), else its
 * refunded lines' subtotal and tax (Shopify's documented example carries no transactions).
 */
export function readRefund(payload: unknown, orderCurrency?: string): ShopifyRefund {
  const refund = parseOrThrow(refundSchema, payload, "refund");
  const moved = (refund.transactions ?? []).filter((t) => t.kind === "refund" && t.status === "success");
  let amount = 0;
  if (moved.length) {
    for (const t of moved) amount += toMinorUnits(t.amount, t.currency ?? orderCurrency ?? "USD");
  } else {
    for (const line of refund.refund_line_items ?? []) {
      for (const part of [line.subtotal_set, line.total_tax_set]) if (part) amount += toMinorUnits(part.shop_money.amount, part.shop_money.currency_code);
    }
  }
  return { refundId: refund.id, orderId: refund.order_id, amount: Math.max(0, amount) };
}
