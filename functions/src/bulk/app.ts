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
import { createCodes } from "../codes/service";
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, requestHashOf } from "../store/idempotency";

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

const WAIT_FOR_OTHER_CALL_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function conflict(): AppError {
  return new AppError("CONFLICT", "This Idempotency-Key was used with a different request body", {
    hint: "Use a new Idempotency-Key for a new request.",
  });
}

/**
 * Claims the key, or answers with what another call holding it produced: its response for the same
 * body (after waiting for it to finish), 409 for a different body.
 */
export async function claimOrReplay<T = BulkResponse>(merchantId: string, key: string, requestHash: string): Promise<{ claimId: string } | { replay: T }> {
  const deadline = Date.now() + WAIT_FOR_OTHER_CALL_MS;
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    const claim = await claimIdempotencyKey<T>(merchantId, key, requestHash);
    if (claim.state === "claimed") return { claimId: claim.claimId };
    if (!claim.sameRequest) throw conflict();
    if (claim.state === "done") return { replay: claim.response };
    if (Date.now() + wait > deadline) {
      throw new AppError("CONFLICT", "Another request with this Idempotency-Key is still in progress", {
        hint: "Retry with the same Idempotency-Key in a few seconds to get its result.",
      });
    }
    await sleep(wait);
  }
}

async function handleBulk(req: Request, res: Response, caller: Caller, urls: string[], design?: DesignInput): Promise<BulkResponse | undefined> {
  const key = idempotencyKeyOf(req);
  // Without a design the hash is the URLs alone, as before designs existed.
  const requestHash = requestHashOf(design ? { urls, design } : urls);

  let claimId: string | undefined;
  if (key) {
    const outcome = await claimOrReplay(caller.merchantId, key, requestHash);
    if ("replay" in outcome) {
      res.set("Idempotent-Replayed", "true");
      return outcome.replay;
    }
    claimId = outcome.claimId;
  }
  let response: BulkResponse | undefined;
  try {
    await createCodes(
      caller.merchantId,
      urls.map((url) => ({ title: titleFromUrl(url), destinationUrl: url, design })),
      "bulk",
      (batch, codes) => {
        response = {
          ok: true,
          count: codes.length,
          codes: codes.map((c) => ({ codeId: c.codeId, title: c.title, destinationUrl: c.destinationUrl, qrImageUrl: c.qrImageUrl })),
        };
        if (key) completeIdempotencyKey(batch, caller.merchantId, key, response);
      },
    );
  } catch (error) {
    if (key && claimId) await releaseIdempotencyKey(caller.merchantId, key, claimId).catch(() => undefined);
    throw error;
  }
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
});
