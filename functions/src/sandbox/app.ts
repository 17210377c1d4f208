// POST /api/generate-qr-code (keyless sandbox) and GET for its manifest. Every response carries the
// caller's X-RateLimit-* headers.
import type { Request, Response } from "express";
import { z } from "zod";
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import { SANDBOX_DAILY_LIMIT, SANDBOX_LIFETIME_DAYS, URL_MAX_LENGTH, BULK_MAX_URLS } from "../core/limits";
import { httpUrl } from "../core/validation";
import { designColoursShape } from "../codes/fields";
import { createRestApp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import type { Quota } from "../store/sandbox";
import { clientOf } from "../http/clientAddress";
import { generateSandboxCode, nextUtcMidnight, quotaFor, sandboxLimitFor } from "./service";

export const SandboxRequestSchema = z
  .object({ url: httpUrl(URL_MAX_LENGTH), design: z.object(designColoursShape).strict().optional().describe("Colours only: foreground and background, #RRGGBB") })
  .strict();

function setRateHeaders(res: Response, quota: Quota): void {
  res.set({
    "X-RateLimit-Limit": String(quota.limit),
    "X-RateLimit-Remaining": String(Math.max(0, quota.limit - quota.used)),
    "X-RateLimit-Reset": String(Math.floor(quota.resetAt.getTime() / 1000)),
  });
}

/** On an error the caller still learns where their quota stands (and, when over it, how long to wait). */
async function quotaHeadersOnError(req: Request, res: Response, error: unknown): Promise<void> {
  const now = new Date();
  const client = clientOf(req);
  const limit = sandboxLimitFor(client);
  if (error instanceof AppError && error.code === "RATE_LIMITED") {
    setRateHeaders(res, { limit, used: limit, resetAt: nextUtcMidnight(now) });
    res.set("Retry-After", String(Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000)));
  } else {
    setRateHeaders(res, await quotaFor(client, now).catch(() => ({ limit, used: 0, resetAt: nextUtcMidnight(now) })));
  }
}

export function sandboxManifest() {
  const c = getConfig();
  return {
    name: "svc keyless QR code sandbox",
    description: "Make a real, scannable QR code without an account or key. Claim it into an account to keep it.",
    endpoint: `${c.appUrl}/api/generate-qr-code`,
    method: "POST",
    contentType: "application/json",
    request: {
      url: { type: "string", required: true, description: `http or https URL to encode, at most ${URL_MAX_LENGTH} bytes once normalised (non-ASCII is percent-encoded); stored and encoded in its normalised form` },
      otherFields: "none: any other field is rejected with 400",
    },
    response: {
      ok: "true on success",
      code: {
        id: "sandbox code id",
        destinationUrl: "the submitted url",
        qrImage: "data:image/png;base64 URL of a 512 px PNG that encodes the url",
        claimToken: "secret token that claims the code into an account (shown once)",
        expiresAt: `ISO 8601 UTC time, ${SANDBOX_LIFETIME_DAYS} days after creation, when the code is removed unless claimed`,
      },
      upgrade: {
        signup: "merchant console where you sign up",
        claim: "link that claims this code after you sign in",
        bulk: "bulk endpoint (needs an API key)",
        getApiKey: "where API keys are minted",
      },
    },
    errors: {
      "400": "malformed JSON, missing/extra/wrongly typed field, or a URL that is not http(s) or too long: {error, code, message, hint, status, path}",
      "415": "Content-Type is not application/json",
      "429": "over the daily limit: code RATE_LIMITED, with Retry-After",
    },
    limits: {
      perIpPerDay: SANDBOX_DAILY_LIMIT,
      day: "UTC day; X-RateLimit-Reset is the next UTC midnight in epoch seconds",
      lifetimeDays: SANDBOX_LIFETIME_DAYS,
      headers: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After (429 only)"],
    },
    bulk: {
      endpoint: `${c.appUrl}/api/bulk-qr-codes`,
      auth: "Authorization: Bearer <sk-svc- API key> with the qr:write scope",
      request: `{"urls": [1 to ${BULK_MAX_URLS} http(s) URLs]}`,
      response: "{ok, count, codes: [{codeId, title, destinationUrl, qrImageUrl}]}: permanent codes with hosted PNGs",
    },
    getApiKey: {
      console: c.createUrl,
      steps: "Sign in, open Settings, API keys, choose New API key; the key is shown once.",
      mcp: c.mcpFunctionUrl,
    },
    docs: c.docsUrl,
  };
}

export const sandboxApp = createRestApp((app) => {
  mountEndpoints(app, "sandbox", [
    endpoint({
      method: "POST",
      path: "/api/generate-qr-code",
      credential: "none",
      body: SandboxRequestSchema,
      headers: { "Cache-Control": "no-store" },
      onError: quotaHeadersOnError,
      async handle({ req, res, body }) {
        const { quota, body: answer } = await generateSandboxCode(body.url, clientOf(req), new Date(), body.design);
        setRateHeaders(res, quota);
        return answer;
      },
    }),
    endpoint({
      method: "GET",
      path: "/api/generate-qr-code",
      credential: "none",
      headers: { "Cache-Control": "no-store" },
      async handle({ req, res }) {
        setRateHeaders(res, await quotaFor(clientOf(req)));
        return sandboxManifest();
      },
    }),
  ]);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
}, { cors: "sandbox" });
