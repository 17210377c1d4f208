// Console: a code's conversion funnel and A/B results (attribution/statsFigures.ts), the workspace's
// conversion tracking settings (attribution/admin.ts) and its connected Shopify shops
// (attribution/shopify.ts), through the same functions as REST.
import { z } from "zod";
import { ids } from "../core/ids";
import { ConversionFiguresSchema, ConversionQuerySchema, conversionFigures } from "../attribution/statsFigures";
import { connectShop, ConnectShopSchema, disconnectShop, PublicShopSchema, ShopListSchema, shopList, ShopParamsSchema } from "../attribution/shopify";
import { readTrackingSettings, writeTrackingSettings } from "../attribution/admin";
import { TrackingSettingsSchema, WorkspaceAttributionSchema } from "../attribution/settings";
import { consoleRoute, routeTable } from "./route";

const member = { credential: "member" } as const;

export const conversionConsoleRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/codes/:codeId/conversions",
    summary: "A code's funnel (scans, people, leads, sales, revenue per currency) and its A/B results",
    limit: "consoleAnalytics",
    params: z.object({ codeId: ids.codeId }).strict(),
    query: ConversionQuerySchema,
    response: ConversionFiguresSchema,
    handle: ({ caller, params, query }) => conversionFigures(caller.merchantId, { ...query, codeId: params.codeId }),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/tracking/settings",
    summary: "The workspace's conversion tracking settings, with their defaults",
    response: TrackingSettingsSchema,
    handle: ({ caller }) => readTrackingSettings(caller.merchantId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/tracking/settings",
    summary: "Change the workspace's conversion tracking settings (the fields given)",
    limit: "consoleWrites",
    body: WorkspaceAttributionSchema,
    response: TrackingSettingsSchema,
    handle: ({ caller, body }) => writeTrackingSettings(caller.merchantId, body),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/shopify/shops",
    summary: "The workspace's connected Shopify shops",
    response: ShopListSchema,
    handle: ({ caller }) => shopList(caller),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/shopify/shops",
    summary: "Connect a Shopify shop with its webhook secret",
    limit: "consoleWrites",
    body: ConnectShopSchema,
    response: PublicShopSchema,
    handle: async ({ caller, body }) => {
      const { created: _created, ...shop } = await connectShop(caller, body);
      return shop;
    },
  }),
  consoleRoute({
    ...member,
    method: "DELETE",
    path: "/api/console/shopify/shops/:shopDomain",
    summary: "Disconnect a Shopify shop",
    limit: "consoleWrites",
    params: ShopParamsSchema,
    response: z.object({ deleted: z.literal(true), shopDomain: z.string() }).strict(),
    handle: ({ caller, params }) => disconnectShop(caller, params.shopDomain),
  }),
);
