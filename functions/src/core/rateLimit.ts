// Per-key and per-user rate limits on keyed surfaces, shared across instances (docs/decisions.md,
// "Rate limits"). Fixed windows: each instance counts locally and, at most once a second per subject,
// publishes its count and reads the sum of the other instances' counts (store/rateLimits.ts). The limit
// is therefore approximate: N instances can each let through up to a second's worth of calls beyond it
// before they see each other. A Firestore failure fails open (logged): a limiter outage must not take
// the service down with it.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./hash";
import { AppError } from "./errors";
import { logError } from "./log";
import { readRateLimitOverrides, syncWindowCount } from "../store/rateLimits";

export interface RateLimitRule {
  max: number;
  windowSeconds: number;
  /** What is counted, for messages and docs. */
  counts: string;
}

/** Defaults; an operator can change `max` per workspace (docs/decisions.md lists them). */
export const RATE_LIMITS = {
  toolCalls: { max: 600, windowSeconds: 60, counts: "tools/call requests" },
  bulk: { max: 60, windowSeconds: 60, counts: "bulk requests" },
  appScans: { max: 120, windowSeconds: 60, counts: "app scan reports" },
  consoleWrites: { max: 120, windowSeconds: 60, counts: "console changes" },
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitName = keyof typeof RATE_LIMITS;
export const RATE_LIMIT_NAMES = Object.keys(RATE_LIMITS) as RateLimitName[];

/** Who is limited: an API key, or a signed-in user (ID token or session cookie). */
export interface RateSubject {
  /** The workspace whose overrides apply; absent for a signed-in user acting outside any workspace. */
  merchantId?: string;
  keyId?: string;
  uid: string;
}

export interface RateDecision {
  name: RateLimitName;
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: Date;
  retryAfterSeconds: number;
}

interface WindowState {
  index: number;
  local: number;
  others: number;
  syncedAt: number;
  syncing?: Promise<void>;
}

const OVERRIDE_CACHE_MS = 30_000;
const MAX_TRACKED_SUBJECTS = 20_000;

export class RateLimiter {
  private readonly states = new Map<string, WindowState>();
  private readonly overrides = new Map<string, { at: number; values: Promise<Record<string, number>> }>();

  constructor(
    private readonly instanceId = randomBytes(8).toString("hex"),
    private readonly syncIntervalMs = 1000,
  ) {}

  /** Counts one call against `name` for the subject, unless it is over the limit. */
  async take(name: RateLimitName, subject: RateSubject, now = Date.now()): Promise<RateDecision> {
    return this.decide(name, subject, now, true);
  }

  /** The subject's standing without counting a call (for headers on responses that cost nothing). */
  async peek(name: RateLimitName, subject: RateSubject, now = Date.now()): Promise<RateDecision> {
    return this.decide(name, subject, now, false);
  }

  private async decide(name: RateLimitName, subject: RateSubject, now: number, consume: boolean): Promise<RateDecision> {
    const rule = RATE_LIMITS[name];
    const max = (await this.overridesFor(subject.merchantId, now))[name] ?? rule.max;
    const windowMs = rule.windowSeconds * 1000;
    const index = Math.floor(now / windowMs);
    const resetAt = new Date((index + 1) * windowMs);
    const key = `${name}_${subjectHash(subject)}_${index}`;
    const state = this.stateFor(key, index);
    if (consume) state.local += 1;
    if (now - state.syncedAt >= this.syncIntervalMs) await this.sync(key, state, resetAt, now);
    const used = state.local + state.others;
    const allowed = !consume || used <= max;
    if (consume && !allowed) state.local -= 1; // a refused call is not counted
    return {
      name,
      allowed,
      limit: max,
      remaining: Math.max(0, max - (state.local + state.others)),
      resetAt,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000)),
    };
  }

  private stateFor(key: string, index: number): WindowState {
    let state = this.states.get(key);
    if (!state) {
      if (this.states.size >= MAX_TRACKED_SUBJECTS) {
        for (const [k, s] of this.states) if (s.index < index) this.states.delete(k);
      }
      state = { index, local: 0, others: 0, syncedAt: 0 };
      this.states.set(key, state);
    }
    return state;
  }

  private sync(key: string, state: WindowState, resetAt: Date, now: number): Promise<void> {
    state.syncing ??= syncWindowCount(key, this.instanceId, state.local, new Date(resetAt.getTime() + 3_600_000))
      .then((others) => {
        state.others = others;
        state.syncedAt = now;
      })
      .catch((error) => {
        state.syncedAt = now; // fail open, and do not retry on every call
        logError("rate limit sync failed", error);
      })
      .finally(() => {
        state.syncing = undefined;
      });
    return state.syncing;
  }

  private overridesFor(merchantId: string | undefined, now: number): Promise<Record<string, number>> {
    if (!merchantId) return Promise.resolve({});
    const cached = this.overrides.get(merchantId);
    if (cached && now - cached.at < OVERRIDE_CACHE_MS) return cached.values;
    const values = readRateLimitOverrides(merchantId).catch((error) => {
      logError("rate limit overrides unreadable", error);
      return {};
    });
    this.overrides.set(merchantId, { at: now, values });
    return values;
  }
}

function subjectHash(subject: RateSubject): string {
  const id = subject.keyId ? `key:${subject.keyId}` : `user:${subject.uid}`;
  return sha256Hex(id).slice(0, 32);
}

/** The instance's limiter: one per process, like any per-instance cache. */
let shared: RateLimiter | undefined;
export const rateLimiter = (): RateLimiter => (shared ??= new RateLimiter());

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(Math.floor(decision.resetAt.getTime() / 1000)),
    ...(decision.allowed ? {} : { "Retry-After": String(decision.retryAfterSeconds) }),
  };
}

export function rateLimitedError(decision: RateDecision): AppError {
  const rule = RATE_LIMITS[decision.name];
  return new AppError(
    "RATE_LIMITED",
    `Rate limit reached: at most ${decision.limit} ${rule.counts} per ${rule.windowSeconds} s for this credential; retry in ${decision.retryAfterSeconds} s`,
    {
      hint: "Wait for Retry-After seconds. Limits are per key or signed-in user; ask the operator for a higher workspace limit.",
      details: { limit: decision.limit, windowSeconds: rule.windowSeconds, retryAfterSeconds: decision.retryAfterSeconds, resetAt: decision.resetAt.toISOString() },
    },
  );
}
