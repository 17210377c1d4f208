// HTTP surface of the site metadata API (public host, no auth). Anything else under /api is a JSON 404.
import type { Request } from "express";
import { AppError } from "../core/errors";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints, type Endpoint } from "../http/endpoint";
import { clientOf } from "../core/clientAddress";
import { googleNotCloud } from "../core/addressRanges";
import { apiCatalog, serviceStatus, siteMetadata } from "./metadata";
import { ReportAnswerSchema, ReportSchema } from "../abuse/schemas";
import { reportAddress } from "../moderation/service";
import { ApiCatalogSchema, CatalogQuerySchema, ClientAddressSchema, SiteMetadataSchema, StatusSchema } from "./schemas";

/** Five minutes at the browser and the CDN: what the site's documents may be (contract/surfaces.ts too). */
export const cached = { "Cache-Control": "public, max-age=300, s-maxage=300" };
const EXAMPLE = "https://svc.example";

export const siteRoutes = [
  // The catalog takes no parameters; the others ignore any (cache busters are harmless there).
  endpoint({
    method: "GET",
    path: "/api",
    summary: "Catalog of published discovery URLs",
    credential: "none",
    query: CatalogQuerySchema,
    response: ApiCatalogSchema,
    headers: cached,
    doc: {
      operationId: "getApiCatalog",
      description: "Where everything is: site metadata, status, this document, the tool server, the sandbox and bulk endpoints, the docs and the console. It takes no query parameters.",
      example: {
        response: {
          name: "svc",
          description: "Merchant QR codes",
          version: "1.0.0",
          links: {
            catalog: `${EXAMPLE}/api`,
            site: `${EXAMPLE}/api/site.json`,
            status: `${EXAMPLE}/api/status.json`,
            openapi: `${EXAMPLE}/api/openapi.json`,
            mcp: `${EXAMPLE}/api/mcp`,
            mcpManifest: `${EXAMPLE}/api/mcp`,
            sandboxGenerator: `${EXAMPLE}/api/generate-qr-code`,
            bulkGenerator: `${EXAMPLE}/api/bulk-qr-codes`,
            docs: `${EXAMPLE}/docs/`,
            phoneBook: `${EXAMPLE}/phone-book`,
            console: `${EXAMPLE}/console/`,
          },
        },
      },
    },
    handle: () => apiCatalog(),
  }),
  endpoint({
    method: "GET",
    path: "/api/site.json",
    summary: "Public site metadata",
    credential: "none",
    response: SiteMetadataSchema,
    headers: cached,
    doc: {
      operationId: "getSiteMetadata",
      description: "The service's name, version, public URLs and contact address.",
    },
    handle: () => siteMetadata(),
  }),
  endpoint({
    method: "GET",
    path: "/api/status.json",
    summary: "Health check (Firestore reachability)",
    credential: "none",
    response: StatusSchema,
    headers: { "Cache-Control": "no-store" },
    doc: {
      operationId: "getStatus",
      description: "Answers 200 when the database answers, 503 with the same body when it does not. Never cached.",
      alsoAnswers: { 503: "Degraded; same body shape" },
      example: { response: { status: "ok", version: "1.0.0", time: "2026-11-23T12:00:00.000Z", checks: { firestore: { ok: true, latencyMs: 12 } } } },
    },
    async handle({ res }) {
      const status = await serviceStatus();
      res.status(status.status === "ok" ? 200 : 503);
      return status;
    },
  }),
  // The caller's own address as the service resolved it, for `npm run smoke` and operators checking
  // the Hosting hop (docs/deploy.md). Only ever the caller's own, and never cached.
  endpoint({
    method: "GET",
    path: "/api/client-address",
    summary: "The caller's own address as the service sees it",
    credential: "none",
    response: ClientAddressSchema,
    headers: { "Cache-Control": "private, no-store" },
    doc: {
      operationId: "getClientAddress",
      description: "For checking the proxy hop: the address limits and scan places are taken from, and whether it came through a trusted proxy.",
      example: { response: { address: "203.0.113.7", viaProxy: false, hostingHop: "142.250.189.4" } },
    },
    handle: ({ req }) => {
      const { address, viaProxy, hops } = clientOf(req);
      // Hosting's hop is the rightmost skipped entry, and only a Google one (declared proxies are the operator's own).
      return { address, viaProxy, hostingHop: hops.length && googleNotCloud().has(hops[0]) ? hops[0] : null };
    },
  }),
  // The public abuse report (the /report page posts here): reviewed by the operators, who can take a code down.
  endpoint({
    method: "POST",
    path: "/api/reports",
    summary: "Report a QR code that leads somewhere harmful",
    credential: "none",
    addressLimit: "abuseReports",
    body: ReportSchema,
    response: ReportAnswerSchema,
    headers: { "Cache-Control": "no-store" },
    doc: {
      operationId: "reportCode",
      success: [202],
      description:
        "Tells the service's operators that a code made here, or a GS1 product link it resolves (/01/<GTIN>..., compressed GS1 URIs), leads to phishing, malware, a scam or other abuse. They review each report; a code or item taken down shows a warning page instead of its destination from its next scan on. The form at /report sends the same request.",
      errors: ["NOT_FOUND"],
      example: { body: { code: "https://svc.example/qr/Ab12Cd34Ef56", reason: "phishing", details: "Asks for my bank password." }, response: { reportId: "rep_3f9a2c7d1e5b4a60c2d1", status: "open" } },
    },
    async handle({ res, body }) {
      const answer = await reportAddress(body);
      res.status(202);
      return answer;
    },
  }),
];

/**
 * The site function's app: the site's routes and the edge's (contract/surfaces.ts adds the OpenAPI
 * document, which reads every surface). Anything else under /api is a JSON 404.
 */
export function createSiteApp(routes: readonly Endpoint[]) {
  return createRestApp((app) => {
    mountEndpoints(app, "site", routes);
    app.use((req: Request) => {
      throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
    });
  }, { cors: "site" });
}
