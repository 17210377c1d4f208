// Zod schemas that shape every site metadata API response; the OpenAPI document is generated from them.
import { z } from "zod";

const url = z.string().url();

export const JsonErrorSchema = z
  .object({
    error: z.string().describe("HTTP reason phrase"),
    code: z.string().describe("Stable machine-readable error code (see docs/errors.md)"),
    message: z.string(),
    hint: z.string().describe("What to do about it"),
    status: z.number().int().optional(),
    path: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    requestId: z.string().optional().describe("5xx only: quote it to support; the log line with the cause carries it"),
  })
  .meta({ title: "JsonError" });

export const ApiCatalogSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    links: z.object({
      catalog: url,
      site: url,
      status: url,
      openapi: url,
      mcp: url.describe("Tool server endpoint (POST JSON-RPC 2.0)"),
      mcpManifest: url.describe("GET returns the tool server manifest"),
      sandboxGenerator: url,
      bulkGenerator: url,
      docs: url,
      phoneBook: url,
      console: url,
    }),
  })
  .meta({ title: "ApiCatalog" });

export const SiteMetadataSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    urls: z.object({
      site: url,
      app: url,
      console: url,
      docs: url,
      phoneBook: url,
      dynamicLinks: url,
      mcp: url,
    }),
    contact: z.object({ email: z.string().email() }),
  })
  .meta({ title: "SiteMetadata" });

export const StatusSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    time: z.string().datetime().describe("Server time, ISO 8601 UTC"),
    checks: z.object({
      firestore: z.object({
        ok: z.boolean(),
        latencyMs: z.number().nonnegative(),
        error: z.string().optional(),
      }),
    }),
  })
  .meta({ title: "Status" });

export const ClientAddressSchema = z
  .object({
    address: z.string().describe("The address as the service resolved it"),
    viaProxy: z.boolean().describe("Whether the address is itself a Google or proxy address (no visitor could be told apart)"),
    hostingHop: z.string().nullable().describe("The Google hop skipped as Firebase Hosting's, if any: measure it here to set HOSTING_HOP_RANGES"),
  })
  .meta({ title: "ClientAddress" });

/** The document itself is described only by its outline: OpenAPI's own schema describes the rest. */
export const OpenApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ title: "OpenApiDocument" });

/** `/api` accepts no query parameters: an unknown one is probably a typo the caller wants to hear about. */
export const CatalogQuerySchema = z.object({}).strict();

export type ApiCatalog = z.infer<typeof ApiCatalogSchema>;
export type SiteMetadata = z.infer<typeof SiteMetadataSchema>;
export type Status = z.infer<typeof StatusSchema>;
export type OpenApiDocument = z.infer<typeof OpenApiDocumentSchema>;
