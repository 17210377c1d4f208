// Which paths are the resolver's, kept apart from the resolver so the redirect function can route a
// merchant's host by them without loading it (redirect/customHost.ts).
import { SUPPORTED_PRIMARY_KEYS } from "./keys";

export const WELL_KNOWN_PATH = "/.well-known/gs1resolver";

/** What Hosting sends to the resolver (firebase.json): a root word of 10 or more base64url characters. */
const ROUTED_COMPRESSED_PATH = /^\/[A-Za-z0-9_-]{10,}\/?$/;
const PRIMARY_KEY_SEGMENTS = new Set(SUPPORTED_PRIMARY_KEYS);

/**
 * Whether a path is the resolver's, as Hosting's rewrites route them on the shared host: the description
 * file, a supported primary key's path, or a compressed URI. A merchant's host routes by the same rule.
 */
export function isResolverPath(path: string): boolean {
  if (path === WELL_KNOWN_PATH || path === `${WELL_KNOWN_PATH}/` || ROUTED_COMPRESSED_PATH.test(path)) return true;
  const first = /^\/([^/]+)(?:\/|$)/.exec(path);
  return first !== null && PRIMARY_KEY_SEGMENTS.has(first[1]);
}
