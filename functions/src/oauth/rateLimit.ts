// Per-address limits on the OAuth endpoints (registration, authorization, token). Small and self-contained so
// the service-wide limiter can replace it: callers only see `enforce(bucket, address)`.
import { AppError } from "../core/errors";
import { rateLimitSubject } from "../http/clientAddress";
import { countHit } from "../store/oauthRateLimits";

export const OAUTH_LIMITS = {
  register: { limit: 20, windowMs: 3600_000 },
  authorize: { limit: 60, windowMs: 600_000 },
  token: { limit: 120, windowMs: 600_000 },
} as const;

export type OAuthBucket = keyof typeof OAUTH_LIMITS;

export async function enforceOAuthLimit(bucket: OAuthBucket, address: string): Promise<void> {
  const { limit, windowMs } = OAUTH_LIMITS[bucket];
  const { count, resetAt } = await countHit(bucket, rateLimitSubject(address), windowMs);
  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    throw new AppError("RATE_LIMITED", `Too many ${bucket} requests from this address; retry in ${retryAfter} s`, {
      details: { retryAfter, limit, oauthError: "temporarily_unavailable" },
    });
  }
}
