// Which rule a scan matches and where it goes (docs/campaign-rules.md). Pure: no Firestore, no HTTP, no
// clock of its own. The caller passes what the redirect already knows of a scan (device, place, the
// Accept-Language header, the workspace's zone, the code's people's scans so far, the link's query, the
// bot verdict, and a key for this visitor that changes every local day).
import { sha256 } from "../core/hash";
import { WEEKDAYS, type CodeRules, type Conditions, type Rule } from "./rules";

export interface ScanContext {
  /** scans/device.ts names: device type, OS and browser ("Other" or "unknown" when not named). */
  device: string;
  os: string;
  browser: string;
  /** ISO 3166-1 alpha-2 code, or "unknown". */
  country: string;
  /** First-level subdivision as the geolocation database names it, or "unknown". */
  region: string;
  /** The request's Accept-Language header, as sent. */
  acceptLanguage: string | undefined;
  now: Date;
  /** The workspace's IANA time zone. */
  timeZone: string;
  /** People's scans of this code counted before this one. */
  scanCount: number;
  /** The scanned link's query (/qr/<id>?table=12). */
  query: URLSearchParams;
  isBot: boolean;
  /**
   * Opaque, per visitor and local day (the redirect's daily-secret HMAC of the visitor): the same all day
   * for one visitor, unrelated across days. Only A/B splits read it.
   */
  scannerDayKey: string;
}

/** The code a scan is of: its id (A/B choices differ per code) and where it goes when no rule matches. */
export interface CodeTarget {
  codeId: string;
  destinationUrl: string;
  fallbackUrl?: string;
}

export type Destination =
  | { type: "redirect"; url: string }
  /** Show the password page; the right password opens `url`. */
  | { type: "password"; url: string }
  /** The branded "this has ended" page. */
  | { type: "ended" }
  | { type: "fallback"; url: string };

export interface Evaluation {
  /** Index of the first rule that matched, or null: the code's destination. */
  ruleIndex: number | null;
  action: Destination;
  /** Index of the A/B variant chosen, when the rule's action is a split. */
  variant?: number;
}

// ---- local clock, one formatter per zone (building an Intl.DateTimeFormat costs far more than using one) ----

const clocks = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_INDEX: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

interface LocalClock {
  /** YYYY-MM-DD */
  day: string;
  /** Minutes since local midnight, 0 to 1439. */
  minute: number;
  /** ISO weekday, 0 = Monday. */
  weekday: number;
}

export function localClock(at: Date, timeZone: string): LocalClock {
  let f = clocks.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", weekday: "short" });
    clocks.set(timeZone, f);
  }
  let year = "", month = "", day = "", hour = 0, minute = 0, weekday = 0;
  for (const p of f.formatToParts(at)) {
    if (p.type === "year") year = p.value;
    else if (p.type === "month") month = p.value;
    else if (p.type === "day") day = p.value;
    else if (p.type === "hour") hour = Number(p.value) % 24;
    else if (p.type === "minute") minute = Number(p.value);
    else if (p.type === "weekday") weekday = WEEKDAY_INDEX[p.value];
  }
  return { day: `${year}-${month}-${day}`, minute: hour * 60 + minute, weekday };
}

function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

// ---- the visitor's first-choice language, parsed by negotiator (MIT, jshttp; express's own) ----

// negotiator ships no types; this is the one method used.
const Negotiator = require("negotiator") as new (request: { headers: Record<string, string | undefined> }) => { languages(): string[] };
const LANGUAGE_TAG = /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/;
/** Longer headers are cut here: no browser sends more, and parsing stays bounded. */
const ACCEPT_LANGUAGE_MAX = 512;

/** The visitor's most preferred language tag, lower case (q-values, then order), or null ("*" or nothing). */
export function preferredLanguage(acceptLanguage: string | undefined): string | null {
  if (!acceptLanguage) return null;
  const ranked = new Negotiator({ headers: { "accept-language": acceptLanguage.slice(0, ACCEPT_LANGUAGE_MAX) } }).languages();
  for (const tag of ranked) {
    const t = tag.toLowerCase();
    if (LANGUAGE_TAG.test(t)) return t;
  }
  return null;
}

/** "fr" matches fr, fr-CA, fr-BE; "pt-br" matches pt-BR only (and its own subtags). */
const languageMatches = (tag: string, range: string) => tag === range || (tag.startsWith(range) && tag.charCodeAt(range.length) === 45 /* - */);

// ---- matching ----

/** What evaluation derives from a scan at most once, whatever the number of rules. */
class Facts {
  private clocks?: Map<string, LocalClock>;
  private language?: string | null;
  private regionKey?: string;
  constructor(readonly scan: ScanContext) {}

  clock(timeZone: string | undefined): LocalClock {
    const zone = timeZone ?? this.scan.timeZone;
    this.clocks ??= new Map();
    let c = this.clocks.get(zone);
    if (!c) this.clocks.set(zone, (c = localClock(this.scan.now, zone)));
    return c;
  }

  preferredLanguage(): string | null {
    if (this.language === undefined) this.language = preferredLanguage(this.scan.acceptLanguage);
    return this.language;
  }

  region(): string {
    return (this.regionKey ??= this.scan.region.toLowerCase());
  }
}

const WEEKDAY_NAMES: readonly string[] = WEEKDAYS;

function calendarMatches(when: Conditions, facts: Facts): boolean {
  const clock = facts.clock(when.timeZone);
  // The day a window belongs to is the day it opened: "Fri 22:00 to 02:00" holds on Saturday at 01:00.
  let day = clock.day;
  let weekday = clock.weekday;
  if (when.time) {
    const { from, to } = when.time;
    const m = clock.minute;
    if (from < to) {
      if (m < from || m >= to) return false;
    } else if (m < to) {
      day = dayBefore(day);
      weekday = (weekday + 6) % 7;
    } else if (m < from) {
      return false;
    }
  }
  if (when.weekdays && !when.weekdays.includes(WEEKDAY_NAMES[weekday])) return false;
  if (when.dates && ((when.dates.from !== undefined && day < when.dates.from) || (when.dates.to !== undefined && day > when.dates.to))) return false;
  return true;
}

function matches(when: Conditions, facts: Facts): boolean {
  const scan = facts.scan;
  if (when.visitor && (when.visitor === "bot") !== scan.isBot) return false;
  if (when.device && !when.device.includes(scan.device)) return false;
  if (when.os && !when.os.includes(scan.os)) return false;
  if (when.browser && !when.browser.includes(scan.browser)) return false;
  if (when.country && !when.country.includes(scan.country)) return false;
  if (when.region && !when.region.some((r) => r.country === scan.country && r.region === facts.region())) return false;
  if (when.scanCount && ((when.scanCount.min !== undefined && scan.scanCount < when.scanCount.min) || (when.scanCount.max !== undefined && scan.scanCount > when.scanCount.max))) return false;
  if (when.query) {
    const { name, equals } = when.query;
    if (equals === undefined ? !scan.query.has(name) : !scan.query.getAll(name).includes(equals)) return false;
  }
  if (when.language) {
    const tag = facts.preferredLanguage();
    if (tag === null || !when.language.some((range) => languageMatches(tag, range))) return false;
  }
  if ((when.time || when.weekdays || when.dates) && !calendarMatches(when, facts)) return false;
  return true;
}

// ---- A/B splits ----

/**
 * A point in [0, 100) for this visitor, code and rule: the first 48 bits of SHA-256 over the three. The
 * same all day for one visitor (their day key does not change), independent across rules and codes, and
 * reshuffled each day (a new day key).
 */
export function splitPoint(scannerDayKey: string, codeId: string, ruleIndex: number): number {
  const digest = sha256(`${scannerDayKey}\n${codeId}\n${ruleIndex}`);
  return (digest.readUIntBE(0, 6) / 2 ** 48) * 100;
}

/** The variant whose share of [0, 100) holds `point`, shares laid out in the variants' order. */
export function variantAt(weights: readonly number[], point: number): number {
  let edge = 0;
  for (let i = 0; i < weights.length; i++) {
    edge += weights[i];
    if (point < edge) return i;
  }
  return weights.length - 1;
}

// ---- evaluation ----

/** First matching rule wins; no match sends the scan to the code's destination. */
export function evaluate(rules: readonly Rule[], scan: ScanContext, code: CodeTarget): Evaluation {
  const facts = new Facts(scan);
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!matches(rule.when, facts)) continue;
    const then = rule.then;
    switch (then.type) {
      case "redirect":
        return { ruleIndex: i, action: { type: "redirect", url: then.url } };
      case "split": {
        const variant = variantAt(
          then.variants.map((v) => v.weight),
          splitPoint(scan.scannerDayKey, code.codeId, i),
        );
        return { ruleIndex: i, action: { type: "redirect", url: then.variants[variant].url }, variant };
      }
      case "password":
        return { ruleIndex: i, action: { type: "password", url: then.url ?? code.destinationUrl } };
      case "ended":
        return { ruleIndex: i, action: { type: "ended" } };
      case "fallback":
        return { ruleIndex: i, action: closedAnswer(code) };
    }
  }
  return { ruleIndex: null, action: { type: "redirect", url: code.destinationUrl } };
}

// ---- schedule and cap ----

export type CodeState = "not-started" | "ended" | "capped";

/**
 * Whether the code is closed to this scan: before startsAt, from endsAt on, or with `humanScans` (people's
 * scans counted so far) at or over the cap. Null: open, evaluate the rules.
 */
export function codeState(settings: Pick<CodeRules, "startsAt" | "endsAt" | "humanScanCap">, now: Date, humanScans: number): CodeState | null {
  const t = now.getTime();
  if (settings.startsAt !== undefined && t < Date.parse(settings.startsAt)) return "not-started";
  if (settings.endsAt !== undefined && t >= Date.parse(settings.endsAt)) return "ended";
  if (settings.humanScanCap !== undefined && humanScans >= settings.humanScanCap) return "capped";
  return null;
}

/** What a closed code (and a "fallback" action) answers: the fallback URL, else the branded ended page. Never a 404. */
export function closedAnswer(code: Pick<CodeTarget, "fallbackUrl">): Destination {
  return code.fallbackUrl ? { type: "fallback", url: code.fallbackUrl } : { type: "ended" };
}
