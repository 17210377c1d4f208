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
import { clientOf } from "../core/clientAddress";
import { requestSafeBrowsingServer } from "../core/testClock";
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
  // The per-address request limit (sandboxRequests) refused: its own headers, set with the refusal, stand.
  if (error instanceof AppError && error.code === "RATE_LIMITED" && res.hasHeader("Retry-After")) return;
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
    method: "POST" as const,
    contentType: "application/json" as const,
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
      "422": "a design that does not scan (DESIGN_REFUSED) or a destination on the abuse blocklist (DESTINATION_BLOCKED)",
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

const url = z.string().url();

export const SandboxResponseSchema = z
  .object({
    ok: z.literal(true),
    code: z.object({
      id: z.string().describe("Sandbox code id"),
      destinationUrl: url.describe("The URL the code encodes, normalised"),
      qrImage: z.string().startsWith("data:image/png;base64,").describe("A 512 px PNG of the code as a data: URL"),
      claimToken: z.string().describe("Claims the code into an account; shown once"),
      expiresAt: z.string().datetime().describe(`When the code is removed unless claimed (${SANDBOX_LIFETIME_DAYS} days)`),
    }),
    upgrade: z.object({
      signup: z.string(),
      claim: z.string(),
      claimHow: z.string(),
      bulk: z.string(),
      getApiKey: z.string(),
      docs: z.string(),
      limits: z.string(),
    }),
  })
  .meta({ title: "SandboxCode" });

/** The manifest is prose for readers and agents; its outline is fixed, its texts are not. */
export const SandboxManifestSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    endpoint: url,
    method: z.literal("POST"),
    contentType: z.literal("application/json"),
    request: z.record(z.string(), z.unknown()),
    response: z.record(z.string(), z.unknown()),
    errors: z.record(z.string(), z.string()),
    limits: z.object({ perIpPerDay: z.number().int(), day: z.string(), lifetimeDays: z.number().int(), headers: z.array(z.string()) }),
    bulk: z.record(z.string(), z.string()),
    getApiKey: z.record(z.string(), z.string()),
    docs: z.string(),
  })
  .meta({ title: "SandboxManifest" });

const noStore = { "Cache-Control": "no-store" };

export const sandboxRoutes = [
  endpoint({
    method: "POST",
    path: "/api/generate-qr-code",
    summary: "Make a QR code without an account",
    credential: "none",
    addressLimit: "sandboxRequests",
    body: SandboxRequestSchema,
    response: SandboxResponseSchema,
    headers: noStore,
    onError: quotaHeadersOnError,
    doc: {
      operationId: "createSandboxCode",
      description:
        `A real, scannable code for an http(s) URL, with optional colours. ${SANDBOX_DAILY_LIMIT} codes per address per UTC day ` +
        `(X-RateLimit-* on every answer, errors included); each lasts ${SANDBOX_LIFETIME_DAYS} days unless claimed into an account with its claimToken.`,
      errors: ["RATE_LIMITED", "DESIGN_REFUSED", "DESTINATION_BLOCKED", "UNAVAILABLE"],
      rateLimitHeaders: true,
      example: {
        body: { url: "https://example.com/menu", design: { foreground: "#1A237E", background: "#FFFFFF" } },
        response: {
          ok: true,
          code: {
            id: "Xq3b9LmT2vRk8sWp0aZd",
            destinationUrl: "https://example.com/menu",
            qrImage: "data:image/png;base64,iVBORw0KGgo=",
            claimToken: "claim_q8Zr2kVbX4mT9pL1sW7eYc3nA0dF6gH5",
            expiresAt: "2026-11-30T12:00:00.000Z",
          },
          upgrade: {
            signup: "https://svc.example/console/",
            claim: "https://svc.example/console/?claim=claim_q8Zr2kVbX4mT9pL1sW7eYc3nA0dF6gH5",
            claimHow: "Sign in to the console with the claim link to keep this code forever in your workspace.",
            bulk: "https://svc.example/api/bulk-qr-codes",
            getApiKey: "https://svc.example/console/ (Settings, API keys, New API key)",
            docs: "https://svc.example/docs/",
            limits: "10 sandbox codes per IP per UTC day; sandbox codes expire after 7 days unless claimed.",
          },
        },
      },
    },
    async handle({ req, res, body }) {
      const { quota, body: answer } = await generateSandboxCode(body.url, clientOf(req), new Date(), body.design, {
        safeBrowsingStandIn: requestSafeBrowsingServer(req.headers, getConfig().honoursTestClock),
      });
      setRateHeaders(res, quota);
      return answer;
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/generate-qr-code",
    summary: "How to use the sandbox, and the caller's quota",
    credential: "none",
    response: SandboxManifestSchema,
    headers: noStore,
    doc: {
      operationId: "getSandboxManifest",
      description: "A machine-readable description of the sandbox, its limits and the way to an API key. Its X-RateLimit-* headers give the caller's standing for today.",
      rateLimitHeaders: true,
    },
    async handle({ req, res }) {
      setRateHeaders(res, await quotaFor(clientOf(req)));
      return sandboxManifest();
    },
  }),
];

export const sandboxApp = createRestApp((app) => {
  mountEndpoints(app, "sandbox", sandboxRoutes);
  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${req.path}`);
  });
}, { cors: "sandbox" });
