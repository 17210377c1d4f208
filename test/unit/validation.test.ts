import assert from "node:assert/strict";
import { z } from "zod";
import { AppError } from "../../functions/src/core/errors";
import { httpUrl, parseOrThrow, text } from "../../functions/src/core/validation";

describe("validation helpers", () => {
  it("httpUrl accepts http(s) only, up to the limit", () => {
    const schema = httpUrl(40);
    assert.equal(schema.safeParse("https://example.com/a").success, true);
    assert.equal(schema.safeParse("http://example.com").success, true);
    for (const bad of ["ftp://example.com", "javascript:alert(1)", "example.com", "", "https://", `https://e.com/${"a".repeat(40)}`]) {
      assert.equal(schema.safeParse(bad).success, false, bad);
    }
  });

  it("parseOrThrow returns typed data or a VALIDATION_FAILED listing every field", () => {
    const schema = z.object({ title: text(5), n: z.number() }).strict();
    assert.deepEqual(parseOrThrow(schema, { title: " ok ", n: 1 }, "input"), { title: "ok", n: 1 });
    try {
      parseOrThrow(schema, { title: "too long", n: "x", extra: 1 }, "input");
      assert.fail("should throw");
    } catch (e) {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, "VALIDATION_FAILED");
      assert.equal(e.httpStatus, 400);
      assert.equal(e.rpcCode, -32602);
      const paths = (e.details!.issues as Array<{ path: string }>).map((i) => i.path).sort();
      assert.deepEqual(paths, ["", "n", "title"]);
    }
  });
});
