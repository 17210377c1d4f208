// Campaign rules (issue 38): microseconds to evaluate 20 rules for one scan, over 100,000 random scans.
// Pure CPU, no emulator: `npx tsx scripts/bench/rules.ts` runs it alone. Goal: p95 <= 1 ms (1,000 us).
import { randomBytes } from "node:crypto";
import { evaluate, type ScanContext } from "../../functions/src/campaigns/evaluate";
import { ruleListSchema, type CodeRulesInput } from "../../functions/src/campaigns/rules";
import { fmt, percentile } from "./measure";

const CODE = { codeId: "code_bench", destinationUrl: "https://shop.example/home", fallbackUrl: "https://shop.example/ended" };
const url = (path: string) => ({ type: "redirect" as const, url: `https://shop.example/${path}` });

/** 20 rules, most of which a typical scan passes through: the matching work a long list costs. */
const RULES: CodeRulesInput["rules"] = [
  { when: { visitor: "bot", query: { name: "preview" } }, then: url("bot-preview") },
  { when: { query: { name: "table", equals: "vip" } }, then: { type: "password" } },
  { when: { device: ["tv"] }, then: url("tv") },
  { when: { country: ["FR", "BE", "CH", "LU", "MC"], language: ["fr"], time: { from: "18:00", to: "23:00" } }, then: url("fr-evening") },
  { when: { dates: { from: "2026-12-24", to: "2026-12-26" }, scanCount: { max: 999 } }, then: url("xmas") },
  { when: { device: ["desktop"], os: ["Windows", "macOS"], language: ["de"] }, then: url("de-desktop") },
  { when: { country: ["DE", "AT"], time: { from: "22:00", to: "06:00" }, weekdays: ["fri", "sat"] }, then: url("night") },
  { when: { region: [{ country: "US", region: "California" }, { country: "US", region: "New York" }, { country: "CA", region: "Ontario" }], timeZone: "America/Los_Angeles", time: { from: "11:00", to: "14:00" } }, then: url("lunch") },
  { when: { language: ["en-GB"], weekdays: ["sat", "sun"] }, then: url("uk-weekend") },
  { when: { browser: ["Samsung Internet for Android"], os: ["Android"] }, then: url("samsung") },
  { when: { country: ["JP"], language: ["ja"], dates: { from: "2026-04-01", to: "2026-04-30" } }, then: url("sakura") },
  { when: { scanCount: { min: 1_000_000 } }, then: { type: "ended" } },
  { when: { device: ["tablet"], dates: { to: "2026-02-01" } }, then: url("tablet-early") },
  { when: { query: { name: "utm_source", equals: "newsletter" } }, then: url("newsletter") },
  { when: { country: ["BR", "PT"], language: ["pt"] }, then: url("pt") },
  { when: { country: ["ES", "MX", "AR", "CO"], language: ["es"], weekdays: ["mon", "tue", "wed", "thu"] }, then: url("es-weekday") },
  { when: { os: ["iOS"], browser: ["Safari"], time: { from: "06:00", to: "09:00" } }, then: url("ios-morning") },
  { when: { country: ["IN"], region: [{ country: "IN", region: "Maharashtra" }], language: ["hi", "mr"] }, then: url("mumbai") },
  { when: { visitor: "human", scanCount: { min: 10, max: 20 } }, then: { type: "fallback" } },
  {
    when: { visitor: "human" },
    then: { type: "split", variants: [{ url: "https://shop.example/a", weight: 40 }, { url: "https://shop.example/b", weight: 30 }, { url: "https://shop.example/c", weight: 20 }, { url: "https://shop.example/d", weight: 10 }] },
  },
];

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];
const DEVICES = ["mobile", "mobile", "mobile", "tablet", "desktop", "tv", "unknown"];
const OSES = ["iOS", "Android", "Windows", "macOS", "Linux", "Other"];
const BROWSERS = ["Safari", "Chrome", "Firefox", "Samsung Internet for Android", "Microsoft Edge", "Other"];
const PLACES = [["US", "California"], ["US", "Texas"], ["FR", "Île-de-France"], ["DE", "Bavaria"], ["GB", "England"], ["JP", "Tokyo"], ["BR", "São Paulo"], ["IN", "Karnataka"], ["CA", "Quebec"], ["unknown", "unknown"]];
const LANGUAGES = ["en-US,en;q=0.9", "fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", "de-DE,de;q=0.9,en;q=0.8", "en-GB,en;q=0.9", "ja-JP,ja;q=0.9,en;q=0.8", "pt-BR,pt;q=0.9", "es-MX,es;q=0.9,en;q=0.5", "zh-CN,zh;q=0.9", "*", ""];
const ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "America/Los_Angeles"];
const QUERIES = ["", "table=12", "utm_source=newsletter", "table=vip", "preview=1"];
const YEAR_START = Date.parse("2026-01-01T00:00:00Z");

function randomScan(): ScanContext {
  const [country, region] = pick(PLACES);
  return {
    device: pick(DEVICES),
    os: pick(OSES),
    browser: pick(BROWSERS),
    country,
    region,
    acceptLanguage: pick(LANGUAGES),
    now: new Date(YEAR_START + Math.floor(Math.random() * 365 * 86_400_000)),
    timeZone: pick(ZONES),
    scanCount: Math.floor(Math.random() * 5000),
    query: new URLSearchParams(pick(QUERIES)),
    isBot: Math.random() < 0.1,
    scannerDayKey: randomBytes(12).toString("base64url"),
  };
}

export async function benchRules(scans = 100_000): Promise<{ p50: number; p95: number; p99: number }> {
  console.log(`\n[rules] campaign rules: evaluate ${RULES.length} rules for one scan, ${scans.toLocaleString("en-US")} random scans (goal p95 <= 1,000 us)`);
  const rules = ruleListSchema.parse(RULES);
  const contexts = Array.from({ length: scans }, randomScan);
  // Warm-up: the JIT, and one Intl formatter per zone (built once per instance in production too).
  for (const scan of contexts.slice(0, 5_000)) evaluate(rules, scan, CODE);
  const times = new Float64Array(scans);
  const matched = new Map<string, number>();
  const begin = performance.now();
  for (let i = 0; i < scans; i++) {
    const t = performance.now();
    const result = evaluate(rules, contexts[i], CODE);
    times[i] = (performance.now() - t) * 1000;
    const key = result.ruleIndex === null ? "none" : String(result.ruleIndex);
    matched.set(key, (matched.get(key) ?? 0) + 1);
  }
  const totalMs = performance.now() - begin;
  const sorted = Array.from(times).sort((a, b) => a - b);
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(sorted, p));
  console.log(`  p50 ${fmt(p50, 1)} us   p95 ${fmt(p95, 1)} us   p99 ${fmt(p99, 1)} us   max ${fmt(sorted[sorted.length - 1], 0)} us   (${fmt(scans / (totalMs / 1000), 0)} evaluations/s on one core)`);
  const share = [...matched].sort(([a], [b]) => (a === "none" ? 99 : Number(a)) - (b === "none" ? 99 : Number(b)));
  console.log(`  matched rule: ${share.map(([k, n]) => `${k} ${fmt((n / scans) * 100, 1)}%`).join(", ")}`);
  return { p50, p95, p99 };
}

if (require.main === module) {
  benchRules().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
