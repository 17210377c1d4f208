// REST: the conversion figures (GET /api/conversions, merchant:read), connected Shopify shops (under /api/shopify/shops, with webhooks:read / webhooks:write) and the
// webhook Shopify posts orders, refunds and cancellations to (no credential: its signature is the
// credential). docs/shopify.md.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { rawBodyOf } from "../http/rest";
import { requestTime } from "../core/testClock";
import { getConfig } from "../core/config";
import {
  connectShop,
  ConnectShopSchema,
  disconnectShop,
  PublicShopSchema,
  receiveShopifyWebhook,
  SHOPIFY_TOPICS,
  SHOPIFY_WEBHOOK_PATH,
  ShopifyReceiptSchema,
  ShopListSchema,
  shopList,
  ShopParamsSchema,
} from "../attribution/shopify";
import { ConversionFiguresSchema, conversionFigures, WorkspaceConversionQuerySchema } from "../attribution/statsFigures";

const READ = { credential: "caller", scope: "webhooks:read", limit: "bulk" } as const;
const WRITE = { credential: "caller", scope: "webhooks:write", limit: "bulk" } as const;

const EXAMPLE_SHOP = {
  shopDomain: "corner-bakery.myshopify.com",
  createdAt: "2026-11-29T09:00:00.000Z",
  topics: [...SHOPIFY_TOPICS],
  webhookUrl: `https://api.example.com${SHOPIFY_WEBHOOK_PATH}`,
};

/** The body Shopify sends: an order (orders/paid, orders/cancelled) or a refund (refunds/create). Documented, read by the handler after the signature. */
const WebhookBodySchema = z.looseObject({}).describe("Shopify's order or refund JSON, as Shopify sends it (only the fields docs/shopify.md names are read)").meta({ title: "ShopifyWebhookBody" });

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const EXAMPLE_FIGURES = { scans: 412, people: 388, leads: 31, sales: 12, revenue: { EUR: 58900 } };

export const shopifyRoutes = [
  endpoint({
    method: "GET",
    path: "/api/conversions",
    summary: "Leads, sales and revenue per currency, by day, rule and A/B arm, with each A/B split's result",
    credential: "caller",
    scope: "merchant:read",
    limit: "bulk",
    query: WorkspaceConversionQuerySchema,
    response: ConversionFiguresSchema,
    doc: {
      operationId: "getConversionFigures",
      description:
        "The workspace's conversions over the last `days` local days, or one code's (`codeId`) or one campaign's (`campaign`). Revenue is per ISO 4217 currency in minor units, net of refunds, never summed across currencies. " +
        "For each A/B split, each arm's conversion rate (`metric` over people) with a 95% Wilson interval; the pooled two-proportion test is read only once every arm has `horizon` people, and `verdict` says so in words (docs/attribution-figures.md).",
      errors: ["NOT_FOUND"],
      example: {
        query: { days: 30, horizon: 1000, metric: "sales" },
        response: { codeId: null, campaign: null, from: "2026-10-31", to: "2026-11-29", total: EXAMPLE_FIGURES, byDay: [{ day: "2026-11-29", ...EXAMPLE_FIGURES }], byRule: [], byArm: [], abTests: [] },
      },
    },
    handle: ({ caller, query }) => conversionFigures(caller.merchantId, query),
  }),
  endpoint({
    method: "POST",
    path: "/api/shopify/shops",
    summary: "Connect a Shopify shop, or replace its webhook secret",
    ...WRITE,
    body: ConnectShopSchema,
    response: PublicShopSchema,
    doc: {
      operationId: "connectShopifyShop",
      success: [200, 201],
      description:
        "Connects `shopDomain` to the workspace with the secret Shopify signs its webhooks with (stored sealed, never returned). 201 when new, 200 when the workspace had it (the secret is replaced). " +
        "Then subscribe, in Shopify, the answered `topics` to `webhookUrl` in JSON. 409: the shop is another workspace's, or the workspace has 5 shops.",
      errors: ["CONFLICT"],
      example: { body: { shopDomain: "corner-bakery.myshopify.com", webhookSecret: "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" }, response: EXAMPLE_SHOP },
    },
    async handle({ res, caller, body }) {
      const { created, ...shop } = await connectShop(caller, body);
      if (created) res.status(201);
      return shop;
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/shopify/shops",
    summary: "The workspace's connected Shopify shops",
    ...READ,
    response: ShopListSchema,
    doc: { operationId: "listShopifyShops", description: "Every connected shop (at most 5), oldest first. Secrets are never answered.", example: { response: { count: 1, max: 5, shops: [EXAMPLE_SHOP] } } },
    handle: ({ caller }) => shopList(caller),
  }),
  endpoint({
    method: "DELETE",
    path: "/api/shopify/shops/:shopDomain",
    summary: "Disconnect a Shopify shop",
    ...WRITE,
    params: ShopParamsSchema,
    response: z.object({ deleted: z.literal(true), shopDomain: z.string() }).strict(),
    doc: {
      operationId: "disconnectShopifyShop",
      description: "Forgets the shop and its secret: its webhooks are refused from then on (401). Sales already recorded stay.",
      errors: ["NOT_FOUND"],
      example: { params: { shopDomain: "corner-bakery.myshopify.com" }, response: { deleted: true, shopDomain: "corner-bakery.myshopify.com" } },
    },
    handle: ({ caller, params }) => disconnectShop(caller, params.shopDomain),
  }),
  endpoint({
    method: "POST",
    path: SHOPIFY_WEBHOOK_PATH,
    summary: "Shopify's order webhooks: paid orders become sales, refunds and cancellations reverse them",
    credential: "none",
    addressLimit: "shopifyWebhooks",
    body: WebhookBodySchema,
    bodyFormat: "raw",
    response: ShopifyReceiptSchema,
    doc: {
      operationId: "receiveShopifyWebhook",
      description:
        "Shopify posts here (topics `orders/paid`, `refunds/create`, `orders/cancelled`). The body is trusted only when the HMAC-SHA256 of its exact bytes under the connected shop's secret, base64, equals `X-Shopify-Hmac-Sha256`; otherwise 401 and nothing is written. " +
        "A delivery whose `X-Shopify-Webhook-Id` was seen in the last 7 days is answered 200 `replay` and does nothing. A paid order's click id is read from its `svc_sid` cart attribute, else from its landing URL; the order id is the sale's invoice, so a repeat is one sale. " +
        "An order with a refused click id (forged, expired, another workspace's) is answered 200 `refused`: Shopify must not retry it.",
      errors: ["NO_AUTH", "INVALID_TOKEN"],
      requestHeaders: [
        { name: "X-Shopify-Hmac-Sha256", required: true, maxLength: 100, description: "Base64 HMAC-SHA256 of the raw body under the shop's webhook secret" },
        { name: "X-Shopify-Shop-Domain", required: true, maxLength: 100, description: "The shop, <name>.myshopify.com" },
        { name: "X-Shopify-Topic", required: true, maxLength: 100, description: "orders/paid, refunds/create or orders/cancelled; others are answered `ignored`" },
        { name: "X-Shopify-Webhook-Id", required: true, maxLength: 255, description: "The delivery's id: a replay of it is dropped" },
      ],
      example: {
        headers: { "X-Shopify-Topic": "orders/paid", "X-Shopify-Shop-Domain": "corner-bakery.myshopify.com", "X-Shopify-Webhook-Id": "b54557e4-8a5f-4f7d-a0bc-d043a1b2c3d4", "X-Shopify-Hmac-Sha256": "XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=" },
        body: { id: 450789469, currency: "USD", total_price: "369.97", note_attributes: [{ name: "svc_sid", value: "<click id>" }] },
        response: { received: true, outcome: "sale" },
      },
    },
    handle: ({ req }) =>
      receiveShopifyWebhook({
        shopDomain: header(req.headers["x-shopify-shop-domain"]),
        topic: header(req.headers["x-shopify-topic"]),
        hmac: header(req.headers["x-shopify-hmac-sha256"]),
        webhookId: header(req.headers["x-shopify-webhook-id"]),
        raw: rawBodyOf(req) ?? Buffer.alloc(0),
        now: new Date(requestTime(req.headers, getConfig().honoursTestClock)),
      }),
  }),
];
