// Zod schemas of what tools return, shared by the tools that return the same things. tools/list publishes
// them as `outputSchema`; each handler's return type is checked against them at compile time, and the
// tests validate every result against the published JSON Schema.
import { z } from "zod";
import { fields as codeFields } from "../codes/fields";
import { draftStatus, isoTime, PublicCodeSchema, publicCodeShape, PublicDesignSchema } from "../codes/schemas";
import { getConfig } from "../core/config";
import { explainedInInstructions, listedAs } from "./listingSchema";
import { analyticsFiguresShape, ruleFiguresOutput } from "../scans/analyticsSchemas";
import { ids } from "../core/ids";
import { listLimit } from "../core/validation";
import { cutArrayToFit } from "./resultBudget";

// Conventions said once in the server's instructions (identity.ts), not on every field: times are ISO 8601,
// days YYYY-MM-DD local to the workspace, status draft until published at consoleUrl. A code's, a design's
// and a preset's shapes are declared with the code (codes/schemas.ts): the console answers them too.
export { draftStatus, isoTime };

export const designOutput = PublicDesignSchema;

// Brand designs are a toolset of their own: the default list names the field, svc.tools.search the shape.
listedAs.add(publicCodeShape.design, { json: { type: ["object", "null"] } });

export const codeOutputShape = publicCodeShape;
export const codeOutput = PublicCodeSchema;

// The drafts' shapes are declared with the drafts (menus/schemas.ts): the console lists them too.
export { menuItemOutput, menuOutput, menuOutputShape } from "../menus/schemas";

// The analytics figures are declared with the analytics (scans/analyticsSchemas.ts): REST and the console answer them too.
export { analyticsFiguresShape, ruleFiguresOutput, scanOutput } from "../scans/analyticsSchemas";

// Campaign figures matter to few codes: the default list names them by type; svc.tools.search and the
// toolset URLs spell them out.
listedAs.add(analyticsFiguresShape.endedScans, { json: { type: "object" } });
listedAs.add(analyticsFiguresShape.byUtm, { json: { type: "array" } });
listedAs.add(analyticsFiguresShape.byHost, { json: { type: "array" } });
listedAs.add(ruleFiguresOutput, { json: { type: "array" } });
// Cities repeat the regions' shape with a city: named by type in the default list.
listedAs.add(analyticsFiguresShape.cities, { json: { type: "array" } });

/**
 * An analytics result within about 6,000 tokens: first the scan list gives way (scansTruncated), then
 * byDay keeps its newest days (truncated). The totals always cover the whole window.
 */
export function fitAnalytics<T extends { byDay?: unknown[]; scans?: unknown[]; scansListed?: number; scansTruncated?: boolean }>(result: T): T {
  let fitted = result;
  const scansCut = cutArrayToFit(fitted, "scans", "first");
  if (scansCut) fitted = { ...scansCut, scansListed: scansCut.scans!.length, scansTruncated: true };
  const daysCut = cutArrayToFit(fitted, "byDay", "last");
  if (daysCut) fitted = { ...daysCut, truncated: true };
  return fitted;
}

/**
 * Field selection on the analytics tools (an agent's context is bounded): the figures a caller may ask for
 * by name; the window, the code and `pending` always come back.
 */
export const SELECTABLE_FIGURES = ["totalScans", "byDay", "uniqueScanners", "repeatScans", "botScans", "endedScans", "byUtm", "byHost", "countries", "regions", "cities", "devices", "operatingSystems", "browsers", "hourByWeekday"] as const;

/** The `fields` argument: which of `names` to return (default: all). */
export function fieldSelection<const N extends readonly [string, ...string[]]>(names: N) {
  const field = z.array(z.enum(names)).min(1).max(names.length).optional().describe("Only these figures (default: all)");
  // The default list names them once, in outputSchema (the instructions say so); toolset URLs and
  // svc.tools.search give the enum.
  listedAs.add(field, { json: { type: "array", items: { type: "string" } } });
  explainedInInstructions.add(field, { name: "fields" });
  return field;
}

/** `shape` with the named fields optional: a result carries them only when selected. */
export function selectableShape<S extends z.ZodRawShape, K extends keyof S & string>(shape: S, names: readonly K[]) {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, (names as readonly string[]).includes(key) ? (schema as z.ZodType).optional() : schema])) as {
    [P in keyof S]: P extends K ? z.ZodOptional<S[P]> : S[P];
  };
}

/**
 * `result` without the selectable fields that `fields` leaves out; a companion field (e.g. scansListed
 * with scans) comes and goes with the field it describes.
 */
export function pickFields<T extends Record<string, unknown>>(
  result: T,
  selectable: readonly string[],
  fields: readonly string[] | undefined,
  companions: Record<string, string> = {},
): T {
  if (!fields) return result;
  const kept = (key: string) => {
    const owner = companions[key] ?? key;
    return !selectable.includes(owner) || fields.includes(owner);
  };
  return Object.fromEntries(Object.entries(result).filter(([key]) => kept(key))) as T;
}

/** The console page where a person looks at (and publishes) what a tool drafted. */
export function consoleUrl(hash: string): string {
  return `${getConfig().appUrl}/console#/${hash}`;
}
export const consoleUrlField = z.string();

/** A list result's marker: cut to stay within about 6,000 tokens (mcp/resultBudget.ts). */
export const truncatedField = z.boolean();

/** How many days analytics cover. */
export const daysField = z.number().int().min(1).max(365).describe("Window ending today; default 30");

/**
 * Arguments many tools share, explained once in the server's instructions; the default list names and
 * types them without repeating what they mean (toolset URLs and svc.tools.search keep the descriptions).
 */
export const ARGUMENT_CONVENTIONS =
  "Arguments: a code is named by codeId (from svc.qr.create or svc.qr.list) or uniqueQRCodeID (the last part of its dynamic link); destinationUrl is the http(s) URL a code opens, its maxLength counted in bytes once percent-encoded; days is a window ending today (default 30); limit is a page's size (default 20); fields names the figures to return, as in outputSchema (default: all).";
for (const [name, schema] of [["codeId", ids.codeId], ["uniqueQRCodeID", ids.uniqueQRCodeID], ["destinationUrl", codeFields.destinationUrl], ["days", daysField], ["limit", listLimit]] as const) {
  explainedInInstructions.add(schema, { name });
}

/** The arguments of every paged list tool. */
export const pageInputShape = { limit: listLimit.optional(), cursor: z.string().min(1).max(512).optional() };

/** The end of every paged list result. */
export const pageOutputShape = { nextCursor: z.string().nullable(), truncated: truncatedField };

/** The end of a list's summary: how to go on. */
export function moreSentence(r: { nextCursor: string | null; truncated: boolean }): string {
  if (r.truncated) return "\nCut to stay within about 6,000 tokens; pass nextCursor as cursor for the rest.";
  return r.nextCursor ? "\nMore: pass nextCursor as cursor." : "";
}

/** How many items a list's summary names: the JSON beside it has them all (docs/mcp.md, "Bounded results"). */
export const SUMMARY_ITEMS = 5;

/**
 * A list's items as summary lines, the first few only: the result's JSON text follows the summary in the
 * same answer, so naming every item again would double what a page costs an agent's context.
 */
export function summaryLines<T>(items: readonly T[], line: (item: T) => string): string {
  const shown = items.slice(0, SUMMARY_ITEMS).map((item) => `- ${line(item)}`);
  if (items.length > SUMMARY_ITEMS) shown.push(`- and ${items.length - SUMMARY_ITEMS} more, in the JSON result`);
  return shown.join("\n");
}

/** `n thing(s)` for summaries. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
