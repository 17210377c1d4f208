// POST /api/bulk-qr-codes: up to 50 permanent static codes per call in the caller's workspace,
// all or nothing, with optional Idempotency-Key (claimed before any code is written).
import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { BULK_MAX_URLS, URL_MAX_LENGTH } from "../core/limits";
import { hasHiddenCharacters, httpUrl } from "../core/validation";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import type { Caller } from "../auth/caller";
import { DESIGN_MAX_BODY_BYTES, designSchema, fields, titleFromUrl, type DesignInput } from "../codes/fields";
import type { QrCode } from "../codes/model";
import { requestHashOf } from "../store/idempotency";
import { createCodesInBatch, createCodesOnce } from "./createOnce";

export const BULK_SCOPE = "qr:write" as const;

export const BulkRequestSchema = z
  .object({
    urls: z
      .array(httpUrl(URL_MAX_LENGTH))
      .min(1, "Give at least one URL")
      .max(BULK_MAX_URLS, `At most ${BULK_MAX_URLS} URLs per call`),
    design: designSchema.optional().describe("One brand design for every code of the call"),
    domainId: fields.domainId
      .unwrap()
      .optional()
      .describe("An active domain of the workspace: the codes are then dynamic, their links on that domain (docs/domains.md)"),
  })
  .strict();

export const BulkResponseSchema = z
  .object({
    ok: z.literal(true),
    count: z.number().int().min(1).max(BULK_MAX_URLS),
    codes: z.array(
      z.object({
        codeId: z.string(),
        title: z.string().describe("Made from the URL's host and path"),
        destinationUrl: z.string().url(),
        qrImageUrl: z.string().url().describe("The hosted PNG"),
        dynamicLink: z.string().url().optional().describe("With domainId: the code's link on the domain"),
      }),
    ),
  })
  .meta({ title: "BulkCodes" });

type BulkResponse = z.infer<typeof BulkResponseSchema>;

const IDEMPOTENCY_KEY_MAX = 255;

export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return undefined;
  const value = String(key).trim();
  if (!value || value.length > IDEMPOTENCY_KEY_MAX || hasHiddenCharacters(value)) {
    throw new AppError("VALIDATION_FAILED", `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible characters`);
  }
  return value;
}

async function handleBulk(req: Request, res: Response, caller: Caller, urls: string[], design?: DesignInput, domainId?: string): Promise<BulkResponse> {
  const key = idempotencyKeyOf(req);
  // Static unless a domain is named: a static code encodes its URL, so only a dynamic one has a host to carry.
  const onDomain = domainId ? { dynamic: true, domainId } : { domainId: null };
  const inputs = urls.map((url) => ({ title: titleFromUrl(url), destinationUrl: url, design, ...onDomain }));
  const finish = (_writer: unknown, codes: QrCode[]): BulkResponse => ({
    ok: true,
    count: codes.length,
    codes: codes.map((c) => ({ codeId: c.codeId, title: c.title, destinationUrl: c.destinationUrl, qrImageUrl: c.qrImageUrl, ...(domainId && c.dynamicLink ? { dynamicLink: c.dynamicLink } : {}) })),
  });
  if (!key) return createCodesInBatch(caller.merchantId, inputs, "bulk", finish);
  // Without a design or domain the hash is the URLs alone, as before they existed.
  const { response, replayed } = await createCodesOnce(caller.merchantId, key, requestHashOf(design || domainId ? { urls, design, domainId } : urls), inputs, "bulk", finish);
  if (replayed) res.set("Idempotent-Replayed", "true");
  return response;
}

export const bulkRoutes = [
  endpoint({
    method: "POST",
    path: "/api/bulk-qr-codes",
    summary: "Create up to 50 permanent static codes",
    credential: "caller",
    scope: BULK_SCOPE,
    limit: "bulk",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    body: BulkRequestSchema,
    response: BulkResponseSchema,
    doc: {
      operationId: "createBulkCodes",
      description:
        `1 to ${BULK_MAX_URLS} http(s) URLs become permanent static codes in the key's workspace, all or none. ` +
        "Send an Idempotency-Key to retry safely: the same key with the same body answers the first call's codes again (Idempotent-Replayed: true); with another body it is a 409.",
      errors: ["CONFLICT", "DESIGN_REFUSED", "DESTINATION_BLOCKED", "VALIDATION_FAILED"],
      requestHeaders: [
        {
          name: "Idempotency-Key",
          maxLength: IDEMPOTENCY_KEY_MAX,
          description: `Makes a retry safe: 1 to ${IDEMPOTENCY_KEY_MAX} visible characters, one per distinct request. Claimed before any code is written.`,
        },
      ],
      responseHeaders: { "Idempotent-Replayed": "`true` when the answer is a replay of an earlier call with the same Idempotency-Key" },
      example: {
        headers: { "Idempotency-Key": "menu-import-2026-11-23" },
        body: { urls: ["https://example.com/menu", "https://example.com/offers"] },
        response: {
          ok: true,
          count: 2,
          codes: [
            { codeId: "Hk2Qm8ZpT1xVb4sLr9Ne", title: "example.com/menu", destinationUrl: "https://example.com/menu", qrImageUrl: "https://svc.example/img/m_3f9a2c7d1e5b4a60/Hk2Qm8ZpT1xVb4sLr9Ne.png?token=7f3a" },
            { codeId: "Vb4xQ9kLr2m8ZpT1Hk2Q", title: "example.com/offers", destinationUrl: "https://example.com/offers", qrImageUrl: "https://svc.example/img/m_3f9a2c7d1e5b4a60/Vb4xQ9kLr2m8ZpT1Hk2Q.png?token=9b2e" },
          ],
        },
      },
    },
    handle: ({ req, res, caller, body }) => handleBulk(req, res, caller, body.urls, body.design, body.domainId),
  }),
];

export const bulkApp = createRestApp((app) => {
  mountEndpoints(app, "bulk", bulkRoutes);
  mountEndpoints(app, "bulk", (require("./jobRoutes") as typeof import("./jobRoutes")).jobRoutes);
  mountEndpoints(app, "bulk", (require("./campaignRoutes") as typeof import("./campaignRoutes")).campaignRoutes);
  mountEndpoints(app, "bulk", (require("./gs1Routes") as typeof import("./gs1Routes")).gs1Routes);
  mountEndpoints(app, "bulk", (require("./domainRoutes") as typeof import("./domainRoutes")).domainRoutes);
  mountEndpoints(app, "bulk", (require("./trackRoutes") as typeof import("./trackRoutes")).trackRoutes);
  mountEndpoints(app, "bulk", (require("./shopifyRoutes") as typeof import("./shopifyRoutes")).shopifyRoutes);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
}, { cors: "bulk" });
