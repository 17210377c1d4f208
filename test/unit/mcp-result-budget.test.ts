// Results within about 6,000 tokens (functions/src/mcp/resultBudget.ts): how many items fit, and a page
// that does not fit is fetched again with as many as do, so its own cursor continues after the last kept.
import assert from "node:assert/strict";
import { encode } from "gpt-tokenizer/cjs/encoding/cl100k_base";
import { boundedPage, itemsThatFit, jsonBytes, RESULT_MAX_BYTES } from "../../functions/src/mcp/resultBudget";
import { publicCode } from "../../functions/src/codes/model";
import { fitAnalytics } from "../../functions/src/mcp/outputs";

/** A list served by position: what a cursor query over a fixed list would answer. */
function listOf(items: string[]) {
  const fetched: number[] = [];
  const fetch = async (limit: number) => {
    fetched.push(limit);
    const page = items.slice(0, limit);
    return { items: page, nextCursor: items.length > limit ? `after:${limit - 1}` : null };
  };
  return { fetch, fetched };
}

describe("MCP result budget", () => {
  it("counts the items that fit beside the rest of a result, in order", () => {
    const item = "x".repeat(98); // 100 bytes as JSON, 101 with its comma
    assert.equal(itemsThatFit(Array(50).fill(item), 0, 1_010), 10);
    assert.equal(itemsThatFit(Array(50).fill(item), 900, 1_010), 1);
    assert.equal(itemsThatFit([], 0), 0);
  });

  it("a page that fits is given as fetched; one that does not is fetched again with what fits, its cursor after the last kept", async () => {
    const small = listOf(Array.from({ length: 30 }, (_, i) => `item ${i}`));
    const page = await boundedPage(small.fetch, (p) => p.items, 20);
    assert.deepEqual(small.fetched, [20]);
    assert.equal(page.truncated, false);
    assert.equal(page.items.length, 20);

    const big = listOf(Array.from({ length: 100 }, (_, i) => `${i}:${"y".repeat(1_000)}`));
    const cut = await boundedPage(big.fetch, (p) => p.items, 100);
    assert.equal(cut.truncated, true);
    assert.equal(big.fetched.length, 2);
    assert.equal(cut.items.length, big.fetched[1]);
    assert.ok(cut.items.length >= 10 && cut.items.length < 20, String(cut.items.length));
    assert.equal(cut.nextCursor, `after:${cut.items.length - 1}`);
    assert.ok(jsonBytes(cut) <= RESULT_MAX_BYTES);
  });

  it("gives at least one item, even one larger than the budget, marked as cut", async () => {
    const huge = listOf([`${"z".repeat(30_000)}`, "next"]);
    const page = await boundedPage(huge.fetch, (p) => p.items, 2);
    assert.equal(page.items.length, 1);
    assert.equal(page.truncated, true);
    assert.equal(page.nextCursor, "after:0");
  });

  it("12,800 bytes of this service's list results are at most about 6,000 cl100k tokens", () => {
    // Codes as svc.qr.list gives them: ids, URLs and timestamps, the densest of the results in tokens.
    const codes = Array.from({ length: 40 }, (_, i) =>
      publicCode({
        codeId: `c${i}x9Qk2LmZ7pW3aB`,
        uniqueQRCodeID: `Ab3dE${i}fGh9Kz`.slice(0, 12),
        title: `Table ${i} card, spring menu`,
        destinationUrl: `https://shop.example.com/menu/spring?table=${i}&utm_source=qr&utm_campaign=spring-2026`,
        campaign: "spring-2026",
        tags: ["tables", "spring"],
        dynamic: true,
        template: null,
        scanBeepSound: null,
        boostFrame: null,
        design: null,
        status: "draft",
        source: "tool",
        createdAt: new Date(Date.UTC(2026, 2, 1, 12, i)),
        updatedAt: new Date(Date.UTC(2026, 2, 1, 12, i)),
      } as never),
    );
    const fit = itemsThatFit(codes, 600);
    const json = JSON.stringify({ count: fit, codes: codes.slice(0, fit), nextCursor: "x".repeat(120), truncated: true });
    const tokens = encode(json).length;
    assert.ok(Buffer.byteLength(json) <= RESULT_MAX_BYTES);
    assert.ok(tokens <= 6_000, `${tokens} tokens in ${Buffer.byteLength(json)} bytes`);
    assert.ok(tokens >= 4_000, `the budget is used, not wasted: ${tokens} tokens`);
  });

  it("analytics give way in order: the scan list first, then byDay keeps its newest days; a small window is untouched", () => {
    const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const window = (days: number, scans: number) => ({
      days,
      totalScans: 123_456,
      byDay: Array.from({ length: days }, (_, i) => ({ date: day(i), scans: 300 + i, uniqueScanners: 200 + i })),
      scans: Array.from({ length: scans }, (_, i) => ({ at: `2025-12-31T10:${String(i % 60).padStart(2, "0")}:00.000Z`, city: "Lyon", country: "FR", device: "mobile" })),
      scansListed: scans,
      scansTruncated: false,
    });
    const small = window(30, 20);
    assert.equal(fitAnalytics(small), small);
    const year = fitAnalytics(window(365, 1000));
    assert.ok(jsonBytes(year) <= RESULT_MAX_BYTES, `${jsonBytes(year)} bytes`);
    assert.equal(year.scansTruncated, true);
    assert.equal(year.scansListed, year.scans.length);
    assert.equal((year as { truncated?: boolean }).truncated, true);
    assert.ok(year.byDay.length > 200 && year.byDay.length < 365, String(year.byDay.length));
    assert.equal(year.byDay.at(-1)!.date, day(364), "the newest day is kept");
    assert.equal(year.totalScans, 123_456, "totals still cover the whole window");
    const scansOnly = fitAnalytics(window(30, 1000));
    assert.equal(scansOnly.scansTruncated, true);
    assert.equal((scansOnly as { truncated?: boolean }).truncated, undefined, "byDay untouched when cutting scans was enough");
    assert.ok(scansOnly.scans.length > 50 && jsonBytes(scansOnly) <= RESULT_MAX_BYTES);
  });
});
