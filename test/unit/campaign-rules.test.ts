import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { codeRulesSchema, type CodeRulesInput, type Rule } from "../../functions/src/campaigns/rules";
import { closedAnswer, codeState, evaluate, localClock, preferredLanguage, type CodeTarget, type ScanContext } from "../../functions/src/campaigns/evaluate";
import { applyUtm, utmTemplateSchema, utmTemplatesSchema } from "../../functions/src/campaigns/utm";
import { AppError } from "../../functions/src/core/errors";
import { parseOrThrow } from "../../functions/src/core/validation";

const CODE: CodeTarget = { codeId: "code_matrix", destinationUrl: "https://shop.example/home" };

function scan(overrides: Partial<ScanContext> = {}): ScanContext {
  return {
    device: "mobile",
    os: "iOS",
    browser: "Safari",
    country: "US",
    region: "California",
    acceptLanguage: "en-US,en;q=0.9",
    now: new Date("2026-12-05T12:00:00Z"),
    timeZone: "UTC",
    scanCount: 0,
    query: new URLSearchParams(),
    isBot: false,
    scannerDayKey: "visitor-day-key",
    ...overrides,
  };
}

const parse = (input: CodeRulesInput) => codeRulesSchema.parse(input);
const rulesOf = (input: CodeRulesInput["rules"]): Rule[] => parse({ rules: input }).rules;
const go = (path: string) => ({ type: "redirect" as const, url: `https://shop.example/${path}` });

describe("campaign rules: the routing matrix (device x country x language x time x date x count)", () => {
  // The workspace is in Paris (UTC+1 all December). Rules, first match wins:
  const rules = rulesOf([
    { name: "fr-evening", when: { device: ["mobile"], country: ["FR", "BE"], language: ["fr"], time: { from: "18:00", to: "23:00" } }, then: go("fr-evening") },
    { name: "xmas", when: { dates: { from: "2026-12-24", to: "2026-12-26" }, scanCount: { max: 99 } }, then: go("xmas") },
    { name: "de-desktop", when: { device: ["desktop"], language: ["de"] }, then: go("de-desktop") },
    { name: "night-dach", when: { country: ["DE", "AT"], time: { from: "22:00", to: "06:00" } }, then: go("night-dach") },
    { name: "uk-weekend", when: { language: ["en-GB"], weekdays: ["sat", "sun"] }, then: go("uk-weekend") },
    { name: "popular", when: { scanCount: { min: 1000 } }, then: go("popular") },
    { name: "tablet-early", when: { device: ["tablet"], dates: { to: "2026-12-10" } }, then: go("tablet-early") },
  ]);
  // Literal outcomes: rule index and URL of each name ("home" is no rule: the code's destination).
  const OUTCOMES: Record<string, { ruleIndex: number | null; url: string }> = {
    "fr-evening": { ruleIndex: 0, url: "https://shop.example/fr-evening" },
    xmas: { ruleIndex: 1, url: "https://shop.example/xmas" },
    "de-desktop": { ruleIndex: 2, url: "https://shop.example/de-desktop" },
    "night-dach": { ruleIndex: 3, url: "https://shop.example/night-dach" },
    "uk-weekend": { ruleIndex: 4, url: "https://shop.example/uk-weekend" },
    popular: { ruleIndex: 5, url: "https://shop.example/popular" },
    "tablet-early": { ruleIndex: 6, url: "https://shop.example/tablet-early" },
    home: { ruleIndex: null, url: "https://shop.example/home" },
  };
  // Accept-Language headers: fr = first choice fr-CA; de = first choice de-DE by q-value; gb = en-GB.
  const LANGUAGES: Record<string, string> = { fr: "en;q=0.4, fr-CA", de: "en;q=0.5, de-DE, *;q=0.1", gb: "en-GB,en;q=0.9,fr;q=0.8" };
  const TIMES = ["08:30", "19:00", "23:30"];
  // device country language  local-date (12-05 is a Saturday, 12-25 a Friday)  scans-so-far  :  outcome at 08:30, 19:00, 23:30
  const TABLE = `
    mobile  FR fr 12-05 5    : home         fr-evening   home
    mobile  FR de 12-05 5    : home         home         home
    mobile  FR gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend
    mobile  DE fr 12-05 5    : home         home         night-dach
    mobile  DE de 12-05 5    : home         home         night-dach
    mobile  DE gb 12-05 5    : uk-weekend   uk-weekend   night-dach
    mobile  US fr 12-05 5    : home         home         home
    mobile  US de 12-05 5    : home         home         home
    mobile  US gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend
    desktop FR fr 12-05 5    : home         home         home
    desktop FR de 12-05 5    : de-desktop   de-desktop   de-desktop
    desktop FR gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend
    desktop DE fr 12-05 5    : home         home         night-dach
    desktop DE de 12-05 5    : de-desktop   de-desktop   de-desktop
    desktop DE gb 12-05 5    : uk-weekend   uk-weekend   night-dach
    desktop US fr 12-05 5    : home         home         home
    desktop US de 12-05 5    : de-desktop   de-desktop   de-desktop
    desktop US gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend
    tablet  FR fr 12-05 5    : tablet-early tablet-early tablet-early
    tablet  FR de 12-05 5    : tablet-early tablet-early tablet-early
    tablet  FR gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend
    tablet  DE fr 12-05 5    : tablet-early tablet-early night-dach
    tablet  DE de 12-05 5    : tablet-early tablet-early night-dach
    tablet  DE gb 12-05 5    : uk-weekend   uk-weekend   night-dach
    tablet  US fr 12-05 5    : tablet-early tablet-early tablet-early
    tablet  US de 12-05 5    : tablet-early tablet-early tablet-early
    tablet  US gb 12-05 5    : uk-weekend   uk-weekend   uk-weekend

    mobile  FR fr 12-05 1500 : popular      fr-evening   popular
    mobile  FR de 12-05 1500 : popular      popular      popular
    mobile  FR gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend
    mobile  DE fr 12-05 1500 : popular      popular      night-dach
    mobile  DE de 12-05 1500 : popular      popular      night-dach
    mobile  DE gb 12-05 1500 : uk-weekend   uk-weekend   night-dach
    mobile  US fr 12-05 1500 : popular      popular      popular
    mobile  US de 12-05 1500 : popular      popular      popular
    mobile  US gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend
    desktop FR fr 12-05 1500 : popular      popular      popular
    desktop FR de 12-05 1500 : de-desktop   de-desktop   de-desktop
    desktop FR gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend
    desktop DE fr 12-05 1500 : popular      popular      night-dach
    desktop DE de 12-05 1500 : de-desktop   de-desktop   de-desktop
    desktop DE gb 12-05 1500 : uk-weekend   uk-weekend   night-dach
    desktop US fr 12-05 1500 : popular      popular      popular
    desktop US de 12-05 1500 : de-desktop   de-desktop   de-desktop
    desktop US gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend
    tablet  FR fr 12-05 1500 : popular      popular      popular
    tablet  FR de 12-05 1500 : popular      popular      popular
    tablet  FR gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend
    tablet  DE fr 12-05 1500 : popular      popular      night-dach
    tablet  DE de 12-05 1500 : popular      popular      night-dach
    tablet  DE gb 12-05 1500 : uk-weekend   uk-weekend   night-dach
    tablet  US fr 12-05 1500 : popular      popular      popular
    tablet  US de 12-05 1500 : popular      popular      popular
    tablet  US gb 12-05 1500 : uk-weekend   uk-weekend   uk-weekend

    mobile  FR fr 12-25 5    : xmas         fr-evening   xmas
    mobile  FR de 12-25 5    : xmas         xmas         xmas
    mobile  FR gb 12-25 5    : xmas         xmas         xmas
    mobile  DE fr 12-25 5    : xmas         xmas         xmas
    mobile  DE de 12-25 5    : xmas         xmas         xmas
    mobile  DE gb 12-25 5    : xmas         xmas         xmas
    mobile  US fr 12-25 5    : xmas         xmas         xmas
    mobile  US de 12-25 5    : xmas         xmas         xmas
    mobile  US gb 12-25 5    : xmas         xmas         xmas
    desktop FR fr 12-25 5    : xmas         xmas         xmas
    desktop FR de 12-25 5    : xmas         xmas         xmas
    desktop FR gb 12-25 5    : xmas         xmas         xmas
    desktop DE fr 12-25 5    : xmas         xmas         xmas
    desktop DE de 12-25 5    : xmas         xmas         xmas
    desktop DE gb 12-25 5    : xmas         xmas         xmas
    desktop US fr 12-25 5    : xmas         xmas         xmas
    desktop US de 12-25 5    : xmas         xmas         xmas
    desktop US gb 12-25 5    : xmas         xmas         xmas
    tablet  FR fr 12-25 5    : xmas         xmas         xmas
    tablet  FR de 12-25 5    : xmas         xmas         xmas
    tablet  FR gb 12-25 5    : xmas         xmas         xmas
    tablet  DE fr 12-25 5    : xmas         xmas         xmas
    tablet  DE de 12-25 5    : xmas         xmas         xmas
    tablet  DE gb 12-25 5    : xmas         xmas         xmas
    tablet  US fr 12-25 5    : xmas         xmas         xmas
    tablet  US de 12-25 5    : xmas         xmas         xmas
    tablet  US gb 12-25 5    : xmas         xmas         xmas

    mobile  FR fr 12-25 1500 : popular      fr-evening   popular
    mobile  FR de 12-25 1500 : popular      popular      popular
    mobile  FR gb 12-25 1500 : popular      popular      popular
    mobile  DE fr 12-25 1500 : popular      popular      night-dach
    mobile  DE de 12-25 1500 : popular      popular      night-dach
    mobile  DE gb 12-25 1500 : popular      popular      night-dach
    mobile  US fr 12-25 1500 : popular      popular      popular
    mobile  US de 12-25 1500 : popular      popular      popular
    mobile  US gb 12-25 1500 : popular      popular      popular
    desktop FR fr 12-25 1500 : popular      popular      popular
    desktop FR de 12-25 1500 : de-desktop   de-desktop   de-desktop
    desktop FR gb 12-25 1500 : popular      popular      popular
    desktop DE fr 12-25 1500 : popular      popular      night-dach
    desktop DE de 12-25 1500 : de-desktop   de-desktop   de-desktop
    desktop DE gb 12-25 1500 : popular      popular      night-dach
    desktop US fr 12-25 1500 : popular      popular      popular
    desktop US de 12-25 1500 : de-desktop   de-desktop   de-desktop
    desktop US gb 12-25 1500 : popular      popular      popular
    tablet  FR fr 12-25 1500 : popular      popular      popular
    tablet  FR de 12-25 1500 : popular      popular      popular
    tablet  FR gb 12-25 1500 : popular      popular      popular
    tablet  DE fr 12-25 1500 : popular      popular      night-dach
    tablet  DE de 12-25 1500 : popular      popular      night-dach
    tablet  DE gb 12-25 1500 : popular      popular      night-dach
    tablet  US fr 12-25 1500 : popular      popular      popular
    tablet  US de 12-25 1500 : popular      popular      popular
    tablet  US gb 12-25 1500 : popular      popular      popular
  `;

  interface Row {
    device: string;
    country: string;
    language: string;
    date: string;
    count: number;
    time: string;
    expected: string;
  }
  const rows: Row[] = [];
  for (const line of TABLE.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const [left, right] = line.split(":");
    const [device, country, language, date, count] = left.trim().split(/\s+/);
    const outcomes = right.trim().split(/\s+/);
    assert.equal(outcomes.length, TIMES.length, line);
    TIMES.forEach((time, i) => rows.push({ device, country, language, date: `2026-${date}`, count: Number(count), time, expected: outcomes[i] }));
  }

  it("has at least 300 hand-written cases covering every combination once", () => {
    assert.equal(rows.length, 324);
    assert.equal(new Set(rows.map((r) => `${r.device} ${r.country} ${r.language} ${r.date} ${r.count} ${r.time}`)).size, rows.length);
    for (const r of rows) assert.ok(r.expected in OUTCOMES, `unknown outcome ${r.expected}`);
  });

  it("routes every row to the outcome in the table", () => {
    const wrong: string[] = [];
    for (const r of rows) {
      const result = evaluate(
        rules,
        scan({
          device: r.device,
          country: r.country,
          acceptLanguage: LANGUAGES[r.language],
          timeZone: "Europe/Paris",
          now: new Date(`${r.date}T${r.time}:00+01:00`),
          scanCount: r.count,
        }),
        CODE,
      );
      const want = OUTCOMES[r.expected];
      if (result.ruleIndex !== want.ruleIndex || result.action.type !== "redirect" || result.action.url !== want.url || result.variant !== undefined) {
        wrong.push(`${r.device} ${r.country} ${r.language} ${r.date} ${r.count} ${r.time}: want ${r.expected}, got ${JSON.stringify(result)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});

describe("campaign rules: A/B split", () => {
  const WEIGHTS = [10, 20, 30, 40];
  const rules = rulesOf([
    { when: { visitor: "bot" }, then: go("bots") },
    { when: {}, then: { type: "split", variants: WEIGHTS.map((weight, i) => ({ url: `https://shop.example/v${i}`, weight })) } },
  ]);
  const scanners = Array.from({ length: 20_000 }, () => randomBytes(12).toString("base64url"));

  function shares(dayKeys: string[], codeId = CODE.codeId): { variants: number[]; counts: number[] } {
    const counts = [0, 0, 0, 0];
    const variants = dayKeys.map((scannerDayKey) => {
      const r = evaluate(rules, scan({ scannerDayKey }), { ...CODE, codeId });
      assert.equal(r.ruleIndex, 1);
      assert.equal(r.action.type === "redirect" && r.action.url, `https://shop.example/v${r.variant}`);
      counts[r.variant!]++;
      return r.variant!;
    });
    return { variants, counts };
  }

  it("lands 20,000 scanners within 2 percentage points of each weight", () => {
    const { counts } = shares(scanners);
    counts.forEach((n, i) => assert.ok(Math.abs((n / scanners.length) * 100 - WEIGHTS[i]) <= 2, `variant ${i}: ${((n / scanners.length) * 100).toFixed(2)}% for weight ${WEIGHTS[i]}`));
  });

  it("shows each scanner one variant all day, whatever else changes in their scans", () => {
    const { variants } = shares(scanners);
    const moments = ["2026-12-05T00:05:00Z", "2026-12-05T13:00:00Z", "2026-12-05T23:55:00Z"];
    scanners.forEach((scannerDayKey, i) => {
      for (const [k, at] of moments.entries()) {
        const r = evaluate(rules, scan({ scannerDayKey, now: new Date(at), scanCount: i * 7 + k, device: k ? "desktop" : "mobile", country: k ? "DE" : "US" }), CODE);
        assert.equal(r.variant, variants[i], `scanner ${i} at ${at}`);
      }
    });
  });

  it("reshuffles with a new day key, and per code, keeping the weights", () => {
    const today = shares(scanners).variants;
    const tomorrow = shares(scanners.map((s) => `${s}~next-day`));
    const otherCode = shares(scanners, "code_other");
    for (const next of [tomorrow, otherCode]) {
      const moved = next.variants.filter((v, i) => v !== today[i]).length / scanners.length;
      // Independent draws move 1 - (0.1² + 0.2² + 0.3² + 0.4²) = 70% of scanners.
      assert.ok(moved > 0.65 && moved < 0.75, `moved ${moved}`);
      next.counts.forEach((n, i) => assert.ok(Math.abs((n / scanners.length) * 100 - WEIGHTS[i]) <= 2));
    }
  });

  it("sends bots by an earlier rule without drawing a variant", () => {
    const r = evaluate(rules, scan({ isBot: true }), CODE);
    assert.deepEqual(r, { ruleIndex: 0, action: { type: "redirect", url: "https://shop.example/bots" } });
  });
});
