// Field rules as plain functions, for the zod field builders (core/validation.ts) and the browser console
// (its CSV check and form hints) alike. Bundle-safe: no Node modules, no firebase, no zod, so esbuild can
// put it in the console and both sides refuse exactly the same input for the same reason.
import { PRESET_NAME_MAX, URL_MAX_LENGTH } from "./limits";

/**
 * Characters no field accepts: C0 controls other than tab and newline, DEL, C1 controls, zero-width
 * characters and bidirectional overrides. They hide what a title or URL really says (a zero-width
 * space makes two domains look alike; an override reverses how text reads), and the URL parser
 * silently drops tabs and newlines, so what was checked would not be what is stored.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const HIDDEN_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const URL_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const hasHiddenCharacters = (value: string): boolean => HIDDEN_CHARACTERS.test(value);
export const hasUrlForbiddenCharacters = (value: string): boolean => URL_FORBIDDEN.test(value);
/** A lone UTF-16 surrogate is no character at all; stored, it breaks every later encoder (logs, UTF-8). */
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);

const encoder = new TextEncoder();
/**
 * UTF-8 length in bytes. Node counts without copying (Buffer.byteLength is some 50 times faster than
 * encoding a 1 KB URL); browsers, which have no Buffer, encode. Both count a lone surrogate as 3 bytes.
 */
export const utf8Bytes = (value: string): number => (typeof Buffer === "function" ? Buffer.byteLength(value, "utf8") : encoder.encode(value).byteLength);

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The WHATWG serialisation: scheme and host lower-cased, IDN hosts in punycode, non-ASCII percent-encoded. */
export function normalizeUrl(value: string): string {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
}

export const URL_MESSAGES = {
  empty: "URL is required",
  hidden: "URL must not contain control, zero-width or bidirectional-override characters",
  notHttp: "Must be an absolute http:// or https:// URL",
  tooLong: (maxBytes: number, bytes: number) =>
    `URL must be at most ${maxBytes} bytes once normalised (non-ASCII characters are percent-encoded); this one is ${bytes} bytes`,
};

/**
 * Why a destination URL (already trimmed) is refused, or null. The length counts UTF-8 bytes of the
 * normalised form: that is what a QR code encodes, and a URL of 1,900 "é" is 11,400 bytes once
 * percent-encoded.
 */
export function urlProblem(value: string, maxBytes = URL_MAX_LENGTH): string | null {
  if (!value) return URL_MESSAGES.empty;
  if (hasUrlForbiddenCharacters(value)) return URL_MESSAGES.hidden;
  if (!isHttpUrl(value)) return URL_MESSAGES.notHttp;
  const bytes = utf8Bytes(normalizeUrl(value));
  return bytes > maxBytes ? URL_MESSAGES.tooLong(maxBytes, bytes) : null;
}

export const TEXT_MESSAGES = {
  empty: "Must not be empty",
  tooLong: (max: number) => `Must be at most ${max} characters`,
  hidden: "Must not contain control, zero-width or bidirectional-override characters",
  loneSurrogate: "Must be valid Unicode text (no lone surrogate halves)",
};

/** Why a text field (already trimmed) is refused, or null; lengths in characters as zod's max() counts them. */
export function textProblem(value: string, max: number): string | null {
  if (!value) return TEXT_MESSAGES.empty;
  if (value.length > max) return TEXT_MESSAGES.tooLong(max);
  if (hasHiddenCharacters(value)) return TEXT_MESSAGES.hidden;
  if (hasLoneSurrogate(value)) return TEXT_MESSAGES.loneSurrogate;
  return null;
}

/** A brand preset's name, as a pattern body (anchored by the caller). */
export const PRESET_NAME_PATTERN = `[A-Za-z0-9][A-Za-z0-9 _-]{0,${PRESET_NAME_MAX - 1}}`;
/** The same for an HTML `pattern` attribute, which browsers compile with the `v` flag: there `-` must be escaped. */
export const PRESET_NAME_HTML_PATTERN = PRESET_NAME_PATTERN.replace("_-]", "_\\-]");
