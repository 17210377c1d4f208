// "Which rule would this scan match, and where would it go?" (issue 38, item 5; the console's rules
// editor): draft campaign settings, not yet saved, tried on a sample scan described by hand. The settings
// are parsed exactly as setting them parses them (service.ts parseCampaignRules), the code's schedule and
// cap by codeState, the rules by evaluate: the same functions the redirect uses, no second evaluator.
// Nothing is recorded and nothing is written; it reads the code, the workspace's time zone and, when the
// draft names one, its UTM templates.
import { z } from "zod";
import { AppError } from "../core/errors";
import { shownInput } from "../core/validation";
import { readUtmTemplates } from "../store/utmTemplates";
import { readWorkspaceTimeZone } from "../store/workspaces";
import { findCode, readLink, type CodeLookup } from "../store/codes";
import { UNKNOWN } from "../scans/classify";
import { closedAnswer, codeState, evaluate, localClock, type CodeState, type Destination } from "./evaluate";
import { BROWSER_VALUES, DEVICE_VALUES, OS_VALUES, SCAN_CAP_MAX, type CodeRulesInput } from "./rules";
import { parseCampaignRules } from "./service";
import { applyUtm } from "./utm";

/** The key every bot shares for A/B splits (campaigns/answer.ts BOT_DAY_KEY; not imported: that module loads with the redirect). */
const BOT_DAY_KEY = "bot";

const named = (list: [string, ...string[]], what: string) => z.enum(list, { error: (issue) => `unknown ${what} ${shownInput(issue.input)}; one of: ${list.join(", ")}` });

/** A scan described by hand: what the redirect would learn of a real one. */
export const PreviewScanSchema = z.strictObject({
  device: named(DEVICE_VALUES, "device type").default("mobile"),
  os: named(OS_VALUES, "OS").default(UNKNOWN),
  browser: named(BROWSER_VALUES, "browser").default(UNKNOWN),
  /** ISO 3166-1 alpha-2, or absent: unknown. */
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "a country is an ISO 3166-1 alpha-2 code such as US or DE")
    .transform((c) => c.toUpperCase())
    .optional(),
  region: z.string().trim().max(80, "a region has at most 80 characters").optional(),
  /** As a browser sends it: "fr-CA,fr;q=0.9,en;q=0.5". */
  acceptLanguage: z.string().max(512, "Accept-Language has at most 512 characters").optional(),
  /** The scan's local date and time in the workspace's time zone. */
  localTime: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d$/, "localTime is a local date and time such as 2026-12-05T18:30"),
  /** The scanned link's query, with or without its "?": "table=12". */
  query: z.string().max(2048, "the query has at most 2,048 characters").optional(),
  visitor: z.enum(["human", "bot"], { error: 'visitor is "human" or "bot"' }).default("human"),
  /** Which sample visitor (an A/B split sends different visitors to different variants). */
  sampleVisitor: z.int().min(1).max(1_000_000).default(1),
  /** People's scans counted so far: whether a cap has closed the code, and what scanCount conditions see. */
  humanScans: z.int().min(0).max(SCAN_CAP_MAX).default(0),
});
export type PreviewScan = z.output<typeof PreviewScanSchema>;

export const CampaignPreviewSchema = z
  .object({
    at: z.string().describe("The sample's instant, ISO 8601"),
    timeZone: z.string().describe("The workspace's time zone the local time was read in"),
    state: z.enum(["not-started", "ended", "capped"]).nullable().describe("Closed by the schedule or the cap (no rule is tried), or null: open"),
    ruleIndex: z.int().nullable().describe("The first rule that matches, or null: none (the code's destination) or closed"),
    ruleName: z.string().nullable(),
    result: z.enum(["destination", "redirect", "split", "password", "ended", "fallback"]),
    variant: z.int().nullable().describe("For a split: the variant this sample visitor gets (0-based)"),
    url: z.string().nullable().describe("Where the scan goes (with the UTM parameters), or after the right password; null: the ended page"),
  })
  .strict();
export type CampaignPreview = z.output<typeof CampaignPreviewSchema>;

/** The instant at which the wall clock of `timeZone` reads `local` (YYYY-MM-DDTHH:MM); in a DST gap, the instant after it. */
export function instantOf(local: string, timeZone: string): Date {
  const wanted = Date.parse(`${local}:00Z`);
  const wallOf = (t: number) => {
    const c = localClock(new Date(t), timeZone);
    return Date.parse(`${c.day}T00:00:00Z`) + c.minute * 60_000;
  };
  let t = wanted;
  for (let i = 0; i < 3; i++) {
    const off = wallOf(t) - wanted;
    if (off === 0) break;
    t -= off;
  }
  return new Date(t);
}

const queryOf = (q: string | undefined) => new URLSearchParams((q ?? "").replace(/^\?/, ""));

/**
 * Where `scan` would go if `draft` were the code's settings. Refuses the draft as setting it would
 * (VALIDATION_FAILED naming the field), a static code, another workspace's code (NOT_FOUND) and a UTM
 * template the workspace does not have. Reads; writes and records nothing.
 */
export async function previewCampaign(merchantId: string, lookup: CodeLookup, draft: CodeRulesInput, scan: PreviewScan): Promise<CampaignPreview> {
  const settings = parseCampaignRules(draft);
  const [code, timeZone, templates] = await Promise.all([findCode(merchantId, lookup), readWorkspaceTimeZone(merchantId), settings.utmTemplate === undefined ? undefined : readUtmTemplates(merchantId)]);
  if (!code.dynamic) throw new AppError("VALIDATION_FAILED", "Campaign rules need a dynamic code; this code is static");
  const template = settings.utmTemplate === undefined ? undefined : templates?.find((t) => t.name === settings.utmTemplate);
  if (settings.utmTemplate !== undefined && !template) {
    throw new AppError("VALIDATION_FAILED", `Invalid campaign rules: utmTemplate: this workspace has no UTM template named ${JSON.stringify(settings.utmTemplate)}`, {
      details: { issues: [{ path: "utmTemplate", message: "unknown UTM template", code: "not_found" }] },
    });
  }
  const withUtm = (url: string) => (template ? applyUtm(url, template) : url);
  const at = instantOf(scan.localTime, timeZone);
  const target = { codeId: code.codeId, destinationUrl: code.destinationUrl, fallbackUrl: settings.fallbackUrl };
  const base = { at: at.toISOString(), timeZone };
  const shown = (action: Destination) => (action.type === "ended" ? null : withUtm(action.url));

  const state: CodeState | null = codeState(settings, at, scan.humanScans);
  if (state) {
    const action = closedAnswer(target);
    return { ...base, state, ruleIndex: null, ruleName: null, result: action.type, variant: null, url: shown(action) };
  }
  const isBot = scan.visitor === "bot";
  const result = evaluate(
    settings.rules,
    {
      device: scan.device,
      os: scan.os,
      browser: scan.browser,
      country: scan.country ?? UNKNOWN,
      region: scan.region || UNKNOWN,
      acceptLanguage: scan.acceptLanguage,
      now: at,
      timeZone,
      scanCount: scan.humanScans,
      query: queryOf(scan.query),
      isBot,
      scannerDayKey: isBot ? BOT_DAY_KEY : `sample-visitor-${scan.sampleVisitor}`,
    },
    target,
  );
  const { ruleIndex, action, variant } = result;
  const kind = ruleIndex === null ? "destination" : variant !== undefined ? "split" : action.type;
  return { ...base, state: null, ruleIndex, ruleName: ruleIndex === null ? null : (settings.rules[ruleIndex].name ?? null), result: kind, variant: variant ?? null, url: shown(action) };
}

/** What an editor shows of a code's campaign settings: as written, whether a password is kept, and the names conditions choose from. */
export interface CodeCampaignEditor {
  codeId: string;
  uniqueQRCodeID: string;
  dynamic: boolean;
  destinationUrl: string;
  campaignRules: CodeRulesInput | null;
  /** The link keeps a password hash (never the password): settings saved without `password` keep it. */
  hasPassword: boolean;
  timeZone: string;
  names: { device: string[]; os: string[]; browser: string[] };
}

/** A code's campaign settings as written (times HH:MM, no password), for an editor. */
export async function readCodeCampaign(merchantId: string, lookup: CodeLookup): Promise<CodeCampaignEditor> {
  const [code, timeZone] = await Promise.all([findCode(merchantId, lookup), readWorkspaceTimeZone(merchantId)]);
  const link = code.dynamic ? await readLink(code.uniqueQRCodeID) : undefined;
  return {
    codeId: code.codeId,
    uniqueQRCodeID: code.uniqueQRCodeID,
    dynamic: code.dynamic,
    destinationUrl: code.destinationUrl,
    campaignRules: (code.campaignRules as CodeRulesInput | undefined) ?? null,
    hasPassword: link?.campaignRules?.passwordHash !== undefined,
    timeZone,
    names: { device: DEVICE_VALUES, os: OS_VALUES, browser: BROWSER_VALUES },
  };
}
