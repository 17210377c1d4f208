// DESIGN_REFUSED: one named reason and a suggestion per refusal, so an agent can act on it.
import { AppError } from "../core/errors";

export type RefusalReason =
  | "light-on-dark"
  | "low-contrast"
  | "does-not-decode"
  | "too-long-for-logo"
  | "logo-unreadable";

export function designRefused(reason: RefusalReason, message: string, suggestion: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError("DESIGN_REFUSED", `Design refused (${reason}): ${message}`, {
    hint: suggestion,
    details: { reason, suggestion, ...extra },
  });
}
