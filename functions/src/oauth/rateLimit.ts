// Limits on the OAuth endpoints, in fixed windows (store/oauthRateLimits.ts). Registration and authorization
// are per address (no credential yet); the token endpoint is limited per client and per grant, with a
// per-address ceiling high enough for every user of a hosted app whose servers share a few addresses.
import { AppError } from "../core/errors";
import { logRateLimited } from "../core/log";
import { SHARED_PROXY_FACTOR, SHARED_PROXY_SUBJECT } from "../core/constants";
import { countHit } from "../store/oauthRateLimits";

export const OAUTH_LIMITS = {
  register: { limit: 20, windowMs: 3600_000, per: "address", what: "registration" },
  authorize: { limit: 60, windowMs: 600_000, per: "address", what: "authorization" },
  /** Token and revocation requests from one address (an IPv6 /64): a ceiling, not the working limit. */
  tokenAddress: { limit: 3000, windowMs: 600_000, per: "address", what: "token" },
  /** Code redemptions per client_id (counted only for real codes of that client). */
  tokenClient: { limit: 600, windowMs: 600_000, per: "client", what: "token" },
  /** Refreshes and revocations per grant (an hourly refresh needs one). */
  tokenGrant: { limit: 60, windowMs: 600_000, per: "grant", what: "token" },
} as const;

export type OAuthBucket = keyof typeof OAUTH_LIMITS;

/**
 * Counts one hit for `subject`: for address buckets, limitSubjectOf(clientOf(req)) (an address, an IPv6 /64,
 * or the shared proxy bucket); else a client_id or a grant id, as the bucket says.
 */
export async function enforceOAuthLimit(bucket: OAuthBucket, subject: string): Promise<void> {
  const { windowMs, per, what } = OAUTH_LIMITS[bucket];
  const limit = subject === SHARED_PROXY_SUBJECT ? OAUTH_LIMITS[bucket].limit * SHARED_PROXY_FACTOR : OAUTH_LIMITS[bucket].limit;
  const key = subject;
  const { count, resetAt } = await countHit(bucket, key, windowMs);
  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    logRateLimited({ surface: "oauth", limit: bucket, subject: per === "address" ? `address:${key}` : `${per}:${subject}`, max: limit, windowSeconds: Math.round(windowMs / 1000) });
    throw new AppError("RATE_LIMITED", `Too many ${what} requests for this ${per}; retry in ${retryAfter} s`, {
      details: { retryAfter, limit, oauthError: "temporarily_unavailable" },
    });
  }
}
