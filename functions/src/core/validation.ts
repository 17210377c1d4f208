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

/** http(s) URL, at most `max` characters. */
export function httpUrl(max = 2048) {
  return z
    .string()
    .trim()
    .min(1, "URL is required")
    .max(max, `URL must be at most ${max} characters`)
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0;
      } catch {
        return false;
      }
    }, "Must be an absolute http:// or https:// URL");
}

/** Non-empty trimmed text with a length limit. */
export function text(max: number) {
  return z.string().trim().min(1, "Must not be empty").max(max, `Must be at most ${max} characters`);
}

/** The `limit` argument of list tools: 1 to 100, default applied by the tool. */
export const listLimit = z.number().int().min(1).max(100).describe("How many, 1 to 100 (default 20)");
