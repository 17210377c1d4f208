// Connected Shopify shops (docs/shopify.md; docs/data-model.md).
//   shopifyShops/{shopDomain}          the shop's workspace and its webhook secret, sealed: one read tells a
//                                      webhook whose shop it is and which secret signs it
//   shopifyDeliveries/{hash}           one webhook delivery seen (shop and X-Shopify-Webhook-Id), created
//                                      once: a replay finds it and is dropped; TTL 7 days
// A shop belongs to one workspace at a time; a workspace holds at most MAX_SHOPS.
import { Timestamp, type DocumentData } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { sha256Hex } from "../core/hash";
import { COLLECTIONS } from "./collections";
import { dateOf, recordConverter } from "./records";

export const MAX_SHOPS = 5;
/** Shopify retries a failed delivery for up to 48 hours; a week covers any replay of a retried one. */
export const DELIVERY_MEMORY_DAYS = 7;

export interface ShopifyShop {
  shopDomain: string;
  merchantId: string;
  /** The webhook signing secret, sealed (webhooks/secrets.ts): never returned, never logged. */
  sealedSecret: string;
  createdAt: Date;
  createdBy: string;
}

const readShop = (data: DocumentData, id: string): ShopifyShop => ({
  shopDomain: id,
  merchantId: String(data.merchantId),
  sealedSecret: String(data.sealedSecret),
  createdAt: dateOf(data.createdAt),
  createdBy: String(data.createdBy ?? ""),
});

const shops = () => db().collection(COLLECTIONS.shopifyShops).withConverter(recordConverter(readShop));

export async function findShop(shopDomain: string): Promise<ShopifyShop | undefined> {
  return (await shops().doc(shopDomain).get()).data();
}

export async function listShops(merchantId: string): Promise<ShopifyShop[]> {
  const snap = await shops().where("merchantId", "==", merchantId).limit(MAX_SHOPS + 1).get();
  return snap.docs.map((d) => d.data()).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

/**
 * Connects a shop to a workspace, or replaces the secret of a shop the workspace has connected already.
 * Another workspace's shop and a workspace's (MAX_SHOPS + 1)th are refused (409).
 */
export async function putShop(shop: ShopifyShop): Promise<{ created: boolean }> {
  return db().runTransaction(async (tx) => {
    const ref = shops().doc(shop.shopDomain);
    const [current, mine] = await Promise.all([tx.get(ref), tx.get(shops().where("merchantId", "==", shop.merchantId).limit(MAX_SHOPS + 1))]);
    const existing = current.data();
    if (existing && existing.merchantId !== shop.merchantId) {
      throw new AppError("CONFLICT", `The shop ${shop.shopDomain} is connected to another workspace`, { hint: "Disconnect it there first." });
    }
    if (!existing && mine.size >= MAX_SHOPS) throw new AppError("CONFLICT", `A workspace connects at most ${MAX_SHOPS} shops`, { hint: "Disconnect one first." });
    tx.set(ref, existing ? { ...shop, createdAt: existing.createdAt, createdBy: existing.createdBy } : shop);
    return { created: !existing };
  });
}

/** Disconnects a shop of the workspace; false when the workspace has no such shop. */
export async function deleteShop(merchantId: string, shopDomain: string): Promise<boolean> {
  return db().runTransaction(async (tx) => {
    const ref = shops().doc(shopDomain);
    const current = (await tx.get(ref)).data();
    if (!current || current.merchantId !== merchantId) return false;
    tx.delete(ref);
    return true;
  });
}

const deliveryRef = (shopDomain: string, webhookId: string) => db().collection(COLLECTIONS.shopifyDeliveries).doc(sha256Hex(`${shopDomain}\n${webhookId}`).slice(0, 40));

/** Marks a delivery seen; false when it was seen already (a replay). */
export async function markDelivery(shopDomain: string, webhookId: string, now: Date): Promise<boolean> {
  try {
    await deliveryRef(shopDomain, webhookId).create({ shopDomain, at: Timestamp.fromDate(now), expiresAt: Timestamp.fromMillis(now.getTime() + DELIVERY_MEMORY_DAYS * 86_400_000) });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === 6) return false; // ALREADY_EXISTS
    throw error;
  }
}

/** Forgets a delivery whose handling failed, so Shopify's retry of it is handled, not dropped. */
export async function forgetDelivery(shopDomain: string, webhookId: string): Promise<void> {
  await deliveryRef(shopDomain, webhookId).delete();
}
