// Campaign rules of a dynamic code (issue 38, docs/campaign-rules.md): what a merchant may write, as zod
// schemas. An ordered list of at most 20 rules, each "when all these conditions hold, then this action",
// plus a schedule (startsAt, endsAt), a cap on people's scans and the fallback URL that an ended, capped
// or not-yet-started code sends its visitors to. Parsed values are normalised for the evaluator
// (evaluate.ts): country codes upper case, regions and language tags lower case, times in minutes.
import { z } from "zod";
import { httpUrl, shownInput, text } from "../core/validation";
import { UNKNOWN } from "../scans/classify";
import { BROWSER_NAMES, DEVICE_TYPES, OS_NAMES, OTHER } from "../scans/device";
import { timeZoneSchema } from "../scans/localTime";
import { utmTemplateName } from "./utm";
import { passwordSchema } from "./password";

export const RULES_MAX = 20;
export const VARIANTS_MAX = 4;
/** A scan cap of at most a billion people's scans (a counter, not a quota of anything stored). */
export const SCAN_CAP_MAX = 1_000_000_000;
/** Weekday names, Monday first (the order of scans/localTime.ts's ISO weekday index). */
export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const CONDITION_NAMES = ["device", "os", "browser", "country", "region", "language", "time", "weekdays", "dates", "scanCount", "query", "visitor"] as const;
export const ACTION_TYPES = ["redirect", "split", "password", "ended", "fallback"] as const;

// ---- the closed sets a scan's device is named from (scans/device.ts), with "Other" and "unknown" ----

const sorted = (names: Iterable<string>) => [...new Set(names)].sort() as [string, ...string[]];
export const DEVICE_VALUES = sorted([...DEVICE_TYPES, UNKNOWN]);
export const OS_VALUES = sorted([...OS_NAMES, OTHER, UNKNOWN]);
export const BROWSER_VALUES = sorted([...BROWSER_NAMES, OTHER, UNKNOWN]);

/** A non-empty list of distinct names from a closed set, with a message that names the set's members. */
function namesFrom(values: [string, ...string[]], what: string) {
  const member = z.enum(values, { error: (issue) => `unknown ${what} ${shownInput(issue.input)}; one of: ${values.join(", ")}` });
  return distinct(member, values.length, what);
}

function distinct<T extends z.ZodType<string>>(member: T, max: number, what: string) {
  return z
    .array(member)
    .min(1, `list at least one ${what}`)
    .max(max, `at most ${max} ${what} values`)
    .refine((list) => new Set(list).size === list.length, `each ${what} at most once`);
}

// ---- conditions ----

const countryCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, "a country is an ISO 3166-1 alpha-2 code such as US or DE")
  .transform((c) => c.toUpperCase());

/** A first-level subdivision as the geolocation database names it (e.g. US "California", DE "Bavaria"). */
const regionSchema = z.strictObject({
  country: countryCode,
  region: text(80).transform((r) => r.toLowerCase()),
});

/** A BCP 47 language range: a primary subtag ("fr", matching fr-CA too) or a full tag ("pt-BR"). */
const languageTag = z
  .string()
  .trim()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "a language is a tag such as fr, pt-BR or zh-Hant")
  .transform((tag) => tag.toLowerCase());

const clockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a time of day is HH:MM, 00:00 to 23:59")
  .transform((t) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3)));

const localDate = z.iso.date({ error: "a date is YYYY-MM-DD" });

/** Local time of day, from (inclusive) to (exclusive); from after to crosses midnight (22:00 to 02:00). */
const timeWindow = z
  .strictObject({ from: clockTime, to: clockTime })
  .refine((w) => w.from !== w.to, "a time window needs from and to to differ (leave time out for the whole day)");

const dateRange = z
  .strictObject({ from: localDate.optional(), to: localDate.optional() })
  .refine((r) => r.from !== undefined || r.to !== undefined, "a date range needs from, to or both")
  .refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, "a date range's from must not be after its to");

const scanCount = z
  .strictObject({ min: z.int().min(0).max(SCAN_CAP_MAX).optional(), max: z.int().min(0).max(SCAN_CAP_MAX).optional() })
  .refine((c) => c.min !== undefined || c.max !== undefined, "a scan count needs min, max or both")
  .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, "a scan count's min must not exceed its max");

/** A query parameter of the scanned link: present (no equals), or one of its values equal to `equals`. */
const queryParam = z.strictObject({
  name: z.string().min(1, "a query parameter needs a name").max(64, "a query parameter name has at most 64 characters"),
  equals: z.string().max(256, "a query parameter value has at most 256 characters").optional(),
});

const unknownKeys = (what: string, known: readonly string[]) => (issue: { code: string; keys?: string[] }) =>
  issue.code === "unrecognized_keys" ? `unknown ${what} ${issue.keys!.map((k) => JSON.stringify(k)).join(", ")}; known: ${known.join(", ")}` : undefined;

/** Every condition present must hold; none at all matches every scan. */
export const conditionsSchema = z.strictObject(
  {
    device: namesFrom(DEVICE_VALUES, "device type").optional(),
    os: namesFrom(OS_VALUES, "OS").optional(),
    browser: namesFrom(BROWSER_VALUES, "browser").optional(),
    country: distinct(countryCode, 250, "country").optional(),
    region: z.array(regionSchema).min(1, "list at least one region").max(50, "at most 50 regions").optional(),
    language: distinct(languageTag, 20, "language").optional(),
    time: timeWindow.optional(),
    weekdays: namesFrom([...WEEKDAYS], "weekday").optional(),
    dates: dateRange.optional(),
    /** Zone of time, weekdays and dates; the workspace's zone when absent. */
    timeZone: timeZoneSchema.optional(),
    scanCount: scanCount.optional(),
    query: queryParam.optional(),
    visitor: z.enum(["human", "bot"], { error: 'visitor is "human" or "bot"' }).optional(),
  },
  { error: unknownKeys("condition", [...CONDITION_NAMES, "timeZone"]) },
);

// ---- actions ----

const variantSchema = z.strictObject({
  url: httpUrl(),
  weight: z.int("a variant's weight is a whole number").min(1, "a variant's weight is at least 1").max(99, "a variant's weight is at most 99"),
});

const actionSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("redirect"), url: httpUrl() }),
    z.strictObject({
      type: z.literal("split"),
      variants: z
        .array(variantSchema)
        .min(2, "an A/B split needs at least 2 variants")
        .max(VARIANTS_MAX, `an A/B split has at most ${VARIANTS_MAX} variants`)
        .refine((vs) => vs.reduce((sum, v) => sum + v.weight, 0) === 100, { error: (issue) => `an A/B split's weights must sum to 100; these sum to ${(issue.input as { weight: number }[]).reduce((s, v) => s + v.weight, 0)}` }),
    }),
    /** The password page; the right password opens `url`, or the code's destination when absent. */
    z.strictObject({ type: z.literal("password"), url: httpUrl().optional() }),
    /** The branded "this campaign has ended" page. */
    z.strictObject({ type: z.literal("ended") }),
    /** The code's fallback URL (fallbackUrl beside the rules). */
    z.strictObject({ type: z.literal("fallback") }),
  ],
  { error: (issue) => (issue.code === "invalid_union" ? `unknown action type; one of: ${ACTION_TYPES.join(", ")}` : undefined) },
);

export const ruleSchema = z.strictObject(
  {
    name: text(80).optional(),
    when: conditionsSchema,
    then: actionSchema,
  },
  { error: unknownKeys("rule field", ["name", "when", "then"]) },
);

export const ruleListSchema = z.array(ruleSchema).max(RULES_MAX, `at most ${RULES_MAX} rules`);

/** What the ended page says under the workspace's name (redirect/pages.ts endedPage); each part optional. */
export const endedPageSchema = z.strictObject(
  {
    heading: text(80).optional(),
    message: text(400).optional(),
  },
  { error: unknownKeys("endedPage field", ["heading", "message"]) },
);

/** A code's rules with its schedule, scan cap and fallback: what travels with the link record. */
export const codeRulesSchema = z
  .strictObject(
    {
      rules: ruleListSchema,
      startsAt: z.iso.datetime({ offset: true, error: "startsAt is an ISO 8601 date and time such as 2026-12-01T09:00:00Z" }).optional(),
      endsAt: z.iso.datetime({ offset: true, error: "endsAt is an ISO 8601 date and time such as 2026-12-31T23:00:00Z" }).optional(),
      /** Stop after this many people's scans (bots, previews and repeats never count); raise it to re-arm. */
      humanScanCap: z.int().min(1, "humanScanCap is at least 1").max(SCAN_CAP_MAX).optional(),
      /** Where ended, capped and not-started scans and "fallback" actions go; the ended page when absent. */
      fallbackUrl: httpUrl().optional(),
      /** A workspace UTM template (utm.ts) appended to every URL this code sends visitors to. */
      utmTemplate: utmTemplateName.optional(),
      /**
       * The password a "password" action asks for (write-only: stored as a salted scrypt hash, never read
       * back). Absent when the code has one already: the one it has is kept.
       */
      password: passwordSchema.optional(),
      /** The merchant's heading and message on the ended page (shown under the workspace's name). */
      endedPage: endedPageSchema.optional(),
      /** Append a signed click id to this code's redirects (docs/attribution.md); absent: the code's own or the workspace's setting. */
      trackConversions: z.boolean().optional(),
    },
    { error: unknownKeys("field", ["rules", "startsAt", "endsAt", "humanScanCap", "fallbackUrl", "utmTemplate", "password", "endedPage", "trackConversions"]) },
  )
  .refine((c) => c.startsAt === undefined || c.endsAt === undefined || Date.parse(c.startsAt) < Date.parse(c.endsAt), { error: "startsAt must be before endsAt", path: ["endsAt"] })
  .refine((c) => c.fallbackUrl !== undefined || !c.rules.some((r) => r.then.type === "fallback"), { error: 'a "fallback" action needs fallbackUrl', path: ["fallbackUrl"] });

export type Conditions = z.output<typeof conditionsSchema>;
export type Action = z.output<typeof actionSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type CodeRules = z.output<typeof codeRulesSchema>;
/** What a client writes (times as "HH:MM", names in any case). */
export type CodeRulesInput = z.input<typeof codeRulesSchema>;
