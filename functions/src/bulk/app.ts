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
import { DESIGN_MAX_BODY_BYTES, designSchema, titleFromUrl, type DesignInput } from "../codes/fields";
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
  })
  .strict();

interface BulkResponse {
  ok: true;
  count: number;
  codes: Array<{ codeId: string; title: string; destinationUrl: string; qrImageUrl: string }>;
}

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

async function handleBulk(req: Request, res: Response, caller: Caller, urls: string[], design?: DesignInput): Promise<BulkResponse> {
  const key = idempotencyKeyOf(req);
  const inputs = urls.map((url) => ({ title: titleFromUrl(url), destinationUrl: url, design }));
  const finish = (_writer: unknown, codes: QrCode[]): BulkResponse => ({
    ok: true,
    count: codes.length,
    codes: codes.map((c) => ({ codeId: c.codeId, title: c.title, destinationUrl: c.destinationUrl, qrImageUrl: c.qrImageUrl })),
  });
  if (!key) return createCodesInBatch(caller.merchantId, inputs, "bulk", finish);
  // Without a design the hash is the URLs alone, as before designs existed.
  const { response, replayed } = await createCodesOnce(caller.merchantId, key, requestHashOf(design ? { urls, design } : urls), inputs, "bulk", finish);
  if (replayed) res.set("Idempotent-Replayed", "true");
  return response;
}

export const bulkApp = createRestApp((app) => {
  mountEndpoints(app, "bulk", [
    endpoint({
      method: "POST",
      path: "/api/bulk-qr-codes",
      credential: "caller",
      scope: BULK_SCOPE,
      limit: "bulk",
      maxBodyBytes: DESIGN_MAX_BODY_BYTES,
      body: BulkRequestSchema,
      handle: ({ req, res, caller, body }) => handleBulk(req, res, caller!, body.urls, body.design),
    }),
  ]);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
}, { cors: "bulk" });
