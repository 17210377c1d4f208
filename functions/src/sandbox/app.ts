// POST /api/generate-qr-code (keyless sandbox) and GET for its manifest. Every response carries the
// caller's X-RateLimit-* headers.
import type { Request, Response } from "express";
import { z } from "zod";
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import { REST_MAX_BODY_BYTES, SANDBOX_DAILY_LIMIT, SANDBOX_LIFETIME_DAYS, URL_MAX_LENGTH, BULK_MAX_URLS } from "../core/limits";
import { httpUrl, parseOrThrow } from "../core/validation";
import { captureRawBody, createRestApp, isJsonContentType, methodNotAllowed, parseJsonBody, sendJsonError } from "../http/rest";
import type { Quota } from "../store/sandbox";
import { clientAddressOf } from "../http/clientAddress";
import { generateSandboxCode, nextUtcMidnight, quotaFor } from "./service";

export const SandboxRequestSchema = z.object({ url: httpUrl(URL_MAX_LENGTH) }).strict();

function setRateHeaders(res: Response, quota: Quota): void {
  res.set({
    "X-RateLimit-Limit": String(quota.limit),
    "X-RateLimit-Remaining": String(Math.max(0, quota.limit - quota.used)),
    "X-RateLimit-Reset": String(Math.floor(quota.resetAt.getTime() / 1000)),
  });
}

async function handleGenerate(req: Request, res: Response): Promise<void> {
  const ip = clientAddressOf(req);
  try {
    if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json with {\"url\": \"https://...\"}");
    const { url } = parseOrThrow(SandboxRequestSchema, parseJsonBody(req, REST_MAX_BODY_BYTES), "request");
    const { quota, body } = await generateSandboxCode(url, ip);
    setRateHeaders(res, quota);
    res.set("Cache-Control", "no-store").json(body);
  } catch (error) {
    const now = new Date();
    if (error instanceof AppError && error.code === "RATE_LIMITED") {
      setRateHeaders(res, { limit: SANDBOX_DAILY_LIMIT, used: SANDBOX_DAILY_LIMIT, resetAt: nextUtcMidnight(now) });
      res.set("Retry-After", String(Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000)));
    } else {
      setRateHeaders(res, await quotaFor(ip, now).catch(() => ({ limit: SANDBOX_DAILY_LIMIT, used: 0, resetAt: nextUtcMidnight(now) })));
    }
    sendJsonError(res, error, req.path);
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
      url: { type: "string", required: true, description: `http or https URL to encode, at most ${URL_MAX_LENGTH} characters` },
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

async function handleManifest(req: Request, res: Response): Promise<void> {
  setRateHeaders(res, await quotaFor(clientAddressOf(req)));
  res.set("Cache-Control", "no-store").json(sandboxManifest());
}

export const sandboxApp = createRestApp((app) => {
  app.post("/api/generate-qr-code", captureRawBody(REST_MAX_BODY_BYTES), handleGenerate);
  app.get("/api/generate-qr-code", handleManifest);
  app.all("/api/generate-qr-code", () => methodNotAllowed("GET, POST"));
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
});
