import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { CONDITION_NAMES, codeRulesSchema, conditionsSchema, ruleListSchema, type CodeRulesInput, type Rule } from "../../functions/src/campaigns/rules";
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
const rulesOf = (input: CodeRulesInput["rules"]): Rule[] => ruleListSchema.parse(input);
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

describe("campaign rules: bad rules get a clear error", () => {
  const ok = { when: {}, then: go("ok") };
  const split = (weights: number[]) => ({ when: {}, then: { type: "split", variants: weights.map((weight, i) => ({ url: `https://shop.example/v${i}`, weight })) } });
  const cases: [string, unknown, string, string][] = [
    ["an unknown condition", { rules: [{ when: { colour: ["red"] }, then: go("x") }] }, "rules.0.when", 'unknown condition "colour"; known: device, os, browser'],
    ["5 variants", { rules: [split([20, 20, 20, 20, 20])] }, "rules.0.then.variants", "an A/B split has at most 4 variants"],
    ["weights not summing to 100", { rules: [split([50, 40])] }, "rules.0.then.variants", "an A/B split's weights must sum to 100; these sum to 90"],
    ["weights over 100", { rules: [split([60, 30, 20])] }, "rules.0.then.variants", "these sum to 110"],
    ["a fractional weight", { rules: [split([50.5, 49.5])] }, "rules.0.then.variants.0.weight", "a variant's weight is a whole number"],
    ["a zero weight", { rules: [split([100, 0])] }, "rules.0.then.variants.1.weight", "a variant's weight is at least 1"],
    ["a one-variant split", { rules: [split([100])] }, "rules.0.then.variants", "an A/B split needs at least 2 variants"],
    ["an invalid time zone", { rules: [{ when: { timeZone: "Mars/Olympus_Mons", time: { from: "09:00", to: "17:00" } }, then: go("x") }] }, "rules.0.when.timeZone", "must be an IANA time zone name"],
    ["a javascript: URL", { rules: [{ when: {}, then: { type: "redirect", url: "javascript:alert(1)" } }] }, "rules.0.then.url", "Must be an absolute http:// or https:// URL"],
    ["an ftp: variant URL", { rules: [{ when: {}, then: { type: "split", variants: [{ url: "ftp://files.example/a", weight: 50 }, { url: "https://shop.example/b", weight: 50 }] } }] }, "rules.0.then.variants.0.url", "Must be an absolute http:// or https:// URL"],
    ["a relative fallback URL", { rules: [], fallbackUrl: "/ended" }, "fallbackUrl", "Must be an absolute http:// or https:// URL"],
    ["21 rules", { rules: Array.from({ length: 21 }, () => ok) }, "rules", "at most 20 rules"],
    ["an unknown action", { rules: [{ when: {}, then: { type: "teleport", url: "https://shop.example/" } }] }, "rules.0.then.type", "unknown action type; one of: redirect, split, password, ended, fallback"],
    ["a misspelt OS", { rules: [{ when: { os: ["Windos"] }, then: go("x") }] }, "rules.0.when.os.0", 'unknown OS "Windos"; one of:'],
    ["an unknown device type", { rules: [{ when: { device: ["watch"] }, then: go("x") }] }, "rules.0.when.device.0", 'unknown device type "watch"; one of: desktop, mobile, tablet, tv, unknown'],
    ["an empty window", { rules: [{ when: { time: { from: "10:00", to: "10:00" } }, then: go("x") }] }, "rules.0.when.time", "a time window needs from and to to differ"],
    ["a time of 24:00", { rules: [{ when: { time: { from: "20:00", to: "24:00" } }, then: go("x") }] }, "rules.0.when.time.to", "a time of day is HH:MM, 00:00 to 23:59"],
    ["a weekday twice", { rules: [{ when: { weekdays: ["fri", "fri"] }, then: go("x") }] }, "rules.0.when.weekdays", "each weekday at most once"],
    ["dates out of order", { rules: [{ when: { dates: { from: "2026-12-24", to: "2026-12-01" } }, then: go("x") }] }, "rules.0.when.dates", "a date range's from must not be after its to"],
    ["a scan count min over max", { rules: [{ when: { scanCount: { min: 10, max: 5 } }, then: go("x") }] }, "rules.0.when.scanCount", "a scan count's min must not exceed its max"],
    ["a bad language tag", { rules: [{ when: { language: ["french!"] }, then: go("x") }] }, "rules.0.when.language.0", "a language is a tag such as fr, pt-BR or zh-Hant"],
    ["a bad country", { rules: [{ when: { country: ["USA"] }, then: go("x") }] }, "rules.0.when.country.0", "a country is an ISO 3166-1 alpha-2 code"],
    ["a schedule that ends before it starts", { rules: [], startsAt: "2026-12-31T00:00:00Z", endsAt: "2026-12-01T00:00:00Z" }, "endsAt", "startsAt must be before endsAt"],
    ["a fallback action without a fallback URL", { rules: [{ when: {}, then: { type: "fallback" } }] }, "fallbackUrl", 'a "fallback" action needs fallbackUrl'],
    ["a cap of 0", { rules: [], humanScanCap: 0 }, "humanScanCap", "humanScanCap is at least 1"],
    ["an unknown top-level field", { rules: [], expiresAt: "2026-12-01T00:00:00Z" }, "", 'unknown field "expiresAt"'],
  ];
  for (const [what, input, path, message] of cases) {
    it(`refuses ${what}`, () => {
      const before = JSON.stringify(input);
      const result = codeRulesSchema.safeParse(input);
      assert.equal(result.success, false);
      const issue = result.error!.issues.find((i) => i.path.join(".") === path);
      assert.ok(issue, `no issue at "${path}": ${JSON.stringify(result.error!.issues)}`);
      assert.ok(issue.message.includes(message), `"${issue.message}" does not say "${message}"`);
      assert.equal(JSON.stringify(input), before, "the input is left as it was");
    });
  }

  it("names every condition it knows in its unknown-condition message", () => {
    assert.deepEqual(Object.keys(conditionsSchema.shape).sort(), [...CONDITION_NAMES, "timeZone"].sort());
  });

  it("reaches callers as one VALIDATION_FAILED error naming the field", () => {
    assert.throws(
      () => parseOrThrow(codeRulesSchema, { rules: [split([20, 20, 20, 20, 20])] }, "rules"),
      (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED" && e.message === "Invalid rules: rules.0.then.variants: an A/B split has at most 4 variants",
    );
  });

  it("accepts a full rule set and normalises it for the evaluator", () => {
    const parsed = parse({
      rules: [
        { name: "night", when: { device: ["mobile", "tablet"], os: ["iOS"], browser: ["Safari"], country: ["fr"], region: [{ country: "fr", region: "Île-de-France" }], language: ["FR", "pt-BR"], time: { from: "22:30", to: "06:00" }, weekdays: ["fri", "sat"], dates: { from: "2026-12-01" }, timeZone: "Europe/Paris", scanCount: { max: 99 }, query: { name: "table" }, visitor: "human" }, then: { type: "password" } },
        { when: {}, then: { type: "fallback" } },
      ],
      startsAt: "2026-12-01T09:00:00+01:00",
      endsAt: "2026-12-31T23:00:00Z",
      humanScanCap: 5000,
      fallbackUrl: "HTTPS://Shop.Example/ended",
      utmTemplate: "spring-qr",
    });
    const when = parsed.rules[0].when;
    assert.deepEqual(when.country, ["FR"]);
    assert.deepEqual(when.region, [{ country: "FR", region: "île-de-france" }]);
    assert.deepEqual(when.language, ["fr", "pt-br"]);
    assert.deepEqual(when.time, { from: 22 * 60 + 30, to: 6 * 60 });
    assert.equal(parsed.fallbackUrl, "https://shop.example/ended");
  });
});

describe("campaign rules: time windows, weekdays and dates in the workspace's zone", () => {
  const NY = "America/New_York";
  const friNight = rulesOf([{ when: { time: { from: "22:00", to: "02:00" }, weekdays: ["fri"] }, then: go("fri-night") }]);
  const at = (iso: string, rules: Rule[], timeZone = NY) => evaluate(rules, scan({ now: new Date(iso), timeZone }), CODE).ruleIndex;

  it("holds a window across midnight on the day it opened", () => {
    // 2026-12-04 is a Friday; New York is UTC-5 in December.
    assert.equal(at("2026-12-04T21:59:00-05:00", friNight), null);
    assert.equal(at("2026-12-04T22:00:00-05:00", friNight), 0);
    assert.equal(at("2026-12-04T23:59:00-05:00", friNight), 0);
    assert.equal(at("2026-12-05T00:00:00-05:00", friNight), 0); // Saturday 00:00, Friday's window
    assert.equal(at("2026-12-05T01:59:00-05:00", friNight), 0);
    assert.equal(at("2026-12-05T02:00:00-05:00", friNight), null);
    assert.equal(at("2026-12-05T23:00:00-05:00", friNight), null); // Saturday's window: not a Friday
    assert.equal(at("2026-12-04T01:00:00-05:00", friNight), null); // Thursday's window, on Friday morning
  });

  it("reads the clock in the zone: the same instant is Friday night in New York and Saturday in Paris", () => {
    assert.equal(at("2026-12-05T04:30:00Z", friNight), 0); // 23:30 Friday in New York
    assert.equal(at("2026-12-05T04:30:00Z", friNight, "Europe/Paris"), null); // 05:30 Saturday in Paris
    assert.equal(at("2026-12-05T04:30:00Z", friNight, "UTC"), null);
    // A rule's own zone wins over the workspace's.
    const paris = rulesOf([{ when: { time: { from: "05:00", to: "06:00" }, timeZone: "Europe/Paris" }, then: go("x") }]);
    assert.equal(at("2026-12-05T04:30:00Z", paris, NY), 0);
  });

  it("counts wall-clock minutes across the spring DST change (02:00 to 03:00 never happens on 8 March)", () => {
    const minutesMatching = (from: string, to: string, day: string) => {
      const rules = rulesOf([{ when: { time: { from, to }, dates: { from: day, to: day } }, then: go("x") }]);
      let n = 0;
      // Every UTC minute of 36 hours from the day's UTC start covers the whole local day in New York.
      const start = Date.parse(`${day}T00:00:00Z`);
      for (let m = 0; m < 36 * 60; m++) if (evaluate(rules, scan({ now: new Date(start + m * 60_000), timeZone: NY }), CODE).ruleIndex === 0) n++;
      return n;
    };
    assert.equal(minutesMatching("02:00", "03:00", "2026-03-08"), 0);
    assert.equal(minutesMatching("01:30", "02:30", "2026-03-08"), 30);
    assert.equal(minutesMatching("09:00", "17:00", "2026-03-08"), 480);
    // Autumn: 01:00 to 02:00 happens twice on 1 November.
    assert.equal(minutesMatching("01:00", "02:00", "2026-11-01"), 120);
    assert.equal(minutesMatching("01:30", "02:30", "2026-11-01"), 90);
    // The whole local day is 23 hours in spring and 25 in autumn.
    assert.equal(minutesMatching("00:00", "23:59", "2026-03-08") + 1, 23 * 60);
    assert.equal(minutesMatching("00:00", "23:59", "2026-11-01") + 1, 25 * 60);
  });

  it("meets the DST edges minute by minute in New York", () => {
    const early = rulesOf([{ when: { time: { from: "01:30", to: "02:30" } }, then: go("x") }]);
    assert.equal(at("2026-03-08T06:29:00Z", early), null); // 01:29 EST
    assert.equal(at("2026-03-08T06:30:00Z", early), 0); // 01:30 EST
    assert.equal(at("2026-03-08T06:59:00Z", early), 0); // 01:59 EST
    assert.equal(at("2026-03-08T07:00:00Z", early), null); // 03:00 EDT
    assert.equal(at("2026-11-01T05:30:00Z", early), 0); // 01:30 EDT
    assert.equal(at("2026-11-01T06:00:00Z", early), null); // 01:00 EST, the second 01:00
    assert.equal(at("2026-11-01T06:30:00Z", early), 0); // 01:30 EST, the second 01:30
    assert.equal(at("2026-11-01T07:29:00Z", early), 0); // 02:29 EST
    assert.equal(at("2026-11-01T07:30:00Z", early), null); // 02:30 EST
  });

  it("dates are local days: New Year's Eve at 23:30 in New York is already 1 January in UTC", () => {
    const eve = rulesOf([{ when: { dates: { to: "2026-12-31" } }, then: go("x") }]);
    assert.equal(at("2027-01-01T04:30:00Z", eve), 0);
    assert.equal(at("2027-01-01T04:30:00Z", eve, "UTC"), null);
    assert.equal(at("2027-01-01T05:00:00Z", eve), null); // midnight in New York
  });

  it("a window crossing midnight belongs to the date it opened on", () => {
    const lastNight = rulesOf([{ when: { time: { from: "20:00", to: "04:00" }, dates: { from: "2026-12-31", to: "2026-12-31" } }, then: go("x") }]);
    assert.equal(at("2027-01-01T01:00:00-05:00", lastNight), 0);
    assert.equal(at("2027-01-01T21:00:00-05:00", lastNight), null);
    assert.equal(at("2026-12-31T03:00:00-05:00", lastNight), null); // 30 December's night
  });

  it("localClock gives the local day, minute and ISO weekday", () => {
    assert.deepEqual(localClock(new Date("2026-03-08T07:00:00Z"), NY), { day: "2026-03-08", minute: 3 * 60, weekday: 6 });
    assert.deepEqual(localClock(new Date("2026-12-05T04:30:00Z"), "Asia/Kolkata"), { day: "2026-12-05", minute: 10 * 60, weekday: 5 });
  });
});

describe("campaign rules: preferred language from Accept-Language", () => {
  it("takes the visitor's first choice by q-value, then order", () => {
    assert.equal(preferredLanguage("en-US,en;q=0.9,fr;q=0.8"), "en-us");
    assert.equal(preferredLanguage("fr;q=0.5, de"), "de");
    assert.equal(preferredLanguage("fr;q=0, de;q=0.1"), "de"); // q=0 means "not acceptable"
    assert.equal(preferredLanguage("*;q=0.9, it;q=0.8"), "it"); // the wildcard names no language
    assert.equal(preferredLanguage("*"), null);
    assert.equal(preferredLanguage(""), null);
    assert.equal(preferredLanguage(undefined), null);
    assert.equal(preferredLanguage("q=x;;, ,"), null);
    assert.equal(preferredLanguage("ZH-Hant-TW"), "zh-hant-tw");
  });

  const rules = rulesOf([
    { when: { language: ["pt-BR"] }, then: go("pt-br") },
    { when: { language: ["pt", "es"] }, then: go("iberian") },
    { when: { language: ["zh-Hant"] }, then: go("zh-hant") },
  ]);
  const cases: [string | undefined, number | null][] = [
    ["pt-BR", 0],
    ["pt-br,pt;q=0.9", 0],
    ["pt-PT", 1], // the primary subtag matches "pt", not "pt-BR"
    ["pt", 1], // "pt" alone is not Brazilian
    ["es-419,es;q=0.9", 1],
    ["en;q=0.9, es-MX", 1], // es-MX is the first choice (implicit q=1)
    ["es;q=0.1, en", null], // English first: no rule
    ["zh-Hant-HK", 2],
    ["zh-Hans", null],
    ["ptx", null], // a different language that shares letters
    [undefined, null],
  ];
  for (const [header, ruleIndex] of cases) {
    it(`routes ${JSON.stringify(header)} to ${ruleIndex === null ? "the destination" : `rule ${ruleIndex}`}`, () => {
      assert.equal(evaluate(rules, scan({ acceptLanguage: header }), CODE).ruleIndex, ruleIndex);
    });
  }
});

describe("campaign rules: device names, region, scan count, query parameter and visitor", () => {
  const rules = rulesOf([
    { when: { visitor: "bot" }, then: go("bot") },
    { when: { query: { name: "table", equals: "12" } }, then: go("table-12") },
    { when: { query: { name: "staff" } }, then: go("staff") },
    { when: { region: [{ country: "US", region: "New York" }, { country: "CA", region: "Québec" }] }, then: go("ny-qc") },
    { when: { os: ["Android"], browser: ["Samsung Internet for Android"] }, then: go("samsung") },
    { when: { os: ["iOS"], device: ["tablet"] }, then: go("ipad") },
    { when: { scanCount: { min: 100, max: 199 } }, then: go("second-hundred") },
    { when: { device: ["unknown"], os: ["Other"] }, then: go("odd") },
  ]);
  const cases: [string, Partial<ScanContext>, number | null][] = [
    ["a bot, before every other rule", { isBot: true, query: new URLSearchParams("table=12") }, 0],
    ["a query parameter equal to a value", { query: new URLSearchParams("table=12") }, 1],
    ["any one of a repeated parameter's values", { query: new URLSearchParams("table=3&table=12") }, 1],
    ["another value of that parameter", { query: new URLSearchParams("table=13") }, null],
    ["a parameter present without a value", { query: new URLSearchParams("staff") }, 2],
    ["a parameter's name in another case", { query: new URLSearchParams("Staff=1") }, null],
    ["a region in its country", { country: "US", region: "New York" }, 3],
    ["a region's name in any case", { country: "CA", region: "QUÉBEC" }, 3],
    ["a region of that name in another country", { country: "GB", region: "New York" }, null],
    ["an OS and a browser together", { device: "mobile", os: "Android", browser: "Samsung Internet for Android" }, 4],
    ["the OS without the browser", { device: "mobile", os: "Android", browser: "Chrome" }, null],
    ["an OS on a tablet", { device: "tablet", os: "iOS" }, 5],
    ["the 100th person's scan (99 before)", { scanCount: 99 }, null],
    ["the 101st person's scan (100 before)", { scanCount: 100 }, 6],
    ["200 before", { scanCount: 199 }, 6],
    ["201 before", { scanCount: 200 }, null],
    ["unknown names", { device: "unknown", os: "Other", browser: "unknown" }, 7],
  ];
  for (const [what, overrides, ruleIndex] of cases) {
    it(`${what}: ${ruleIndex === null ? "the destination" : `rule ${ruleIndex}`}`, () => {
      assert.equal(evaluate(rules, scan({ country: "FR", region: "Normandy", ...overrides }), CODE).ruleIndex, ruleIndex);
    });
  }

  it("answers each action type and leaves the rules as they were", () => {
    const actions = rulesOf([
      { when: { query: { name: "p" } }, then: { type: "password" } },
      { when: { query: { name: "q" } }, then: { type: "password", url: "https://shop.example/vip" } },
      { when: { query: { name: "e" } }, then: { type: "ended" } },
      { when: { query: { name: "f" } }, then: { type: "fallback" } },
    ]);
    const before = JSON.stringify(actions);
    const target = { ...CODE, fallbackUrl: "https://shop.example/sorry" };
    const run = (query: string, code: CodeTarget = target) => evaluate(actions, scan({ query: new URLSearchParams(query) }), code);
    assert.deepEqual(run("p"), { ruleIndex: 0, action: { type: "password", url: "https://shop.example/home" } });
    assert.deepEqual(run("q"), { ruleIndex: 1, action: { type: "password", url: "https://shop.example/vip" } });
    assert.deepEqual(run("e"), { ruleIndex: 2, action: { type: "ended" } });
    assert.deepEqual(run("f"), { ruleIndex: 3, action: { type: "fallback", url: "https://shop.example/sorry" } });
    assert.deepEqual(run("f", CODE), { ruleIndex: 3, action: { type: "ended" } }); // no fallback URL: the ended page
    assert.deepEqual(run(""), { ruleIndex: null, action: { type: "redirect", url: "https://shop.example/home" } });
    assert.deepEqual(evaluate([], scan(), CODE), { ruleIndex: null, action: { type: "redirect", url: "https://shop.example/home" } });
    assert.equal(JSON.stringify(actions), before);
  });
});

describe("campaign rules: schedule and cap", () => {
  const settings = { startsAt: "2026-12-01T09:00:00+01:00", endsAt: "2026-12-31T23:00:00Z", humanScanCap: 500 };
  const cases: [string, string, number, string | null][] = [
    ["a second before the start", "2026-12-01T07:59:59Z", 0, "not-started"],
    ["at the start", "2026-12-01T08:00:00Z", 0, null],
    ["with 499 people's scans counted", "2026-12-10T12:00:00Z", 499, null],
    ["with 500 counted: the 501st is capped", "2026-12-10T12:00:00Z", 500, "capped"],
    ["far over the cap", "2026-12-10T12:00:00Z", 9999, "capped"],
    ["a millisecond before the end", "2026-12-31T22:59:59.999Z", 0, null],
    ["at the end", "2026-12-31T23:00:00Z", 0, "ended"],
    ["ended and capped: ended", "2027-01-05T00:00:00Z", 9999, "ended"],
    ["not started and capped: not started", "2026-11-05T00:00:00Z", 9999, "not-started"],
  ];
  for (const [what, now, humanScans, state] of cases) {
    it(`${what}: ${state ?? "open"}`, () => assert.equal(codeState(parse({ rules: [], ...settings }), new Date(now), humanScans), state));
  }

  it("re-arms when the cap is raised, and is always open without a schedule or cap", () => {
    assert.equal(codeState({ humanScanCap: 500 }, new Date(), 500), "capped");
    assert.equal(codeState({ humanScanCap: 1000 }, new Date(), 500), null);
    assert.equal(codeState({}, new Date(0), Number.MAX_SAFE_INTEGER), null);
  });

  it("a closed code answers its fallback URL or the ended page, never a 404", () => {
    assert.deepEqual(closedAnswer({ fallbackUrl: "https://shop.example/next-time" }), { type: "fallback", url: "https://shop.example/next-time" });
    assert.deepEqual(closedAnswer({}), { type: "ended" });
  });
});

describe("campaign rules: UTM templates", () => {
  const spring = { source: "qr", medium: "print", campaign: "spring sale" };
  const cases: [string, string, Omit<typeof spring, "campaign"> & { campaign?: string; term?: string; content?: string }, string][] = [
    ["a URL without a query", "https://shop.example/menu", spring, "https://shop.example/menu?utm_source=qr&utm_medium=print&utm_campaign=spring+sale"],
    ["a URL with its own parameters, kept first", "https://shop.example/menu?table=12&lang=fr", spring, "https://shop.example/menu?table=12&lang=fr&utm_source=qr&utm_medium=print&utm_campaign=spring+sale"],
    ["a URL that already has utm_source: kept, not duplicated", "https://shop.example/?utm_source=poster", spring, "https://shop.example/?utm_source=poster&utm_medium=print&utm_campaign=spring+sale"],
    ["utm_* in another letter case count as present", "https://shop.example/?UTM_Medium=flyer", spring, "https://shop.example/?UTM_Medium=flyer&utm_source=qr&utm_campaign=spring+sale"],
    ["every utm_* already there: the URL unchanged", "https://shop.example/?utm_campaign=x&utm_medium=y&utm_source=z", spring, "https://shop.example/?utm_campaign=x&utm_medium=y&utm_source=z"],
    ["a fragment stays last", "https://shop.example/menu?x=1#drinks", { source: "qr", medium: "print" }, "https://shop.example/menu?x=1&utm_source=qr&utm_medium=print#drinks"],
    ["the URL's own encoding kept (+, %20, a bare flag, a repeated key)", "https://shop.example/s?q=a+b&r=c%20d&flag&t=1&t=2", { source: "qr", medium: "print" }, "https://shop.example/s?q=a+b&r=c%20d&flag&t=1&t=2&utm_source=qr&utm_medium=print"],
    ["a trailing ? alone", "https://shop.example/?", { source: "qr", medium: "print" }, "https://shop.example/?utm_source=qr&utm_medium=print"],
    ["values with & and = encoded", "https://shop.example/", { source: "a&b=c", medium: "print", content: "é" }, "https://shop.example/?utm_source=a%26b%3Dc&utm_medium=print&utm_content=%C3%A9"],
    ["all five in their fixed order", "https://shop.example/", { content: "c", term: "t", campaign: "k", medium: "m", source: "s" }, "https://shop.example/?utm_source=s&utm_medium=m&utm_campaign=k&utm_term=t&utm_content=c"],
  ];
  for (const [what, url, template, expected] of cases) {
    it(what, () => assert.equal(applyUtm(url, template), expected));
  }

  it("templates are validated: names, required fields, unknown fields, duplicates", () => {
    assert.ok(utmTemplateSchema.safeParse({ name: "spring-qr", source: "qr", medium: "print" }).success);
    const issues = (input: unknown) => utmTemplateSchema.safeParse(input).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    assert.deepEqual(issues({ name: "Spring QR", source: "qr", medium: "print" }), ["name: a UTM template name is 1 to 40 of a-z, 0-9, _ and -, starting with a letter or digit"]);
    assert.equal(issues({ name: "x", medium: "print" })[0].startsWith("source:"), true);
    assert.deepEqual(issues({ name: "x", source: "qr", medium: "print", utm_id: "1" }), [": unknown UTM field(s) utm_id; known: name, source, medium, campaign, term, content"]);
    assert.deepEqual(issues({ name: "x", source: "qr", medium: "a".repeat(101) }), ["medium: Must be at most 100 characters"]);
    const dup = utmTemplatesSchema.safeParse([{ name: "a", source: "s", medium: "m" }, { name: "a", source: "t", medium: "n" }]);
    assert.equal(dup.error?.issues[0].message, "each UTM template name at most once");
  });
});
