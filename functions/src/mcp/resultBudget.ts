// Results stay within about 6,000 tokens of an agent's context (docs/mcp.md, "Bounded results"): a list
// that would not fit is cut to the items that do, says so (`truncated: true`), and its `nextCursor`
// continues right after the last item given. 12,800 bytes of compact JSON and the summary beside it are at
// most about 6,000 cl100k tokens for this service's results (measured in test/unit/mcp-result-budget.test.ts
// and test/service/mcp-lists.test.ts: ids and URLs tokenise at 2.3 to 2.7 bytes a token; real code lists
// with tokenized image URLs are the densest).
export const RESULT_MAX_BYTES = 12_800;

/** Room kept for the rest of a list result (count, cursor, markers) and the summary sentence. */
const ENVELOPE_BYTES = 600;

export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** How many of `items`, in order, fit in the budget beside `restBytes` of other fields. */
export function itemsThatFit(items: readonly unknown[], restBytes: number, maxBytes = RESULT_MAX_BYTES): number {
  let used = restBytes;
  let n = 0;
  for (const item of items) {
    used += jsonBytes(item) + 1;
    if (used > maxBytes) break;
    n++;
  }
  return n;
}

/**
 * A page that fits: `fetch(limit)`; when its items do not fit, `fetch` again with as many as do (at least
 * one), so that page's own cursor continues right after the last item kept. One more query, only then.
 */
export async function boundedPage<P extends { nextCursor: string | null }>(
  fetch: (limit: number) => Promise<P>,
  itemsOf: (page: P) => readonly unknown[],
  limit: number,
  maxBytes = RESULT_MAX_BYTES,
): Promise<P & { truncated: boolean }> {
  const page = await fetch(limit);
  const items = itemsOf(page);
  const fit = itemsThatFit(items, ENVELOPE_BYTES, maxBytes);
  if (fit >= items.length) return { ...page, truncated: false };
  return { ...(await fetch(Math.max(1, fit))), truncated: true };
}

/**
 * `result` with its array `key` cut, when the whole passes the budget, to the items that fit: the first
 * ones (`keep: "first"`) or the last ones. Undefined when nothing had to be cut.
 */
export function cutArrayToFit<T extends Record<string, unknown>, K extends keyof T & string>(result: T, key: K, keep: "first" | "last", maxBytes = RESULT_MAX_BYTES): T | undefined {
  const items = result[key];
  if (!Array.isArray(items) || jsonBytes(result) <= maxBytes) return undefined;
  const ordered = keep === "first" ? items : [...items].reverse();
  const fit = itemsThatFit(ordered, jsonBytes({ ...result, [key]: [] }) + ENVELOPE_BYTES, maxBytes);
  const kept = keep === "first" ? items.slice(0, fit) : items.slice(items.length - fit);
  return { ...result, [key]: kept };
}
