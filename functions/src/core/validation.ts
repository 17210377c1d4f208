// zod helpers shared by every surface: strict parsing into typed data or one VALIDATION_FAILED error
// that lists each field and its problem.
import { z } from "zod";
import { AppError, type ErrorCode } from "./errors";

export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
}

export function formatIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") message = `Unknown field(s): ${issue.keys.join(", ")}`;
    return { path, message, code: issue.code };
  });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, code: ErrorCode = "VALIDATION_FAILED"): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = formatIssues(result.error);
  const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  throw new AppError(code, `Invalid ${what}: ${summary}`, { details: { issues } });
}

/**
 * Characters no field accepts: C0 controls other than tab and newline, DEL, C1 controls, zero-width
 * characters and bidirectional overrides. They hide what a title or URL really says (a zero-width
 * space makes two domains look alike; an override reverses how text reads), and the URL parser
 * silently drops tabs and newlines, so what was checked would not be what is stored.
 */
// eslint-disable-next-line no-control-regex
const HIDDEN_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
// eslint-disable-next-line no-control-regex
const URL_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

export const hasHiddenCharacters = (value: string) => HIDDEN_CHARACTERS.test(value);

function isHttpUrl(value: string): boolean {
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

/**
 * http(s) URL, stored normalised (WHATWG `href`). The limit counts UTF-8 bytes of the normalised form:
 * that is what a QR code encodes, and a URL of 1,900 "é" is 11,400 bytes once percent-encoded.
 */
export function httpUrl(maxBytes = 2048) {
  return z
    .string()
    .trim()
    .min(1, "URL is required")
    .refine((value) => !URL_FORBIDDEN.test(value), { error: "URL must not contain control, zero-width or bidirectional-override characters", abort: true })
    .refine(isHttpUrl, { error: "Must be an absolute http:// or https:// URL", abort: true })
    .overwrite(normalizeUrl)
    .refine((value) => Buffer.byteLength(value, "utf8") <= maxBytes, {
      error: (issue) =>
        `URL must be at most ${maxBytes} bytes once normalised (non-ASCII characters are percent-encoded); this one is ${Buffer.byteLength(String(issue.input), "utf8")} bytes`,
    })
    .meta({ format: "uri", maxLength: maxBytes });
}

/** Non-empty trimmed text with a length limit; no hidden characters. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .min(1, "Must not be empty")
    .max(max, `Must be at most ${max} characters`)
    .refine((value) => !hasHiddenCharacters(value), "Must not contain control, zero-width or bidirectional-override characters")
    // A lone UTF-16 surrogate is no character at all; stored, it breaks every later encoder (logs, UTF-8).
    .refine((value) => !LONE_SURROGATE.test(value), "Must be valid Unicode text (no lone surrogate halves)");
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The `limit` argument of list tools: 1 to 100, default applied by the tool. */
export const listLimit = z.number().int().min(1).max(100).describe("How many, 1 to 100 (default 20)");
