// Field rules for menus, audio codes and challenges (docs/mcp.md lists the limits).
import { z } from "zod";
import { DRAFT_LIMITS as LIMITS } from "../core/limits";
import { text } from "../core/validation";

export { LIMITS };

export const price = z
  .number()
  .finite()
  .min(0, "Price must be 0 or more")
  .max(LIMITS.maxPrice, `Price must be at most ${LIMITS.maxPrice}`)
  .refine((p) => Math.abs(Math.round(p * 100) - p * 100) < 1e-6, "Price has at most 2 decimals")
  .describe("At most 2 decimals");

/** ISO 8601 date (YYYY-MM-DD) or date-time with offset (2026-05-01T09:00:00Z). */
export const isoDate = z
  .string()
  .trim()
  .refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) || z.iso.datetime({ offset: true }).safeParse(s).success, "Must be an ISO 8601 date or date-time")
  // Date.parse rolls 2026-02-30 over to March 2; a real date survives the round trip.
  .refine((s) => {
    const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
    // Both parses checked: a string Date.parse reads another way ("Tue, 01 May 2026") has no day to round-trip.
    const day = Date.parse(`${s.slice(0, 10)}T00:00:00Z`);
    return !Number.isNaN(t) && !Number.isNaN(day) && new Date(day).toISOString().slice(0, 10) === s.slice(0, 10);
  }, "Must be a real calendar date")
  .describe("YYYY-MM-DD or date-time with offset");

export const CHALLENGE_TYPES = ["streak", "scan_count", "visit_window", "game"] as const;

export { text };
