// zod helpers shared by every surface: strict parsing into typed data or one VALIDATION_FAILED error
// that lists each field and its problem.
import { z } from "zod";
import { AppError, type ErrorCode } from "./errors";
import { URL_MAX_LENGTH } from "./limits";
import { hasHiddenCharacters, hasLoneSurrogate, hasUrlForbiddenCharacters, isHttpUrl, normalizeUrl, TEXT_MESSAGES, URL_MESSAGES, utf8Bytes } from "./rules";

export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
}

export function formatIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    let message = issue.message;
    // zod's own wording is replaced; a schema's own message (campaigns/rules.ts lists the known names) is kept.
    if (issue.code === "unrecognized_keys" && /^Unrecognized key/.test(message)) message = `Unknown field(s): ${issue.keys.join(", ")}`;
    return { path, message, code: issue.code };
  });
}

/**
 * A value a caller sent, shown in a message: a string or number as JSON (strings cut to 80 characters),
 * anything else by its kind only. Never JSON.stringify of arbitrary input: a list nested 100k deep would
 * throw RangeError (a 5xx), and a large object would flood the message.
 */
export function shownInput(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : typeof value;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, code: ErrorCode = "VALIDATION_FAILED"): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = formatIssues(result.error);
  const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  throw new AppError(code, `Invalid ${what}: ${summary}`, { details: { issues } });
}

export { hasHiddenCharacters } from "./rules";

/**
 * http(s) URL, stored normalised (WHATWG `href`). The limit counts UTF-8 bytes of the normalised form:
 * that is what a QR code encodes, and a URL of 1,900 "é" is 11,400 bytes once percent-encoded.
 */
export function httpUrl(maxBytes = URL_MAX_LENGTH) {
  return z
    .string()
    .trim()
    .min(1, URL_MESSAGES.empty)
    .refine((value) => !hasUrlForbiddenCharacters(value), { error: URL_MESSAGES.hidden, abort: true })
    .refine(isHttpUrl, { error: URL_MESSAGES.notHttp, abort: true })
    .overwrite(normalizeUrl)
    .refine((value) => utf8Bytes(value) <= maxBytes, { error: (issue) => URL_MESSAGES.tooLong(maxBytes, utf8Bytes(String(issue.input))) })
    .meta({ format: "uri", maxLength: maxBytes });
}

/** Non-empty trimmed text with a length limit; no hidden characters. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .min(1, TEXT_MESSAGES.empty)
    .max(max, TEXT_MESSAGES.tooLong(max))
    .refine((value) => !hasHiddenCharacters(value), TEXT_MESSAGES.hidden)
    .refine((value) => !hasLoneSurrogate(value), TEXT_MESSAGES.loneSurrogate);
}

/** The `limit` argument of list tools: 1 to 100, default applied by the tool. */
export const listLimit = z.number().int().min(1).max(100).describe("Default 20");
