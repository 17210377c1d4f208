import assert from "node:assert/strict";
import { campaignInputOf, campaignUrls, parseCampaignRules, scanCountThresholds } from "../../functions/src/campaigns/service";
import { AppError } from "../../functions/src/core/errors";
import { hashPassword, verifyPassword } from "../../functions/src/campaigns/password";

const refused = (input: unknown, pattern: RegExp) =>
  assert.throws(() => parseCampaignRules(input), (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED" && pattern.test(e.message));

describe("campaign rules: what setCodeCampaign stores", () => {
  const input = {
    rules: [
      { name: "late", when: { time: { from: "22:05", to: "02:00" }, country: ["de"] }, then: { type: "redirect", url: "https://example.com/late" } },
      { when: {}, then: { type: "split", variants: [{ url: "https://example.com/a", weight: 30 }, { url: "https://example.com/b", weight: 70 }] } },
    ],
    endsAt: "2026-12-31T23:00:00Z",
    fallbackUrl: "https://example.com/over",
  };

  it("writes parsed settings back as input (HH:MM), which parses to the same settings", () => {
    const parsed = parseCampaignRules(input);
    assert.equal(parsed.rules[0].when.time!.from, 22 * 60 + 5);
    const written = campaignInputOf(parsed);
    assert.deepEqual((written.rules[0].when as { time: unknown }).time, { from: "22:05", to: "02:00" });
    assert.equal((written.rules[0].when as { country: string[] }).country[0], "DE");
    assert.deepEqual(parseCampaignRules(written), parsed);
    assert.ok(!("time" in written.rules[1].when), "no time added to a rule without one");
  });

  it("lists every URL a visitor can be sent to, for the blocklist check", () => {
    assert.deepEqual(campaignUrls(parseCampaignRules(input)).sort(), ["https://example.com/a", "https://example.com/b", "https://example.com/late", "https://example.com/over"]);
  });

  it("accepts a cap and a password action; refuses a password nothing asks for", () => {
    assert.equal(parseCampaignRules({ rules: [], humanScanCap: 10 }).humanScanCap, 10);
    const guarded = parseCampaignRules({ rules: [{ when: {}, then: { type: "password" } }], password: "open sesame" });
    assert.equal(guarded.password, "open sesame");
    assert.equal(campaignInputOf(guarded).password, "open sesame", "a surface that parsed the settings passes the password on");
    refused({ rules: [], password: "open sesame" }, /password: password is asked for only by a "password" action/);
    refused({ rules: [{ when: {}, then: { type: "password" } }], password: "short" }, /password has at least 8 characters/);
    refused({ rules: [{ when: {}, then: { type: "password" } }], password: "sevench" }, /password has at least 8 characters/);
    for (const common of ["password123", "Password123", "QWERTYUIOP", "iloveyou"]) refused({ rules: [{ when: {}, then: { type: "password" } }], password: common }, /one of the most common passwords/);
  });

  it("refuses a condition nested 100,000 deep with a validation message, not a RangeError (no 5xx at any depth)", () => {
    let deep: unknown = "phone";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const field of ["device", "os", "browser"]) refused({ rules: [{ when: { [field]: [deep] }, then: { type: "redirect", url: "https://example.com/" } }] }, / a list; one of: /);
  });

  it("keeps a password set under the old 6-character minimum working: only new and changed passwords are checked", async () => {
    const printed = await hashPassword("secret");
    assert.equal(await verifyPassword("secret", printed), true);
    assert.equal(await verifyPassword("secreT", printed), false);
  });

  it("scanCount thresholds: each min above 0 and each max + 1, distinct and ascending; at most 4 per code", () => {
    const when = (scanCount: object) => ({ when: { scanCount }, then: { type: "ended" } });
    assert.deepEqual(scanCountThresholds(parseCampaignRules({ rules: [when({ max: 9 }), when({ min: 10, max: 99 }), when({ min: 0, max: 4 }), when({ min: 100 })] }).rules), [5, 10, 100]);
    assert.deepEqual(scanCountThresholds(parseCampaignRules({ rules: [when({ min: 0 })] }).rules), [], "min 0 always holds: no counter");
    assert.deepEqual(scanCountThresholds(parseCampaignRules({ rules: [when({ min: 1, max: 1 }), when({ min: 2, max: 3 }), when({ min: 4 })] }).rules), [1, 2, 4]);
    refused({ rules: [when({ max: 1 }), when({ min: 3, max: 4 }), when({ min: 7, max: 9 })] }, /rules: scanCount conditions may use at most 4 distinct thresholds per code .*these use 5: 2, 3, 5, 7, 10/);
  });

  it("refuses invalid settings with the schema's message, naming the known conditions", () => {
    refused({ rules: [{ when: { planet: ["mars"] }, then: { type: "ended" } }] }, /unknown condition "planet"; known: device, os/);
  });

  it("keeps a password as a salted scrypt hash: the right one matches, a wrong one does not, two hashes differ", async () => {
    const [one, two] = await Promise.all([hashPassword("open sesame"), hashPassword("open sesame")]);
    assert.equal(one.alg, "scrypt");
    assert.notEqual(one.salt, two.salt);
    assert.notEqual(one.hash, two.hash);
    assert.ok(!JSON.stringify(one).includes("sesame"));
    assert.equal(await verifyPassword("open sesame", one), true);
    assert.equal(await verifyPassword("open sesame", two), true);
    assert.equal(await verifyPassword("open sesame ", one), false);
    assert.equal(await verifyPassword("Open sesame", one), false);
  });
});
