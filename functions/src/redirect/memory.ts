// What a redirect instance remembers of the codes it served: which workspace and code a link is (never
// changes) and the newest link it read (served only when a read is late: redirect/app.ts). Each memory
// forgets the code used longest ago past its bound (core/lru.ts), so a hot code stays known however many
// one-off codes pass by.
import { LruMap } from "../core/lru";
import type { Link } from "../store/codes";
import type { CodeIdentity } from "../scans/record";

export type Identity = Omit<CodeIdentity, "timeZone">;

const identities = new LruMap<string, Identity>(20_000);
const lastGood = new LruMap<string, Link>(20_000);

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
  const last = lastGood.get(id);
  return { last, known: last ? identities.get(id) : undefined };
}

/** The newest link read of a code, for a late read (a use). */
export const lastGoodLink = (id: string): Link | undefined => lastGood.get(id);

export function remember(id: string, link: Link): Identity {
  const identity = { merchantId: link.merchantId, codeId: link.codeId, campaign: link.campaign ?? null };
  identities.set(id, identity);
  return identity;
}

export function rememberGood(id: string, link: Link | undefined): void {
  if (link) lastGood.set(id, link);
}
