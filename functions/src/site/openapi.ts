// OpenAPI 3.1.0 document for the site metadata API, generated from the response schemas.
import { z } from "zod";
import { getConfig, SITE_API_VERSION } from "../core/config";
import { ApiCatalogSchema, JsonErrorSchema, SiteMetadataSchema, StatusSchema } from "./schemas";

const schemas = { ApiCatalog: ApiCatalogSchema, SiteMetadata: SiteMetadataSchema, Status: StatusSchema, JsonError: JsonErrorSchema };

function componentSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;
  delete json.$schema; // the document's jsonSchemaDialect covers it
  delete json.id;
  return json;
}

const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (name: keyof typeof schemas) => ({ "application/json": { schema: ref(name) } });
const errorResponse = (description: string) => ({ description, content: jsonContent("JsonError") });

export function openApiDocument(): Record<string, unknown> {
  const c = getConfig();
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "svc site metadata API",
      version: SITE_API_VERSION,
      description: "Public discovery endpoints: URL catalog, site metadata and health status. No authentication.",
    },
    servers: [{ url: c.baseUrl }],
    paths: {
      "/api": {
        get: {
          operationId: "getApiCatalog",
          summary: "Catalog of published discovery URLs",
          responses: {
            "200": { description: "Catalog", content: jsonContent("ApiCatalog") },
            "400": errorResponse("Invalid request (for example an unknown query parameter)"),
          },
        },
      },
      "/api/site.json": {
        get: {
          operationId: "getSiteMetadata",
          summary: "Public site metadata",
          responses: { "200": { description: "Site metadata", content: jsonContent("SiteMetadata") } },
        },
      },
      "/api/status.json": {
        get: {
          operationId: "getStatus",
          summary: "Health check (Firestore reachability)",
          responses: {
            "200": { description: "Healthy", content: jsonContent("Status") },
            "503": { description: "Degraded; same body shape", content: jsonContent("Status") },
          },
        },
      },
      "/api/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          responses: { "200": { description: "OpenAPI 3.1.0 document", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, componentSchema(schema)])),
    },
  };
}
