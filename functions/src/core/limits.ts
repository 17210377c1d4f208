// Limits from the specification and the ones this service sets itself (docs/limits.md lists each with
// where it is enforced and the error a caller gets). No imports: the console's browser bundle reads the
// field limits from here, so the form and the CSV check refuse exactly what the server refuses.
export const SANDBOX_DAILY_LIMIT = 3;
export const SANDBOX_LIFETIME_DAYS = 7;
export const BULK_MAX_URLS = 50;
/** A destination URL, in UTF-8 bytes of its normalised form (what the QR code encodes). */
export const URL_MAX_LENGTH = 2048;
/** Largest JSON-RPC body the tool server reads: room for a 256 KB logo as base64 (about 342 KB) in a design. */
export const MCP_MAX_BODY_BYTES = 512 * 1024;
/** Largest JSON body the REST endpoints read. */
export const REST_MAX_BODY_BYTES = 256 * 1024;
/** Request bodies that may carry a logo: 256 KB as base64 is about 342 KB, plus the rest of the request. */
export const DESIGN_MAX_BODY_BYTES = 512 * 1024;
/** Pending phone book listings one workspace may hold at a time (pending changes of approved ones do not count). */
export const MAX_PENDING_LISTINGS = 5;
/** Days a pending listing holds its domain before it expires (TTL on listings.expiresAt). */
export const PENDING_LISTING_LIFETIME_DAYS = 14;

/** A code's text fields, in characters (UTF-16 code units, after trimming). */
export const TITLE_MAX = 200;
export const CAMPAIGN_MAX = 100;
export const TAG_MAX = 50;
export const TAGS_MAX = 20;
/** The console code list's search text, in characters. */
export const CODE_SEARCH_MAX = 200;
/** Rows of one CSV file the console imports (sent in chunks of BULK_MAX_URLS). */
export const IMPORT_MAX_ROWS = 500;
/** Brand preset names. */
export const PRESET_NAME_MAX = 40;

/** Menus, audio codes and challenges (the draft tools), in characters; prices in the menu's currency. */
export const DRAFT_LIMITS = {
  title: 200,
  payloadText: 2000,
  campaign: 100,
  menuName: 100,
  description: 1000,
  locationId: 100,
  sectionName: 100,
  itemName: 100,
  itemDescription: 500,
  rewardText: 300,
  challengeName: 100,
  itemsPerMenu: 500,
  maxPrice: 1_000_000,
} as const;

/** Rows of one catalogue job (each row becomes one code), and codes in one print package of a selection. */
export const JOB_MAX_ROWS = 10_000;

/**
 * A CSV mapping preview reads the header and 5 rows only: the console sends the file's first 64 KiB (cut
 * after a line) and the route refuses more, so a preview holds kilobytes, not a 9 MiB body and its copies,
 * in a 256 MiB console instance (review 4, L2).
 */
export const PREVIEW_CSV_MAX_CHARS = 64 * 1024;

/** The start of a CSV a preview needs: at most PREVIEW_CSV_MAX_CHARS, ended after its last whole line when it is cut. */
export function previewHead(text: string): string {
  if (text.length <= PREVIEW_CSV_MAX_CHARS) return text;
  const cut = text.lastIndexOf("\n", PREVIEW_CSV_MAX_CHARS - 1);
  return cut > 0 ? text.slice(0, cut + 1) : text.slice(0, PREVIEW_CSV_MAX_CHARS);
}
