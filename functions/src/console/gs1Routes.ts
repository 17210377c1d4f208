// Console page "Product codes (GS1)": a workspace's GS1 items (list, register or replace, one item,
// delete) and each item's point-of-sale QR code, through the same domain functions as REST
// (bulk/gs1Routes.ts) and the MCP tools svc.gs1.* (gs1/service.ts). Editing an item's links is
// registering its key again: putItem replaces the links of an item the workspace already has.
import { z } from "zod";
import { listLimit } from "../core/validation";
import { Gs1ItemDeletedSchema, Gs1ItemInputSchema, Gs1ItemListSchema, Gs1ItemParams, Gs1ItemSavedSchema, Gs1ItemSchema, Gs1QrQuery } from "../gs1/model";
import { getItem, itemQrPng, listItems, putItem, removeItem, resolverOrigin } from "../gs1/service";
import { Gs1ItemAnalyticsSchema, itemAnalytics } from "../gs1/analytics";
import { consoleFileRoute, consoleRoute, routeTable } from "./route";
import { DaysQuerySchema } from "./schemas";

const member = { credential: "member" } as const;

/**
 * The page editing an item's links registers it again, naming its host's domain: it must tell an item on the
 * shared host from one on a host that is no longer a domain of the workspace (docs/gs1-on-brand-hosts.md).
 */
const Gs1ConsoleItemSchema = Gs1ItemSchema.extend({ onSharedHost: z.boolean().describe("true when the item is on the service's shared resolver host") });

export const gs1Routes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/gs1/items",
    summary: "The workspace's GS1 items, a page at a time",
    query: z.object({ limit: z.coerce.number().pipe(listLimit).optional(), cursor: z.string().max(64).optional() }).strict(),
    response: Gs1ItemListSchema,
    handle: ({ caller, query }) => listItems(caller.merchantId, query.limit ?? 50, query.cursor),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/gs1/items",
    summary: "Register a GS1 item and its links, or replace the links of one the workspace has",
    limit: "consoleWrites",
    body: Gs1ItemInputSchema,
    response: Gs1ItemSavedSchema,
    async handle({ caller, body, res }) {
      const { item, created } = await putItem(caller.merchantId, body);
      if (created) res.status(201);
      return { ...item, created };
    },
  }),
  consoleFileRoute({
    ...member,
    method: "GET",
    path: "/api/console/gs1/items/:itemId/qr.png",
    summary: "An item's QR code for packaging (point-of-sale defaults), with its minimum print size in X-Print-Min-Side-Mm",
    file: "image/png",
    limit: "previews",
    params: Gs1ItemParams,
    query: Gs1QrQuery,
    async handle({ caller, params, query, res }) {
      const { png, headers } = await itemQrPng(caller.merchantId, params.itemId, query.compressed === "true");
      res.set(headers).send(png);
    },
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/gs1/items/:itemId/analytics",
    summary: "An item's scans through the resolver: people by link type, machines and linkset fetches apart",
    params: Gs1ItemParams,
    query: DaysQuerySchema,
    response: Gs1ItemAnalyticsSchema,
    handle: ({ caller, params, query }) => itemAnalytics(caller.merchantId, params.itemId, query.days),
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/gs1/items/:itemId",
    summary: "One GS1 item and its links, and whether it is on the service's shared host",
    params: Gs1ItemParams,
    response: Gs1ConsoleItemSchema,
    async handle({ caller, params }) {
      const item = await getItem(caller.merchantId, params.itemId);
      return { ...item, onSharedHost: new URL(item.uri).origin === resolverOrigin() };
    },
  }),
  consoleRoute({
    ...member,
    method: "DELETE",
    path: "/api/console/gs1/items/:itemId",
    summary: "Delete a GS1 item",
    limit: "consoleWrites",
    params: Gs1ItemParams,
    response: Gs1ItemDeletedSchema,
    handle: ({ caller, params }) => removeItem(caller.merchantId, params.itemId),
  }),
);
