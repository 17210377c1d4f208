// Tool lists stay bounded in an agent's context: svc.qr.list pages a workspace of 250 codes by cursor
// through the tool server, each page cut to stay within about 6,000 tokens (issue 40, "bounded results").
import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { encode } from "gpt-tokenizer/cjs/encoding/cl100k_base";
import { createMerchant, type TestMerchant } from "../helpers/merchants";

describe("MCP list tools: pages by cursor", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  const made: string[] = [];

  before(async () => {
    merchant = await createMerchant();
    for (let batch = 0; batch < 5; batch++) {
      const urls = Array.from({ length: 50 }, (_, i) => `https://example.com/page/${batch * 50 + i}`);
      const res = await fetch(`${appUrl()}/api/bulk-qr-codes`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` },
        body: JSON.stringify({ urls }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      made.push(...((await res.json()) as any).codes.map((c: any) => c.codeId));
    }
  });

  it("svc.qr.list pages through 250 codes by cursor, newest first, each code once, each page within about 6,000 tokens", async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    let created = Infinity;
    do {
      const res = await callTool("svc.qr.list", { limit: 100, ...(cursor ? { cursor } : {}) }, merchant.apiKey);
      const page = toolResult(res);
      assert.equal(page.count, page.codes.length);
      // A page of 100 codes would be about 20,000 tokens: it is cut, marked, and continued by its cursor.
      // Counted as an agent's context gets it: the summary and the JSON text together (the summary names
      // a few codes, not the page again).
      const texts = res.body.result.content.map((c: any) => c.text as string);
      const tokens = encode(texts.join("\n")).length;
      assert.ok(tokens <= 6_000, `${tokens} tokens`);
      assert.deepEqual(JSON.parse(texts[1]), page);
      assert.ok(texts[0].split("\n").filter((line: string) => line.startsWith("- ")).length <= 6, texts[0]);
      assert.equal(page.truncated, page.count < 100 && page.nextCursor !== null && seen.length + page.count < 250);
      if (page.truncated) assert.match(res.body.result.content[0].text, /Cut to stay within about 6,000 tokens; pass nextCursor/);
      pages.push(page.count);
      for (const code of page.codes) {
        const at = Date.parse(code.createdAt);
        assert.ok(at <= created, "newest first across pages");
        created = at;
        seen.push(code.codeId);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    assert.ok(pages.length > 3 && pages.slice(0, -1).every((n) => n >= 10), `pages ${pages.join(", ")}`);
    assert.equal(new Set(seen).size, 250, "no code twice");
    assert.deepEqual([...seen].sort(), [...made].sort(), "every code once");
  });

  it("refuses a cursor that is not one of its own with a clear error, never a 5xx", async () => {
    for (const cursor of ["not-a-cursor", Buffer.from(JSON.stringify(["title", "asc", "x", "y"])).toString("base64url"), "x".repeat(513)]) {
      const res = await callTool("svc.qr.list", { limit: 10, cursor }, merchant.apiKey);
      assert.ok(res.status < 500, `${res.status} ${res.text}`);
      assert.equal(res.body.error?.data?.code, "VALIDATION_FAILED", res.text);
    }
  });
});
