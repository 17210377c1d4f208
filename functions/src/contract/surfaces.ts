// Every public surface's route list, read by the OpenAPI generator (contract/openapi.ts) and by the test
// that checks each public app mounts nothing else (test/unit/openapi.test.ts). Loaded on the first request
// for the document only: the site function does not pay for the other surfaces' modules otherwise.
import type { z } from "zod";
import type { Endpoint } from "../http/endpoint";

export interface Surface {
  /** The OpenAPI tag of its operations. */
  tag: string;
  description: string;
  /** The host it answers on: the public site's (BASE_URL) or the app's (APP_URL). */
  host: "site" | "app";
  routes: readonly Endpoint[];
  /** A surface whose errors are not JsonError bodies (OAuth's RFC 6749 bodies): their schema, by name. */
  errorBody?: { name: string; schema: z.ZodType };
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded when the document is first built */
export function publicSurfaces(): Surface[] {
  const site = "site" as const;
  const app = "app" as const;
  return [
    { tag: "Discovery", host: site, routes: (require("../site/app") as typeof import("../site/app")).siteRoutes,
      description: "The URL catalog, site metadata, health status and this document. No authentication." },
    { tag: "Sandbox", host: app, routes: (require("../sandbox/app") as typeof import("../sandbox/app")).sandboxRoutes,
      description: "Keyless QR codes for trying the service: a few per address per UTC day, kept 7 days unless claimed." },
    { tag: "Bulk", host: app, routes: [...(require("../bulk/app") as typeof import("../bulk/app")).bulkRoutes, ...(require("../jobs/routes") as typeof import("../jobs/routes")).jobRoutes, ...(require("../campaigns/routes") as typeof import("../campaigns/routes")).campaignRoutes],
      description: "Permanent codes in a workspace with an API key holding the qr:write scope: up to 50 per call, or up to 10,000 rows of JSON or CSV per background job (never a code twice for a row's external reference, optionally with a print-ready ZIP), and a dynamic code's campaign rules." },
    { tag: "App scans", host: app, routes: (require("../redirect/appScans") as typeof import("../redirect/appScans")).appScanRoutes,
      description: "Scans of a code read inside the service's own app, reported by its signed-in user." },
    { tag: "Files", host: app, routes: (require("../images/app") as typeof import("../images/app")).imageRoutes,
      description: "A code's images and print files at stable URLs; the code's image token (in the URLs the API returns) is the capability." },
    { tag: "OAuth", host: app, routes: (require("../oauth/routes") as typeof import("../oauth/routes")).oauthRoutes,
      errorBody: { name: "OAuthError", schema: (require("../oauth/schemas") as typeof import("../oauth/schemas")).OAuthErrorBodySchema },
      description: "The authorization server MCP clients connect through: dynamic client registration (RFC 7591), tokens with PKCE (RFC 6749) and revocation (RFC 7009). Errors are RFC 6749 bodies, not JsonError." },
  ];
}
