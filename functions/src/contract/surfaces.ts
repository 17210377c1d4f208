// Every public surface's route list, read by the OpenAPI generator (contract/openapi.ts) and by the test
// that checks each public app mounts nothing else (test/unit/openapi.test.ts); and the site function's app,
// which serves the document beside the site's own routes. The other surfaces' modules and the generator
// load on the first request for the document only: the site function does not pay for them otherwise.
import { endpoint } from "../http/endpoint";
import { cached, createSiteApp, siteRoutes } from "../site/app";
import { OpenApiDocumentSchema, type OpenApiDocument } from "../site/schemas";
import type { Surface } from "./openapi";

export type { Surface };

let built: OpenApiDocument | undefined;
/** Built once per instance (the routes and config do not change while it runs), on the first request for it. */
function openApiDocument(): OpenApiDocument {
  // Loaded on first use: the generator and every other surface's routes, which the site's own routes never need.
  return (built ??= (require("./openapi") as typeof import("./openapi")).buildOpenApiDocument(publicSurfaces()));
}

/** The document itself, on the site's host. Declared here, at the edge, because it reads every surface. */
export const openApiRoute = endpoint({
  method: "GET",
  path: "/api/openapi.json",
  summary: "This document",
  credential: "none",
  response: OpenApiDocumentSchema,
  headers: cached,
  doc: {
    operationId: "getOpenApiDocument",
    description: "The OpenAPI 3.1 description of every public operation, generated from the service's own route declarations.",
  },
  handle: () => openApiDocument(),
});

/** The site function's routes: the site's own (site/app.ts) and the document. */
export const discoveryRoutes = [...siteRoutes, openApiRoute];

/** The site function's app (functions/src/index.ts). */
export const siteApp = createSiteApp(discoveryRoutes);

// Each surface's routes are required when the document is first built, not when this module loads.
export function publicSurfaces(): Surface[] {
  const site = "site" as const;
  const app = "app" as const;
  return [
    { tag: "Discovery", host: site, routes: discoveryRoutes,
      description: "The URL catalog, site metadata, health status and this document. No authentication." },
    { tag: "Sandbox", host: app, routes: (require("../sandbox/app") as typeof import("../sandbox/app")).sandboxRoutes,
      description: "Keyless QR codes for trying the service: a few per address per UTC day, kept 7 days unless claimed." },
    { tag: "Bulk", host: app, routes: [...(require("../bulk/app") as typeof import("../bulk/app")).bulkRoutes, ...(require("../bulk/jobRoutes") as typeof import("../bulk/jobRoutes")).jobRoutes, ...(require("../bulk/campaignRoutes") as typeof import("../bulk/campaignRoutes")).campaignRoutes, ...(require("../bulk/gs1Routes") as typeof import("../bulk/gs1Routes")).gs1Routes, ...(require("../bulk/domainRoutes") as typeof import("../bulk/domainRoutes")).domainRoutes, ...(require("../bulk/trackRoutes") as typeof import("../bulk/trackRoutes")).trackRoutes, ...(require("../bulk/shopifyRoutes") as typeof import("../bulk/shopifyRoutes")).shopifyRoutes],
      description: "Permanent codes in a workspace with an API key holding the qr:write scope: up to 50 per call, or up to 10,000 rows of JSON or CSV per background job (never a code twice for a row's external reference, optionally with a print-ready ZIP), a dynamic code's campaign rules, GS1 items (GTINs and other GS1 keys with their links) served by the GS1-Conformant resolver, and branded domains (the workspace's own hosts, proven by a DNS TXT record and checked hourly; keys need domains:read or domains:write, and changes are the owner's), and conversion tracking (leads, sales, refunds and in-store discount redemptions reported against the signed click id the redirect appends; keys need conversions:write; docs/attribution.md), conversion figures with A/B results (merchant:read) and Shopify shops whose signed order webhooks become sales (docs/shopify.md)." },
    { tag: "App scans", host: app, routes: (require("../redirect/appScans") as typeof import("../redirect/appScans")).appScanRoutes,
      description: "Scans of a code read inside the service's own app, reported by its signed-in user." },
    { tag: "Files", host: app, routes: (require("../images/app") as typeof import("../images/app")).imageRoutes,
      description: "A code's images and print files at stable URLs; the code's image token (in the URLs the API returns) is the capability." },
    { tag: "OAuth", host: app, routes: (require("../oauth/routes") as typeof import("../oauth/routes")).oauthRoutes,
      errorBody: { name: "OAuthError", schema: (require("../oauth/schemas") as typeof import("../oauth/schemas")).OAuthErrorBodySchema },
      description: "The authorization server MCP clients connect through: dynamic client registration (RFC 7591), tokens with PKCE (RFC 6749) and revocation (RFC 7009). Errors are RFC 6749 bodies, not JsonError." },
  ];
}
