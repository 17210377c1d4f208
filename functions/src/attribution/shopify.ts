// Shopify orders as sales (docs/shopify.md): a workspace connects a shop with the secret Shopify signs its
// webhooks with; `orders/paid` becomes a sale, `refunds/create` and `orders/cancelled` reverse it. A
// webhook is trusted only after its HMAC-SHA256 over the exact raw body verifies; a replayed delivery
// (same X-Shopify-Webhook-Id) is dropped; nothing is written for a body that does not verify.
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import type { Caller } from "../auth/caller";
import { openSecret, sealSecret } from "../webhooks/secrets";
import { deleteShop, findShop, forgetDelivery, listShops, markDelivery, MAX_SHOPS, putShop, type ShopifyShop } from "../store/shopifyShops";
import { reverseSale, trackSale } from "./service";
import { workspaceAttribution } from "./settings";
import { parseShopifyJson, readOrder, readRefund } from "./shopifyPayload";

export const SHOPIFY_TOPICS = ["orders/paid", "refunds/create", "orders/cancelled"] as const;
export const SHOPIFY_WEBHOOK_PATH = "/api/shopify/webhooks";

export const ShopDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(100, "a shop domain is at most 100 characters")
  .regex(/^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/, "a shop domain is the shop's <name>.myshopify.com address");

export const ConnectShopSchema = z
  .object({
    shopDomain: ShopDomainSchema.describe("The shop's permanent address, <name>.myshopify.com"),
    webhookSecret: z
      .string()
      .min(16, "the webhook secret is at least 16 characters")
      .max(256, "the webhook secret is at most 256 characters")
      .regex(/^[\x21-\x7e]+$/, "the webhook secret is visible ASCII characters, no spaces")
      .describe("The secret Shopify signs webhooks with (Settings > Notifications > Webhooks, or the app's client secret). Write-only: never returned"),
  })
  .strict();

export const ShopParamsSchema = z.object({ shopDomain: ShopDomainSchema }).strict();

export const PublicShopSchema = z
  .object({
    shopDomain: z.string(),
    createdAt: z.string().describe("ISO 8601"),
    topics: z.array(z.enum(SHOPIFY_TOPICS)).describe("The topics to subscribe to in Shopify, each to webhookUrl, format JSON"),
    webhookUrl: z.string().describe("Where Shopify sends the webhooks"),
  })
  .strict()
  .meta({ title: "ShopifyShop" });

export const ShopListSchema = z.object({ count: z.int(), max: z.int(), shops: z.array(PublicShopSchema) }).strict().meta({ title: "ShopifyShopList" });

export const ShopifyReceiptSchema = z
  .object({
    received: z.literal(true),
    outcome: z.enum(["sale", "reversal", "duplicate", "replay", "ignored", "refused"]).describe("What became of the delivery: a sale or a reversal written, a repeat of one already written, a replayed delivery dropped, a topic or order with nothing to attribute, or an order whose click id was refused"),
    detail: z.string().optional(),
  })
  .strict()
  .meta({ title: "ShopifyReceipt" });
export type ShopifyReceipt = z.infer<typeof ShopifyReceiptSchema>;

const binding = (merchantId: string, shopDomain: string) => `shopify/${merchantId}/${shopDomain}`;
const webhookUrl = () => `${getConfig().appUrl}${SHOPIFY_WEBHOOK_PATH}`;
const publicShop = (shop: ShopifyShop) => ({ shopDomain: shop.shopDomain, createdAt: shop.createdAt.toISOString(), topics: [...SHOPIFY_TOPICS], webhookUrl: webhookUrl() });

export async function connectShop(caller: Caller, input: z.infer<typeof ConnectShopSchema>, now = new Date()): Promise<z.infer<typeof PublicShopSchema> & { created: boolean }> {
  const shop: ShopifyShop = {
    shopDomain: input.shopDomain,
    merchantId: caller.merchantId,
    sealedSecret: sealSecret(input.webhookSecret, binding(caller.merchantId, input.shopDomain)),
    createdAt: now,
    createdBy: caller.uid,
  };
  const { created } = await putShop(shop);
  return { ...publicShop(created ? shop : ((await findShop(shop.shopDomain)) ?? shop)), created };
}

export async function shopList(caller: Caller): Promise<z.infer<typeof ShopListSchema>> {
  const shops = await listShops(caller.merchantId);
  return { count: shops.length, max: MAX_SHOPS, shops: shops.map(publicShop) };
}

export async function disconnectShop(caller: Caller, shopDomain: string): Promise<{ deleted: true; shopDomain: string }> {
  if (!(await deleteShop(caller.merchantId, shopDomain))) throw new AppError("NOT_FOUND", `No shop ${shopDomain} is connected to this workspace`);
  return { deleted: true, shopDomain };
}

/** HMAC-SHA256 of the exact bytes Shopify sent, base64, compared in constant time. */
export function shopifySignatureMatches(secret: string, raw: Buffer, header: string): boolean {
  const expected = createHmac("sha256", secret).update(raw).digest();
  const given = Buffer.from(header, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface ShopifyDelivery {
  shopDomain?: string;
  topic?: string;
  hmac?: string;
  webhookId?: string;
  raw: Buffer;
  now: Date;
}

const invoiceOf = (shopDomain: string, orderId: string) => `shopify:${shopDomain}:${orderId}`;

/** A click id the service refuses (forged, expired, another workspace's) is Shopify's order all the same: answered 200. */
const refusedOutcome = (error: unknown): ShopifyReceipt | undefined =>
  error instanceof AppError && error.httpStatus < 500 ? { received: true, outcome: "refused", detail: error.message } : undefined;

export async function receiveShopifyWebhook(d: ShopifyDelivery): Promise<ShopifyReceipt> {
  const unverified = new AppError("INVALID_TOKEN", "The webhook's X-Shopify-Hmac-Sha256 signature does not verify for its shop", {
    hint: "Connect the shop with the secret Shopify signs its webhooks with (POST /api/shopify/shops), and send the body unchanged.",
  });
  if (!d.hmac) throw new AppError("NO_AUTH", "A Shopify webhook carries its signature in X-Shopify-Hmac-Sha256");
  const domain = ShopDomainSchema.safeParse(d.shopDomain ?? "");
  if (!domain.success) throw unverified;
  const shop = await findShop(domain.data);
  // An unknown shop and a wrong signature answer alike: which shops are connected is nobody's business.
  if (!shop || !shopifySignatureMatches(openSecret(shop.sealedSecret, binding(shop.merchantId, shop.shopDomain)), d.raw, d.hmac)) throw unverified;
  const webhookId = (d.webhookId ?? "").trim();
  if (!webhookId || webhookId.length > 255) throw new AppError("VALIDATION_FAILED", "A Shopify webhook carries X-Shopify-Webhook-Id (at most 255 characters)");
  if (!(SHOPIFY_TOPICS as readonly string[]).includes(d.topic ?? "")) return { received: true, outcome: "ignored", detail: `Topic ${String(d.topic).slice(0, 60)} is not one the service reads` };
  if (!(await markDelivery(shop.shopDomain, webhookId, d.now))) return { received: true, outcome: "replay" };
  try {
    return await handleTopic(shop, d.topic as (typeof SHOPIFY_TOPICS)[number], parseShopifyJson(d.raw), d.now);
  } catch (error) {
    const refused = refusedOutcome(error);
    if (refused) return refused;
    // Not handled: forget the delivery so that Shopify's retry is handled, not dropped as a replay.
    await forgetDelivery(shop.shopDomain, webhookId).catch(() => undefined);
    throw error;
  }
}

async function handleTopic(shop: ShopifyShop, topic: (typeof SHOPIFY_TOPICS)[number], payload: unknown, now: Date): Promise<ShopifyReceipt> {
  const opts = { source: "shopify" as const, now };
  switch (topic) {
    case "orders/paid": {
      // The workspace may name its click id otherwise (clickIdParam): the storefront keeps it under that name.
      const order = readOrder(payload, (await workspaceAttribution(shop.merchantId)).clickIdParam);
      if (!order.clickId && !order.customerId) return { received: true, outcome: "ignored", detail: "The order carries no click id and no customer" };
      const sale = await trackSale(
        shop.merchantId,
        {
          ...(order.clickId ? { clickId: order.clickId } : {}),
          ...(order.customerId ? { customerExternalId: `shopify:${shop.shopDomain}:${order.customerId}` } : {}),
          amount: order.amount,
          currency: order.currency,
          invoiceId: invoiceOf(shop.shopDomain, order.orderId),
        },
        opts,
      );
      return { received: true, outcome: sale.duplicate ? "duplicate" : "sale" };
    }
    case "refunds/create": {
      const refund = readRefund(payload);
      if (refund.amount === 0) return { received: true, outcome: "ignored", detail: "The refund moved no money" };
      const r = await reverseSale(shop.merchantId, { invoiceId: invoiceOf(shop.shopDomain, refund.orderId), amount: refund.amount, reason: "refund", reversalId: `shopify:${shop.shopDomain}:refund:${refund.refundId}` }, opts);
      return { received: true, outcome: r.duplicate ? "duplicate" : r.reversed ? "reversal" : "ignored" };
    }
    case "orders/cancelled": {
      const order = readOrder(payload);
      const r = await reverseSale(shop.merchantId, { invoiceId: invoiceOf(shop.shopDomain, order.orderId), reason: "cancel", reversalId: `shopify:${shop.shopDomain}:cancel:${order.orderId}` }, opts);
      return { received: true, outcome: r.duplicate ? "duplicate" : r.reversed ? "reversal" : "ignored" };
    }
  }
}
