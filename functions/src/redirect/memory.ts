// What a redirect instance remembers of the codes it served: which workspace and code a link is (never
// changes) and the newest link it read (served only when a read is late, and only for an ordinary code read
// recently or a taken-down one: redirect/app.ts). Each memory
// forgets the code used longest ago past its bound (core/lru.ts), so a hot code stays known however many
// one-off codes pass by.
import { LruMap } from "../core/lru";
import type { Link } from "../store/codes";
import type { CodeIdentity } from "../scans/record";

export type Identity = Omit<CodeIdentity, "timeZone">;

const identities = new LruMap<string, Identity>(20_000);
const lastGood = new LruMap<string, { link: Link; readAt: number }>(20_000);

/**
 * How long after its last read an ordinary, open code's link may still answer a scan whose read is late or
 * failed. A code taken down, given a password or other rules since that read can be redirected from an
 * instance's memory for at most this long, and only while that instance's reads of it are slow or failing
 * (docs/decisions.md, "Last-known-good answers").
 */
export const LAST_GOOD_MAX_AGE_MS = 120_000;

/**
 * How many codes each memory holds. A test fixture (test/fixtures/redirect-instance-server.ts) makes it
 * small to see them forget; nothing else changes it.
 */
export const instanceMemory = {
  get entries(): number {
    return identities.max;
  },
  set entries(n: number) {
    identities.max = lastGood.max = n;
  },
};

/** A code's link as this instance last read it, and its identity when both are remembered (a use of each). */
export function knownCode(id: string): { last: Link | undefined; known: Identity | undefined } {
  const last = lastGood.get(id)?.link;
  return { last, known: last ? identities.get(id) : undefined };
}

/**
 * The newest link read of a code, when it may answer a late read at `now` (a use): a code taken down (its
 * answer is the 410, never a redirect), or an ordinary code (no campaign rules: no password, schedule or cap
 * to enforce) read within LAST_GOOD_MAX_AGE_MS. Undefined otherwise: the scan waits for its read.
 */
export function servableLastGood(id: string, now: number): Link | undefined {
  const last = lastGood.get(id);
  if (!last) return undefined;
  if (last.link.takenDown) return last.link;
  return !last.link.campaignRules && now - last.readAt <= LAST_GOOD_MAX_AGE_MS ? last.link : undefined;
}

export function remember(id: string, link: Link): Identity {
  const identity = { merchantId: link.merchantId, codeId: link.codeId, campaign: link.campaign ?? null };
  identities.set(id, identity);
  return identity;
}

export function rememberGood(id: string, link: Link | undefined, readAt = Date.now()): void {
  if (link) lastGood.set(id, { link, readAt });
}
