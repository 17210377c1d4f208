import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from "../../functions/src/auth/apiKeys";

describe("API key material", () => {
  it("generates sk-svc- plus 64 lowercase hex characters, never twice the same", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    assert.equal(keys.size, 1000);
    for (const key of keys) assert.match(key, /^sk-svc-[0-9a-f]{64}$/);
  });

  it("hashes with SHA-256 and shows a short prefix", () => {
    const key = generateApiKey();
    assert.equal(hashApiKey(key), createHash("sha256").update(key).digest("hex"));
    assert.equal(displayPrefix(key), key.slice(0, 15));
  });

  it("recognises only well-formed keys", () => {
    assert.ok(isWellFormedApiKey(`sk-svc-${"a".repeat(64)}`));
    for (const bad of ["sk-svc-", `sk-svc-${"A".repeat(64)}`, `sk-svc-${"a".repeat(63)}`, `sk-svc-${"a".repeat(65)}`, `sk-xyz-${"a".repeat(64)}`]) {
      assert.equal(isWellFormedApiKey(bad), false, bad);
    }
  });
});
