// HTTP surface of the site metadata API (public host, no auth). Anything else under /api is a JSON 404.
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { z } from "zod";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import { clientOf } from "../http/clientAddress";
import { apiCatalog, serviceStatus, siteMetadata } from "./metadata";
import { openApiDocument } from "./openapi";
import { CatalogQuerySchema } from "./schemas";

const PUBLIC_CACHE = "public, max-age=300, s-maxage=300";

const publicGet = (path: string, cache: string, handle: (res: Response) => Promise<unknown> | unknown, query?: z.ZodType) =>
  endpoint({ method: "GET", path, credential: "none", query, headers: { "Cache-Control": cache }, handle: ({ res }) => handle(res) });

export const siteApp = createRestApp((app) => {
  mountEndpoints(app, "site", [
    // The catalog takes no parameters; the others ignore any (cache busters are harmless there).
    publicGet("/api", PUBLIC_CACHE, () => apiCatalog(), CatalogQuerySchema),
    publicGet("/api/site.json", PUBLIC_CACHE, () => siteMetadata()),
    publicGet("/api/status.json", "no-store", async (res) => {
      const status = await serviceStatus();
      res.status(status.status === "ok" ? 200 : 503);
      return status;
    }),
    publicGet("/api/openapi.json", PUBLIC_CACHE, () => openApiDocument()),
    // The caller's own address as the service resolved it, for `npm run smoke` and operators checking
    // the Hosting hop (docs/deploy.md). Only ever the caller's own, and never cached.
    endpoint({
      method: "GET",
      path: "/api/client-address",
      credential: "none",
      headers: { "Cache-Control": "private, no-store" },
      handle: ({ req }) => {
        const { address, viaProxy } = clientOf(req);
        return { address, viaProxy };
      },
    }),
  ]);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
}, { cors: "site" });
