// Limits from the specification and the ones this service sets itself (docs/limits.md).
export const SANDBOX_DAILY_LIMIT = 3;
export const SANDBOX_LIFETIME_DAYS = 7;
export const BULK_MAX_URLS = 50;
export const URL_MAX_LENGTH = 2048;
/** Largest JSON-RPC body the tool server reads: room for a 256 KB logo as base64 (about 342 KB) in a design. */
export const MCP_MAX_BODY_BYTES = 512 * 1024;
/** Largest JSON body the REST endpoints read. */
export const REST_MAX_BODY_BYTES = 256 * 1024;
/** Pending phone book listings one workspace may hold at a time (pending changes of approved ones do not count). */
export const MAX_PENDING_LISTINGS = 5;
/** Days a pending listing holds its domain before it expires (TTL on listings.expiresAt). */
export const PENDING_LISTING_LIFETIME_DAYS = 14;
