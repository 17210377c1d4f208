// REST: GS1 items of the key's workspace (served by the bulk function, under /api/gs1), through the same
// domain functions as the MCP tools svc.gs1.* (gs1/service.ts). Resolution itself is the resolver's
// (gs1/resolver.ts, on the public host).
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { listLimit } from "../core/validation";
import { BULK_SCOPE } from "./app";
import { Gs1ItemDeletedSchema, Gs1ItemInputSchema, Gs1ItemListSchema, Gs1ItemParams, Gs1ItemSchema, Gs1QrQuery } from "../gs1/model";
import { getItem, itemQrPng, listItems, putItem, removeItem } from "../gs1/service";
import { Gs1ItemAnalyticsSchema, itemAnalytics } from "../gs1/analytics";
import { provePrefixByDns } from "../gs1/prefixVerify";
import { domainIdSchema } from "../domains/service";
import { getConfig } from "../core/config";
import { requestDnsServers } from "../core/testClock";

const PrefixProofBody = z
  .object({
    companyPrefix: z.string().regex(/^[0-9]{4,12}$/, "A GS1 company prefix: 4 to 12 digits").describe("The GS1 company prefix your company holds, e.g. 0614141"),
    domainId: domainIdSchema.describe("One of this workspace's branded domains whose ownership is proven (svc.domain.list): it publishes the prefix"),
  })
  .strict();

const PrefixProofSchema = z
  .object({ companyPrefix: z.string(), domain: z.string(), host: z.string().describe("The resolver host the proof counts on"), provenAt: z.string().describe("ISO 8601") })
  .meta({ title: "Gs1PrefixProof" });

const EXAMPLE_ITEM = {
  itemId: "yJ0Qm3c0b1mS9eX7pF2kVt8dLh4nRw6A",
  key: { ai: "01", name: "gtin", value: "09506000134352" },
  qualifiers: [{ ai: "10", value: "LOT42" }],
  uri: "https://svc.example/01/09506000134352/10/LOT42",
  description: "Dal Giardino risotto rice, 1 kg",
  links: [
    { linkType: "gs1:pip", href: "https://example.com/risotto", title: "Product page", hreflang: ["en"], type: "text/html", isDefault: true },
    { linkType: "gs1:recipeInfo", href: "https://example.com/risotto/recipes", title: "Recipes", hreflang: ["en"], isDefault: false },
  ],
  createdAt: "2026-11-27T09:00:00.000Z",
  updatedAt: "2026-11-27T09:00:00.000Z",
};

export const gs1Routes = [
  endpoint({
    method: "POST",
    path: "/api/gs1/items",
    summary: "Register a GS1 item (a GTIN or other GS1 key, optionally with lot, serial or CPV) and its links, or replace them",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    body: Gs1ItemInputSchema,
    response: Gs1ItemSchema,
    doc: {
      operationId: "putGs1Item",
      description:
        "Registers the key in the key's workspace with its links, served by the GS1-Conformant resolver at the returned `uri` (docs/gs1-resolver.md), or replaces the links of an item the workspace already has (200; 201 when created). " +
        "Check digits, qualifiers (order and values), link types (GS1 Web Vocabulary) and exactly one default link are checked before anything is written (VALIDATION_FAILED). " +
        "A key has one owner per resolver host: a key another workspace registered is CONFLICT, as is a new key under a company prefix the service's operators verified for another workspace. " +
        "Restricted circulation and coupon numbers (GS1 prefixes 02, 04, 05, 2, 980-984, 99; RCN-8) belong to no company and are VALIDATION_FAILED. A workspace holds at most 10,000 items (FORBIDDEN past it), and registers at most 100 new keys a day under prefixes it has not verified (RATE_LIMITED; see POST /api/gs1/prefixes). " +
        "Instead of `href`, a link may give `from`: `{menuCodeId}` (a QR code of this workspace that leads to its menu: the code's public URL, link type `gs1:menuInfo`) or `{listingId}` (the domain of its approved phone-book listing: its public page, `gs1:support`); another workspace's code or listing is VALIDATION_FAILED.",
      success: [200, 201],
      errors: ["CONFLICT", "DESTINATION_BLOCKED", "FORBIDDEN", "RATE_LIMITED"],
      example: {
        body: {
          key: "gtin",
          value: "9506000134352",
          qualifiers: [{ ai: "10", value: "LOT42" }],
          description: EXAMPLE_ITEM.description,
          links: [
            { linkType: "gs1:pip", href: "https://example.com/risotto", title: "Product page", hreflang: ["en"], type: "text/html", isDefault: true },
            { linkType: "gs1:recipeInfo", href: "https://example.com/risotto/recipes", title: "Recipes", hreflang: ["en"] },
          ],
        },
        response: EXAMPLE_ITEM,
      },
    },
    async handle({ res, caller, body }) {
      const { item, created } = await putItem(caller.merchantId, body);
      if (created) res.status(201);
      return item;
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/gs1/items",
    summary: "The workspace's GS1 items, a page at a time",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    query: z.object({ limit: z.coerce.number().pipe(listLimit).optional(), cursor: z.string().max(64).optional() }).strict(),
    response: Gs1ItemListSchema,
    doc: {
      operationId: "listGs1Items",
      description: "Items in a stable order, up to `limit` (default 50, at most 100) per page; follow `nextCursor`.",
      example: { query: { limit: 20 }, response: { items: [EXAMPLE_ITEM], nextCursor: null } },
    },
    handle: ({ caller, query }) => listItems(caller.merchantId, query.limit ?? 50, query.cursor),
  }),
  // Before the item's own path: the OpenAPI contract test runs examples in path order, DELETE last.
  endpoint({
    method: "GET",
    path: "/api/gs1/items/:itemId/qr.png",
    summary: "A GS1 item's QR code for packaging, with point-of-sale defaults",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: Gs1ItemParams,
    query: Gs1QrQuery,
    doc: {
      operationId: "getGs1ItemQrPng",
      description:
        "A 1024 px PNG of a QR code holding the item's GS1 Digital Link URI (or its compressed form), made for checkout scanners and phones alike: black on white, square modules, no logo, error correction Q (M for a URI too long for Q), a 4-module quiet zone. " +
        "Before it is returned the code is decoded by two decoders at three sizes and its text read back to the item's GTIN and qualifiers as a point-of-sale scanner does. " +
        "`X-Print-Min-Side-Mm` is the smallest printed side (quiet zone included) at GS1's minimum module size for point of sale (docs/gs1-resolver.md).",
      binary: "image/png",
      errors: ["NOT_FOUND"],
      responseHeaders: {
        "X-Print-Min-Side-Mm": "Smallest printed side in millimetres, quiet zone included",
        "X-Gs1-Error-Correction": "The code's error correction level (Q or M)",
        "X-Gs1-Encoded-Uri": "The exact text the code holds",
      },
      example: { params: { itemId: EXAMPLE_ITEM.itemId }, query: { compressed: "false" } },
    },
    async handle({ res, caller, params, query }) {
      const { png, headers } = await itemQrPng(caller.merchantId, params.itemId, query.compressed === "true");
      res.set(headers).send(png);
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/gs1/items/:itemId/analytics",
    summary: "Scans of a GS1 item through the resolver: people by link type, place, device and time; linkset fetches apart",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: Gs1ItemParams,
    query: z.object({ days: z.coerce.number().int().min(1).max(365).optional().describe("Window ending today in the workspace's time zone; default 30") }).strict(),
    response: Gs1ItemAnalyticsSchema,
    doc: {
      operationId: "getGs1ItemAnalytics",
      description:
        "Every resolution the resolver redirects is a scan of the item, counted as a /qr/ scan is (people, unique scanners, repeats, machines by reason, place, device, local hour), split by the link type it was sent to (`byLinkType`). " +
        "Linkset answers (`linkType=linkset|all`, `Accept: application/linkset+json`) are machines' fetches: `linksetFetches`, never people.",
      errors: ["NOT_FOUND"],
      example: { params: { itemId: EXAMPLE_ITEM.itemId }, query: { days: 7 } },
    },
    handle: ({ caller, params, query }) => itemAnalytics(caller.merchantId, params.itemId, query.days ?? 30),
  }),
  endpoint({
    method: "GET",
    path: "/api/gs1/items/:itemId",
    summary: "One GS1 item and its links",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: Gs1ItemParams,
    response: Gs1ItemSchema,
    doc: { operationId: "getGs1Item", description: "The item, its resolver URI and its links.", errors: ["NOT_FOUND"], example: { params: { itemId: EXAMPLE_ITEM.itemId }, response: EXAMPLE_ITEM } },
    handle: ({ caller, params }) => getItem(caller.merchantId, params.itemId),
  }),
  endpoint({
    method: "DELETE",
    path: "/api/gs1/items/:itemId",
    summary: "Delete a GS1 item",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    params: Gs1ItemParams,
    response: Gs1ItemDeletedSchema,
    doc: {
      operationId: "deleteGs1Item",
      description: "The resolver stops serving the item's links at once (its key's other items stay). The key stays the workspace's.",
      errors: ["NOT_FOUND"],
      example: { params: { itemId: EXAMPLE_ITEM.itemId }, response: { itemId: EXAMPLE_ITEM.itemId, deleted: true } },
    },
    handle: ({ caller, params }) => removeItem(caller.merchantId, params.itemId),
  }),
  endpoint({
    method: "POST",
    path: "/api/gs1/prefixes",
    summary: "Prove a GS1 company prefix by DNS on one of the workspace's verified domains",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    body: PrefixProofBody,
    response: PrefixProofSchema,
    doc: {
      operationId: "proveGs1Prefix",
      description:
        "New GS1 keys under a company prefix the workspace has not verified are limited (`gs1KeyClaims`, 100 a day). Publishing the prefix as the TXT record `_svc-gs1.<domain>` = `svc-gs1-prefix=<prefix>` on one of the workspace's verified branded domains, then calling this, lifts that limit for keys under the prefix. " +
        "It does not shut other workspaces out of the prefix: only an approval by the service's operators does (docs/gs1-resolver.md, \"Who may claim a key\"). CONFLICT when the record is missing or the domain is not verified; UNAVAILABLE when DNS does not answer.",
      errors: ["NOT_FOUND", "CONFLICT", "UNAVAILABLE"],
      // No request example: one succeeds only once the caller's own domain publishes the record.
      example: { response: { companyPrefix: "0614141", domain: "brand.example", host: "svc.example", provenAt: "2026-11-29T09:00:00.000Z" } },
    },
    handle: ({ req, caller, body }) => provePrefixByDns(caller, body, { dnsServers: requestDnsServers(req.headers, getConfig().honoursTestClock) }),
  }),
];
