// HTTP surface of the site metadata API (public host, no auth). Anything else under /api is a JSON 404.
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { createRestApp, methodNotAllowed } from "../http/rest";
import { apiCatalog, serviceStatus, siteMetadata } from "./metadata";
import { openApiDocument } from "./openapi";
import { CatalogQuerySchema } from "./schemas";

const PUBLIC_CACHE = "public, max-age=300, s-maxage=300";

function onlyGet(req: Request): void {
  if (req.method !== "GET" && req.method !== "HEAD") methodNotAllowed("GET, HEAD");
}

export const siteApp = createRestApp((app) => {
  app.all("/api", (req: Request, res: Response) => {
    onlyGet(req);
    const parsed = CatalogQuerySchema.safeParse(req.query);
    if (!parsed.success) {
      const names = Object.keys(req.query);
      throw new AppError("UNKNOWN_QUERY_PARAMETER", `Unknown query parameter: ${names.join(", ")}`, {
        hint: "GET /api takes no query parameters.",
        details: { parameters: names },
      });
    }
    res.set("Cache-Control", PUBLIC_CACHE).json(apiCatalog());
  });

  app.all("/api/site.json", (req: Request, res: Response) => {
    onlyGet(req);
    res.set("Cache-Control", PUBLIC_CACHE).json(siteMetadata());
  });

  app.all("/api/status.json", async (req: Request, res: Response) => {
    onlyGet(req);
    const status = await serviceStatus();
    res.set("Cache-Control", "no-store").status(status.status === "ok" ? 200 : 503).json(status);
  });

  app.all("/api/openapi.json", (req: Request, res: Response) => {
    onlyGet(req);
    res.set("Cache-Control", PUBLIC_CACHE).json(openApiDocument());
  });

  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
});
