// Rate limits shared across instances (docs/decisions.md, "Rate limits"). Fixed windows; each instance
// admits calls from quota it has leased, and leases more in chunks when it runs out. A lease writes the
// instance's own running total for the window to its own document, then (only after that write) reads
// every instance's total (a QuotaStore: store/rateLimits.ts in production), and keeps only what fits under the limit. Because each
// instance writes before it reads, of any two concurrent leases at least one sees the other, so leases
// granted across instances never add up past the limit; no document is written by two instances.
// The price is quota leased but left unused on an instance (at most a chunk each, chunks shrink as the
// window's budget runs low). A Firestore failure fails open (logged): a limiter outage must not take the
// service down with it.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "./hash";
import { AppError } from "./errors";
import { isSharedProxySubject, SHARED_PROXY_FACTOR } from "./constants";
import { logError, logWarn } from "./log";

/** Operator overrides of a workspace: per-credential maxima, and the workspace's aggregate maxima. */
export interface RateLimitOverrides {
  subject: Record<string, number>;
  workspace: Record<string, number>;
}

/**
 * Where the windows' totals live, shared by every instance (store/rateLimits.ts: Firestore). Declared here
 * and implemented below core/, so core/ depends on no store module.
 */
export interface QuotaStore {
  /** The sum of every other instance's total for a window. */
  readWindowTotal(windowKey: string, instanceId: string): Promise<number>;
  /** Writes this instance's total plus `chunk` first, then reads the others', and keeps what fits under `max`. */
  leaseWindowQuota(windowKey: string, instanceId: string, granted: number, chunk: number, max: number, expiresAt: Date): Promise<{ granted: number; others: number }>;
  readRateLimitOverrides(merchantId: string): Promise<RateLimitOverrides>;
}

export interface RateLimitRule {
  max: number;
  windowSeconds: number;
  /** What is counted, for messages and docs. */
  counts: string;
  /** Who it is counted for: a credential (key, OAuth grant or signed-in user), a client address, an OAuth client_id, or a workspace as a whole. */
  per: "credential" | "address" | "client" | "workspace" | "code";
}

/** Defaults; an operator can change `max` per workspace (docs/decisions.md lists them). */
export const RATE_LIMITS = {
  toolCalls: { max: 600, windowSeconds: 60, counts: "tools/call requests", per: "credential" },
  bulk: { max: 60, windowSeconds: 60, counts: "bulk requests", per: "credential" },
  /** A job makes up to 10,000 codes in the background: few a day are needed. */
  jobs: { max: 20, windowSeconds: 3600, counts: "catalogue jobs started", per: "credential" },
  appScans: { max: 120, windowSeconds: 60, counts: "app scan reports", per: "credential" },
  /** Leads, sales and reversals a site, till or shop reports (docs/attribution.md): a busy till's rate, per key. */
  tracking: { max: 600, windowSeconds: 60, counts: "tracking calls", per: "credential" },
  consoleWrites: { max: 120, windowSeconds: 60, counts: "console changes", per: "credential" },
  /** Every console read is counted before it reads, so a signed-up user cannot loop the costly ones. */
  consoleReads: { max: 300, windowSeconds: 60, counts: "console reads", per: "credential" },
  /** Analytics and the dashboard read up to 400 rollup documents each: their own, smaller budget. */
  consoleAnalytics: { max: 60, windowSeconds: 60, counts: "console analytics reads", per: "credential" },
  previews: { max: 300, windowSeconds: 60, counts: "PNG previews", per: "credential" },
  /**
   * Requests to the keyless sandbox's POST, per address, whatever they make: its daily code quota counts
   * only codes made, so refused and invalid requests (each may cost a Safe Browsing lookup) are bounded here.
   */
  sandboxRequests: { max: 30, windowSeconds: 600, counts: "sandbox requests", per: "address" },
  /** The public abuse report form: enough for a person reporting several codes, not for flooding the queue. */
  abuseReports: { max: 10, windowSeconds: 3600, counts: "abuse reports", per: "address" },
  /** Passwords sent to password-protected codes' pages (every attempt, right or wrong), per address: guessing stays slow. */
  passwordAttempts: { max: 10, windowSeconds: 600, counts: "password attempts", per: "address" },
  /**
   * One code's password budget, every address together (docs/campaign-rules.md, "Guessing"): attempts
   * checked freely. Once it is spent, each address gets one try at the code for the rest of the window.
   */
  passwordCodeAttempts: { max: 50, windowSeconds: 600, counts: "password attempts at one code", per: "code" },
  /** While a code's budget is spent: the one try an address (IPv4, or IPv6 /64) gets at it. */
  passwordTriesWhileGuessed: { max: 1, windowSeconds: 600, counts: "password tries at a code whose budget is spent", per: "address" },
  /** While a code's budget is spent: tries from one IPv6 /48 together (a /48 holds 65,536 /64s). */
  passwordNetworkTriesWhileGuessed: { max: 3, windowSeconds: 600, counts: "password tries from one IPv6 /48 at a code whose budget is spent", per: "address" },
  /** The merchant's alert that a code's password is being guessed: at most one a day per code. */
  passwordAlerts: { max: 1, windowSeconds: 86_400, counts: "password guessing alerts", per: "code" },
  /**
   * Print files drawn on request (/img/png, /img/pdf, /img/svg, /img/print-hint). The CDN answers repeats
   * without reaching the function, so only misses count: a person downloading files is never stopped,
   * a script walking sizes and codes is, before it draws anything. Whole catalogues come from a job's package.
   */
  imageFiles: { max: 120, windowSeconds: 60, counts: "print files drawn", per: "address" },
  mcpUnauthenticated: { max: 1200, windowSeconds: 60, counts: "MCP requests without a valid credential", per: "address" },
  /** Shopify's order webhooks (bulk/shopifyRoutes.ts): counted before the shop is read, so an unsigned flood costs a counter, not a read each. */
  shopifyWebhooks: { max: 1200, windowSeconds: 60, counts: "Shopify webhook deliveries", per: "address" },
  // The OAuth server's endpoints. Registration and authorization are per address (no credential yet); the
  // token endpoint is limited per client and per grant, with a per-address ceiling high enough for every
  // user of a hosted app whose servers share a few addresses.
  oauthRegister: { max: 20, windowSeconds: 3600, counts: "client registrations", per: "address" },
  oauthAuthorize: { max: 60, windowSeconds: 600, counts: "authorization requests", per: "address" },
  oauthTokenAddress: { max: 3000, windowSeconds: 600, counts: "token and revocation requests", per: "address" },
  /** Counted only for real codes of the client: anyone can name a public client_id. */
  oauthTokenClient: { max: 600, windowSeconds: 600, counts: "code redemptions", per: "client" },
  /** Refreshes and revocations per grant (an hourly refresh needs one). */
  oauthTokenGrant: { max: 60, windowSeconds: 600, counts: "refreshes and revocations", per: "credential" },
  /**
   * A workspace's share of the shared webhook queue: delivery attempts it may make a minute (each up to
   * 100 scans). Taken when a task is dispatched; over it, the task goes back to the queue unsent.
   */
  webhookAttempts: { max: 300, windowSeconds: 60, counts: "webhook delivery attempts", per: "workspace" },
  /**
   * Scan notices a workspace may put on the delivery queue a minute (each a task of up to 100 scans): the
   * bound on its backlog, the same as its share of attempts, so a flood of its scans queues no faster than
   * its share drains; past it notices are shed (webhook.scans_shed).
   */
  webhookScanEnqueues: { max: 300, windowSeconds: 60, counts: "scan notice deliveries queued", per: "workspace" },
  /**
   * Print packages of existing codes a workspace starts a day (jobs of format "codes", up to 10,000 codes
   * each): they make no code, so the code quota does not bound them, and each fills catalogue queue steps.
   */
  codePackages: { max: 20, windowSeconds: 86_400, counts: "print packages of existing codes", per: "workspace" },
  /**
   * New GS1 keys a workspace claims on the shared resolver host under no company prefix it has verified
   * (docs/gs1-resolver.md, "Who may claim a key"): enough to try the resolver, not to squat a prefix block.
   */
  gs1KeyClaims: { max: 100, windowSeconds: 86_400, counts: "new GS1 keys under an unverified company prefix", per: "workspace" },
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitName = keyof typeof RATE_LIMITS;
export const RATE_LIMIT_NAMES = Object.keys(RATE_LIMITS) as RateLimitName[];

/**
 * A workspace's aggregate budget for a credential limit, unless an operator sets one: this many times
 * the per-credential limit in effect, so minting more keys or grants does not multiply it.
 */
export const WORKSPACE_LIMIT_MULTIPLE = 3;

/** Who is limited: an API key or OAuth grant, a signed-in user, an OAuth client, or (per-address limits) a client address. */
export interface RateSubject {
  /** The workspace whose overrides and aggregate budget apply; absent outside any workspace. */
  merchantId?: string;
  keyId?: string;
  uid?: string;
  /** A client address, or an IPv6 /64 (core/clientAddress.ts rateLimitSubject). */
  address?: string;
  /** An OAuth client_id (per-client limits). */
  clientId?: string;
  /** A code's scan id (per-code limits; with `address`, that address's budget at that code). */
  code?: string;
}

export interface RateDecision {
  name: RateLimitName;
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: Date;
  retryAfterSeconds: number;
  /** Which budget decided: the credential's (or address's) own, or the workspace's aggregate. */
  scope: "subject" | "workspace";
}

/** One subject's window on this instance. */
interface Bucket {
  /** The window key shared by every instance (a valid document id). */
  key: string;
  index: number;
  /** The instance id its quota is leased under (the limiter's id when the bucket was made). */
  instance: string;
  /** When its window ends (ms): from then on it is never used again. */
  windowEnd: number;
  /** When the window's documents may be deleted (TTL): an hour after the window ends. */
  expiresAt: Date;
  /** Quota this instance holds in the window: its document's count. */
  granted: number;
  /** Calls admitted here from that quota. */
  used: number;
  /** The other instances' totals at the last lease or read. */
  others: number;
  readAt: number;
  /** Set when a lease got less than it asked for: refuse locally until a re-check is due. */
  exhaustedAt?: number;
  leasing?: Promise<void>;
  /** Calls waiting for the lease in flight. */
  waiting: number;
  /** The next lease's size before caps: doubles while leases run out fast, halves when they do not. */
  chunk: number;
  /** performance.now() when the last lease arrived. */
  leasedAt: number;
}

/** Largest lease, as a fraction of the limit; leases also shrink to a tenth of what is left. */
const LEASE_DIVISOR = 20;
const REMAINDER_DIVISOR = 10;
/** A lease used up within this long was too small: the next one is twice the size (about one lease a second at a steady rate). */
const FAST_LEASE_MS = 1000;
/** How long an exhausted bucket refuses without asking Firestore again (limits can be raised meanwhile). */
const EXHAUSTED_RECHECK_MS = 1000;
const PEEK_READ_INTERVAL_MS = 1000;
const OVERRIDE_CACHE_MS = 30_000;
/** Buckets one instance tracks at most (about 250 bytes each): a flood of new subjects cannot grow memory past it. */
export const MAX_TRACKED_BUCKETS = 20_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly overrides = new Map<string, { at: number; values: Promise<RateLimitOverrides> }>();

  constructor(
    private readonly store: QuotaStore,
    private instanceId = randomBytes(8).toString("hex"),
    private readonly maxBuckets = MAX_TRACKED_BUCKETS,
  ) {}

  /** Buckets held now (for tests and the bound's check). */
  get trackedBuckets(): number {
    return this.buckets.size;
  }

  /** Counts one call against `name` for the subject, unless its own or its workspace's budget is spent. */
  async take(name: RateLimitName, subject: RateSubject, now = Date.now()): Promise<RateDecision> {
    const { own, workspace, max, workspaceMax, index } = await this.bucketsFor(name, subject, now);
    if (!(await this.acquire(own, max, now))) return decision(name, "subject", index, now, own, max, workspace, workspaceMax);
    if (workspace && !(await this.acquire(workspace, workspaceMax, now))) {
      own.used -= 1; // a refused call is not counted
      return decision(name, "workspace", index, now, own, max, workspace, workspaceMax);
    }
    return decision(name, undefined, index, now, own, max, workspace, workspaceMax);
  }

  /** The subject's standing without counting a call (for headers on responses that cost nothing). */
  async peek(name: RateLimitName, subject: RateSubject, now = Date.now()): Promise<RateDecision> {
    const { own, workspace, max, workspaceMax, index } = await this.bucketsFor(name, subject, now);
    await Promise.all([this.refresh(own, now), workspace && this.refresh(workspace, now)]);
    return decision(name, undefined, index, now, own, max, workspace, workspaceMax);
  }

  private async bucketsFor(name: RateLimitName, subject: RateSubject, now: number) {
    const rule: RateLimitRule = RATE_LIMITS[name];
    const overrides = await this.overridesFor(subject.merchantId, now);
    // Clients seen only as a proxy's address stand for many people: a bucket shared per /24 or /48, SHARED_PROXY_FACTOR times as large.
    const max = (overrides.subject[name] ?? rule.max) * (isSharedProxySubject(subject.address) ? SHARED_PROXY_FACTOR : 1);
    const index = Math.floor(now / (rule.windowSeconds * 1000));
    const windowEnd = (index + 1) * rule.windowSeconds * 1000;
    const own = this.bucket(name, subjectId(subject), index, windowEnd);
    const pooled = rule.per === "credential" && subject.merchantId !== undefined;
    const workspaceMax = overrides.workspace[name] ?? max * WORKSPACE_LIMIT_MULTIPLE;
    const workspace = pooled ? this.bucket(name, `ws:${subject.merchantId}`, index, windowEnd) : undefined;
    return { own, workspace, max, workspaceMax, index };
  }

  private bucket(name: string, id: string, index: number, windowEnd: number): Bucket {
    const mapKey = `${name}|${id}|${index}`;
    let bucket = this.buckets.get(mapKey);
    if (!bucket) {
      if (this.buckets.size >= this.maxBuckets) this.makeRoom(windowEnd - RATE_LIMITS[name as RateLimitName].windowSeconds * 1000);
      const key = windowKey(name, id, index);
      // A subject busy in the window before starts where its leases had grown to, instead of doubling up
      // from one call again (a dozen leases, each a write and a query, at every window's start); the caps
      // in lease() still bound what one lease takes.
      const before = this.buckets.get(`${name}|${id}|${index - 1}`);
      bucket = {
        key,
        index,
        instance: this.instanceId,
        windowEnd,
        expiresAt: new Date(windowEnd + 3_600_000),
        granted: 0,
        used: 0,
        others: 0,
        readAt: 0,
        waiting: 0,
        chunk: before?.chunk ?? 1,
        leasedAt: before?.leasedAt ?? -Infinity,
      };
      this.buckets.set(mapKey, bucket);
    }
    return bucket;
  }

  /**
   * Drops buckets whose window has ended; if the map is still full (a flood of distinct subjects within
   * one window), the oldest tenth goes too. A dropped bucket's quota stays counted in its window document,
   * and buckets made from then on lease under a new instance id, so a subject whose bucket was dropped
   * finds its earlier count among the "others": dropping never admits a call the limit would refuse.
   */
  private makeRoom(now: number): void {
    for (const [k, b] of this.buckets) if (b.windowEnd <= now) this.buckets.delete(k);
    if (this.buckets.size < this.maxBuckets) return;
    let drop = Math.ceil(this.maxBuckets / 10);
    for (const k of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(k);
    }
    this.instanceId = randomBytes(8).toString("hex");
    logWarn("ratelimit.buckets_dropped", "rate limiter: too many subjects in one window; oldest buckets dropped", { tracked: this.buckets.size, max: this.maxBuckets });
  }

  /** Takes one unit of leased quota, leasing more (one lease in flight per bucket) when none is left. */
  private async acquire(bucket: Bucket, max: number, now: number): Promise<boolean> {
    for (;;) {
      if (bucket.used < bucket.granted) {
        bucket.used += 1;
        return true;
      }
      if (bucket.leasing) {
        bucket.waiting += 1;
        await bucket.leasing;
        bucket.waiting -= 1;
        continue;
      }
      if (bucket.exhaustedAt !== undefined && now - bucket.exhaustedAt < EXHAUSTED_RECHECK_MS) return false;
      const before = bucket.granted;
      await this.lease(bucket, max, now);
      if (bucket.granted === before && bucket.used >= bucket.granted) return false;
    }
  }

  /**
   * Leases a chunk sized to demand (the callers waiting, and how fast the last lease ran out), so that an
   * instance with little traffic holds little unused quota, capped at a twentieth of the limit and a tenth
   * of what was left at the last look.
   */
  private lease(bucket: Bucket, max: number, now: number): Promise<void> {
    bucket.chunk = performance.now() - bucket.leasedAt < FAST_LEASE_MS ? bucket.chunk * 2 : Math.max(1, bucket.chunk >> 1);
    const left = max - bucket.others - bucket.granted;
    const cap = Math.max(1, Math.min(Math.ceil(max / LEASE_DIVISOR), Math.floor(left / REMAINDER_DIVISOR)));
    bucket.chunk = Math.min(bucket.chunk, cap);
    const chunk = Math.min(Math.max(bucket.chunk, bucket.waiting), cap);
    bucket.leasing = this.store.leaseWindowQuota(bucket.key, bucket.instance, bucket.granted, chunk, max, bucket.expiresAt)
      .then(({ granted, others }) => {
        bucket.exhaustedAt = granted - bucket.granted < chunk ? now : undefined;
        bucket.granted = granted;
        bucket.others = others;
        bucket.readAt = now;
        bucket.leasedAt = performance.now();
      })
      .catch((error) => {
        bucket.granted += chunk; // fail open
        logError("ratelimit.lease_failed", "rate limit lease failed", error);
      })
      .finally(() => {
        bucket.leasing = undefined;
      });
    return bucket.leasing;
  }

  /** Brings the other instances' totals up to date for a standing, at most once a second. */
  private async refresh(bucket: Bucket, now: number): Promise<void> {
    if (bucket.leasing) return bucket.leasing;
    if (now - bucket.readAt < PEEK_READ_INTERVAL_MS) return;
    bucket.readAt = now;
    bucket.others = await this.store.readWindowTotal(bucket.key, bucket.instance).catch((error) => {
      logError("ratelimit.read_failed", "rate limit read failed", error);
      return bucket.others;
    });
  }

  private overridesFor(merchantId: string | undefined, now: number): Promise<RateLimitOverrides> {
    if (!merchantId) return Promise.resolve(NO_OVERRIDES);
    const cached = this.overrides.get(merchantId);
    if (cached && now - cached.at < OVERRIDE_CACHE_MS) return cached.values;
    const values = this.store.readRateLimitOverrides(merchantId).catch((error) => {
      logError("ratelimit.overrides_unreadable", "rate limit overrides unreadable", error);
      return NO_OVERRIDES;
    });
    this.overrides.set(merchantId, { at: now, values });
    return values;
  }
}

const NO_OVERRIDES: RateLimitOverrides = { subject: {}, workspace: {} };

/** The key every instance shares for one subject's window of a limit (a valid document id). */
export const windowKey = (name: RateLimitName | string, subjectKey: string, index: number) => `${name}_${sha256Hex(subjectKey).slice(0, 32)}_${index}`;

export function subjectId(subject: RateSubject): string {
  if (subject.code !== undefined) return subject.address !== undefined ? `code:${subject.code}|addr:${subject.address}` : `code:${subject.code}`;
  if (subject.address !== undefined) return `addr:${subject.address}`;
  if (subject.clientId !== undefined) return `client:${subject.clientId}`;
  if (subject.keyId) return `key:${subject.keyId}`;
  if (subject.uid === undefined && subject.merchantId !== undefined) return `ws:${subject.merchantId}`; // per-workspace limits
  return `user:${subject.uid}`;
}

function remainingOf(bucket: Bucket, max: number): number {
  return Math.max(0, max - bucket.others - bucket.used);
}

/** `refusedBy` names the budget that refused the call; undefined when it was admitted (or only peeked). */
function decision(
  name: RateLimitName,
  refusedBy: "subject" | "workspace" | undefined,
  index: number,
  now: number,
  own: Bucket,
  max: number,
  workspace: Bucket | undefined,
  workspaceMax: number,
): RateDecision {
  const windowMs = RATE_LIMITS[name].windowSeconds * 1000;
  const resetAt = new Date((index + 1) * windowMs);
  const ownRemaining = remainingOf(own, max);
  const workspaceRemaining = workspace ? remainingOf(workspace, workspaceMax) : Infinity;
  const byWorkspace = refusedBy ? refusedBy === "workspace" : workspaceRemaining < ownRemaining;
  return {
    name,
    allowed: refusedBy === undefined,
    limit: byWorkspace ? workspaceMax : max,
    remaining: refusedBy ? 0 : Math.min(ownRemaining, workspaceRemaining),
    resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000)),
    scope: byWorkspace ? "workspace" : "subject",
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(Math.floor(decision.resetAt.getTime() / 1000)),
    ...(decision.allowed ? {} : { "Retry-After": String(decision.retryAfterSeconds) }),
  };
}

export function rateLimitedError(decision: RateDecision): AppError {
  const rule: RateLimitRule = RATE_LIMITS[decision.name];
  const whose =
    decision.scope === "workspace"
      ? "this workspace (all its keys and grants together)"
      : rule.per === "address"
        ? "this client address"
        : rule.per === "client"
          ? "this client_id"
          : rule.per === "workspace"
            ? "this workspace"
            : rule.per === "code"
              ? "this code"
              : "this credential";
  return new AppError(
    "RATE_LIMITED",
    `Rate limit reached: at most ${decision.limit} ${rule.counts} per ${rule.windowSeconds} s for ${whose}; retry in ${decision.retryAfterSeconds} s`,
    {
      hint:
        rule.per === "client"
          ? "Wait for Retry-After seconds; the limit is shared by every user of this client."
          : rule.per === "address"
          ? "Wait for Retry-After seconds, or authenticate: requests with a valid credential are limited per credential."
          : "Wait for Retry-After seconds. Limits are per key or signed-in user, and per workspace; ask the operator for a higher workspace limit.",
      details: { limit: decision.limit, windowSeconds: rule.windowSeconds, retryAfterSeconds: decision.retryAfterSeconds, resetAt: decision.resetAt.toISOString(), scope: decision.scope },
    },
  );
}
