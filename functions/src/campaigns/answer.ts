// Where the redirect sends a scan of a code with campaign settings (docs/campaign-rules.md): the code's
// state first (not started, ended: the fallback URL or the ended page, never a 404), then the rules, then
// the UTM template's parameters on the URL. Loaded by redirect/app.ts on the first scan of such a code:
// codes without rules never pay for it.
import type { IncomingHttpHeaders } from "node:http";
import { agentOf } from "../scans/device";
import { botReason, UNKNOWN, type ScanPlace } from "../scans/classify";
import { localMoment } from "../scans/localTime";
import { visitorHash, visitorKey, type ScanAllowance, type ScanGate, type ScanOutcome } from "../scans/record";
import { logWarn } from "../core/log";
import type { Link } from "../store/codes";
import { guardExists, passGuardExpiry, passGuardId, scanNotWritten, spendPass, type ScanRule } from "../store/scans";
import { spentData, type CapCounter } from "../store/campaignCaps";
import { instanceCaps, scanCountGate, thresholdCounters } from "./caps";
import { closedAnswer, codeState, evaluate, type CodeState, type Destination, type Evaluation } from "./evaluate";
import { applyUtm } from "./utm";
import type { LinkCampaignRules } from "./service";
import type { PasswordHash } from "./password";

export interface CampaignScan {
  method: string;
  headers: IncomingHttpHeaders;
  /** The request's path and query (/qr/<id>?table=12). */
  url: string;
  address: string;
  place: ScanPlace | undefined;
  at: Date;
  timeZone: string;
}

export type CampaignAnswer =
  | { type: "redirect"; url: string; ruleIndex: number | null; variant?: number; state: null }
  /** The branded ended page (200): an `ended` action, or a closed code without fallbackUrl. */
  | { type: "ended"; ruleIndex: number | null; state: CodeState | null }
  /** A capped code's scan that got no allowance in time (or whose write is unknown): a page that tries again (200). */
  | { type: "busy" }
  /** A `password` action: the password page (200); the right password opens the action's URL (passwordTarget). */
  | { type: "password"; ruleIndex: number };

/** Bots need no stickiness in an A/B split: one fixed key sends every bot of a code to the same variant. */
export const BOT_DAY_KEY = "bot";

function queryOf(url: string): URLSearchParams {
  const q = url.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = url.indexOf("#", q);
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash));
}

export type RuledLink = Link & { campaignRules: NonNullable<Link["campaignRules"]> };

// Written only by setCodeCampaign (campaigns/service.ts), after its schema: the store keeps them opaque.
const settingsOf = (link: RuledLink) => link.campaignRules as LinkCampaignRules;

/** The source and medium a code's scans are counted under (its UTM template's), if it appends any. */
export function utmCounted(link: RuledLink): { source: string; medium: string } | undefined {
  const utm = settingsOf(link).utm;
  return utm ? { source: utm.source, medium: utm.medium } : undefined;
}

/**
 * Whether the code's people's scans are admitted before their answer: a cap or scan-count thresholds. Only
 * those are counted at the redirect (scans/record.ts, with the same guard documents as the consumer); every
 * other code's rules answer first and its arrival carries their answer to the consumer (answeredOf).
 */
export function admitsBeforeAnswer(link: RuledLink): boolean {
  const settings = settingsOf(link);
  return settings.humanScanCap !== undefined || !!settings.scanCounters?.length;
}

/** What a ruled arrival carries of the answer (scans/arrival.ts): the rule and variant that answered, or the reason the code was closed. */
export function answeredOf(link: RuledLink, answer: CampaignAnswer, at: Date): { rule?: ScanRule; endedReason?: string; utm?: { source: string; medium: string } } {
  // A closed code's scan (its fallback URL or the ended page) is counted apart with the reason, under no rule or UTM pair.
  const state = codeState(settingsOf(link), at, 0);
  if (state) return { endedReason: state };
  const utm = utmCounted(link);
  const withUtm = utm ? { utm } : {};
  if (answer.type === "busy") return withUtm;
  const variant = answer.type === "redirect" ? answer.variant : undefined;
  return { rule: { index: answer.ruleIndex, ...(variant === undefined ? {} : { variant }) }, ...withUtm };
}

function counterOf(link: RuledLink): CapCounter | undefined {
  const settings = settingsOf(link);
  if (settings.humanScanCap === undefined || !settings.capCounter) return undefined;
  return { merchantId: link.merchantId, codeId: link.codeId, cap: settings.humanScanCap, ...settings.capCounter };
}

/**
 * What recording a scan of this code must respect (scans/record.ts ScanGate): a code closed by its
 * schedule records people's scans as "ended"; a capped code gives each person's scan an allowance, or
 * records it as "ended" (capped) when none is left. Undefined: nothing (no schedule or cap in force).
 */
export function campaignGate(link: RuledLink, at: Date, spends = true): ScanGate | undefined {
  const state = codeState(settingsOf(link), at, 0);
  if (state === "not-started" || state === "ended") return { closed: state };
  const counter = counterOf(link);
  const thresholds = thresholdsOf(link);
  if (!counter && !thresholds.length) return undefined;
  // A password page's view takes no allowance: only the right password's pass-through spends (passThrough).
  if (!spends) return { spends: false, ...(counter ? { reached: () => instanceCaps.reached(counter) } : {}) };
  return {
    ...(counter ? { allowance: () => instanceCaps.take(counter), reached: () => instanceCaps.reached(counter) } : {}),
    ...(thresholds.length ? { thresholds: scanCountGate(thresholds) } : {}),
  };
}

/** The counters of the code's scan-count thresholds (docs/campaign-rules.md, "Scan-count conditions"). */
function thresholdsOf(link: RuledLink): CapCounter[] {
  const counters = settingsOf(link).scanCounters;
  return counters?.length ? thresholdCounters(link.merchantId, link.codeId, counters) : [];
}

/**
 * The representative count of people's scans before this one, for the rules: what recording found
 * (scans/record.ts countGated). A person's scan recorded without the gate (it raced the change that added
 * the thresholds, on an instance that knew the code without them) takes its allowances now, alone, and
 * spends them at once (its scan is recorded already). "busy" when the count is not known for a person.
 */
async function scanCountOf(link: RuledLink, outcome: ScanOutcome | undefined, gated: boolean, at: Date): Promise<number | "busy"> {
  const counters = thresholdsOf(link);
  if (!counters.length) return 0;
  const gate = scanCountGate(counters);
  if (!gated && outcome?.counted) {
    const got = await gate.take();
    if (got === "cap-busy") return "busy";
    return (await spendAlone(got.allowances, at)) ? got.scanCount : "busy";
  }
  if (outcome === undefined) return "busy";
  return outcome.scanCount ?? gate.known();
}

/**
 * The rule choice of one scan, made while it is recorded (scans/record.ts chooseRule: so the rollups and
 * the stream count the rule the answer follows) and kept for the answer, which then evaluates nothing again.
 */
export class RuleChoice {
  private evaluation: Promise<Evaluation> | undefined;
  constructor(
    private readonly link: RuledLink,
    private readonly scan: CampaignScan,
  ) {}

  /** For scans/record.ts: the rule (null: the destination) and variant that answer this scan, given the people's scans before it. */
  readonly choose = async (scanCount: number): Promise<ScanRule> => {
    const { ruleIndex, variant } = await (this.evaluation ??= evaluateScan(this.link, this.scan, scanCount));
    return { index: ruleIndex, ...(variant === undefined ? {} : { variant }) };
  };

  /** The evaluation made while recording, if the scan was recorded with one. */
  made(): Promise<Evaluation> | undefined {
    return this.evaluation;
  }
}

/**
 * Where a capped code's scan stands: "open" (it goes on to the rules: a person admitted with an allowance,
 * or a bot or a repeat while the cap is not known to be reached), "capped", or "busy": no allowance came
 * within the bounded wait, or the scan's write outcome is unknown (a timed-out write), so the scan is
 * neither admitted nor refused for good and the answer is a page that tries again (a repeat then, if the
 * write did land). A scan recorded without the gate (it raced the change that added the cap, on an
 * instance that knew the code without one) takes an allowance now, alone.
 */
/** Spends allowances outside a scan's batch (a scan recorded without the gate); false when a create failed (logged). */
async function spendAlone(allowances: ScanAllowance[], at: Date): Promise<boolean> {
  const created = await Promise.allSettled(allowances.map((a) => a.spent.create(spentData(at)).finally(() => a.release(true))));
  const failed = created.find((c): c is PromiseRejectedResult => c.status === "rejected");
  if (failed) logWarn("campaign.allowance_not_spent", "an allowance of a scan recorded without its gate was not spent", { error: String(failed.reason) });
  return !failed;
}

async function capVerdict(counter: CapCounter, outcome: ScanOutcome | undefined, gated: boolean, at: Date, spends: boolean): Promise<"open" | "capped" | "busy"> {
  if (!gated && outcome?.counted) {
    const allowance = await instanceCaps.take(counter);
    if (typeof allowance === "string") return allowance === "capped" ? "capped" : "busy";
    // A failed create answers the page that tries again, never the 404 of a failed redirect; the allowance is
    // not handed out again (the create may have landed: the lease's settle counts what exists).
    return (await spendAlone([allowance], at)) ? "open" : "busy";
  }
  if (outcome === undefined) return "busy";
  // A counted scan is a person let in today: their first scan spent, a later one follows a first that did (a
  // reload after a write whose outcome was unknown included). Only a password page's view, which spent
  // nothing, is closed out once the cap is known reached.
  if (outcome.counted) return spends || !instanceCaps.reached(counter) ? "open" : "capped";
  if (outcome.reason === "cap-busy") return "busy";
  return outcome.reason !== "capped" && !instanceCaps.reached(counter) ? "open" : "capped";
}

export async function campaignAnswer(
  link: RuledLink,
  scan: CampaignScan,
  recorded: { outcome: ScanOutcome | undefined; gated: boolean; choice?: RuleChoice; spends?: boolean } = { outcome: undefined, gated: false },
): Promise<CampaignAnswer> {
  const settings = settingsOf(link);
  const withUtm = (url: string) => (settings.utm ? applyUtm(url, settings.utm) : url);
  const target = { codeId: link.codeId, destinationUrl: link.destinationUrl, fallbackUrl: settings.fallbackUrl };
  const answer = (action: Destination, ruleIndex: number | null, state: CodeState | null, variant?: number): CampaignAnswer => {
    // The password page names nothing of where the right password leads.
    if (action.type === "password") return ruleIndex === null || !settings.passwordHash ? { type: "ended", ruleIndex, state } : { type: "password", ruleIndex };
    if (action.type === "ended") return { type: "ended", ruleIndex, state };
    return { type: "redirect", url: withUtm(action.url), ruleIndex, state: null, ...(variant === undefined ? {} : { variant }) };
  };
  const state = codeState(settings, scan.at, 0);
  if (state) return answer(closedAnswer(target), null, state);
  const counter = counterOf(link);
  const verdict = counter ? await capVerdict(counter, recorded.outcome, recorded.gated, scan.at, recorded.spends !== false) : "open";
  if (verdict === "busy" || (recorded.outcome?.counted === false && recorded.outcome.reason === "cap-busy")) return { type: "busy" };
  if (verdict === "capped") return answer(closedAnswer(target), null, "capped");
  if (!settings.rules.length) return answer({ type: "redirect", url: link.destinationUrl }, null, null);
  // The rule the scan was counted under, when it was recorded with its choice; else chosen now.
  const made = recorded.outcome !== undefined ? recorded.choice?.made() : undefined;
  let result: Evaluation;
  if (made) result = await made;
  else {
    const scanCount = await scanCountOf(link, recorded.outcome, recorded.gated, scan.at);
    if (scanCount === "busy") return { type: "busy" };
    result = await evaluateScan(link, scan, scanCount);
  }
  return answer(result.action, result.ruleIndex, null, result.variant);
}

/** The rules' verdict for this scan (device, place, language, time, query, bot), reading nothing. */
async function evaluateScan(link: RuledLink, scan: CampaignScan, scanCount: number): Promise<Evaluation> {
  const settings = settingsOf(link);
  const target = { codeId: link.codeId, destinationUrl: link.destinationUrl, fallbackUrl: settings.fallbackUrl };
  const ua = typeof scan.headers["user-agent"] === "string" ? scan.headers["user-agent"] : undefined;
  const { device, recognised } = agentOf(ua);
  const isBot = botReason(scan.method, scan.headers) !== null;
  // The day key is the visitor hash the scan's record uses (the local day's secret): computed only for a split.
  const needsKey = settings.rules.some((r) => r.then.type === "split");
  const scannerDayKey = !needsKey ? "" : isBot ? BOT_DAY_KEY : await visitorHash(localMoment(scan.at, scan.timeZone).day, link.codeId, visitorKey(scan.address, ua, recognised));
  const acceptLanguage = scan.headers["accept-language"];
  return evaluate(
    settings.rules,
    {
      device: device.device,
      os: device.os,
      browser: device.browser,
      country: scan.place?.country ?? UNKNOWN,
      region: scan.place?.state ?? UNKNOWN,
      acceptLanguage: Array.isArray(acceptLanguage) ? acceptLanguage.join(",") : acceptLanguage,
      now: scan.at,
      timeZone: scan.timeZone,
      scanCount,
      query: queryOf(scan.url),
      isBot,
      scannerDayKey,
    },
    target,
  );
}

/**
 * Whether this scan of a capped code is answered by the password page, its rules chosen before it is
 * recorded (a view of the page then spends nothing). A code with scan-count thresholds chooses its rule by
 * the count, which its people's scans take allowances to know: never answered here.
 */
export async function answersWithPasswordPage(link: RuledLink, choice: RuleChoice): Promise<boolean> {
  const settings = settingsOf(link);
  if (!settings.passwordHash || settings.scanCounters?.length) return false;
  await choice.choose(0);
  return (await choice.made())?.action.type === "password";
}

/**
 * The right password's pass-through on a capped code: where the person's allowance is spent (viewing the page
 * spent none), once per visitor and local day (store/scans.ts spendPass: a pass guard created in one batch
 * with the allowance's `capSpent`). "capped" or "busy" (no allowance in time, or a failed spend) when the
 * person is not let through now; the form's answer then sends them back to the code.
 */
export async function passThrough(link: RuledLink, scan: CampaignScan): Promise<"open" | "capped" | "busy"> {
  const counter = counterOf(link);
  if (!counter) return "open";
  const ua = typeof scan.headers["user-agent"] === "string" ? scan.headers["user-agent"] : undefined;
  const { day } = localMoment(scan.at, scan.timeZone);
  const visitor = await visitorHash(day, link.codeId, visitorKey(scan.address, ua, agentOf(ua).recognised));
  const guard = passGuardId(visitor, day, link.codeId);
  if (await guardExists(link.merchantId, guard)) return "open";
  const allowance = await instanceCaps.take(counter);
  if (typeof allowance === "string") return allowance === "capped" ? "capped" : "busy";
  let used = true;
  try {
    used = (await spendPass(link.merchantId, guard, allowance.spent, scan.at, passGuardExpiry(day))) === "spent";
    return "open";
  } catch (error) {
    used = !scanNotWritten(error);
    logWarn("campaign.pass_not_spent", "a password pass-through's allowance was not spent", { error: String(error) });
    return "busy";
  } finally {
    allowance.release(used);
  }
}

/**
 * Where the right password sends the person who posted the password page of this code: the URL of the
 * `password` action the rules give this request now (with the UTM parameters), the rule (and A/B arm) it
 * came from, for the click id, and the hash to check the password against. Undefined when the code is closed or its rules no longer ask for a password here.
 */
export async function passwordTarget(link: RuledLink, scan: CampaignScan): Promise<{ url: string; hash: PasswordHash; rule: ScanRule } | undefined> {
  const settings = settingsOf(link);
  if (codeState(settings, scan.at, 0) || !settings.passwordHash || !settings.rules.length) return undefined;
  // A cap this instance found reached closes the code for the form too (the POST takes no allowance).
  const counter = counterOf(link);
  if (counter && instanceCaps.reached(counter)) return undefined;
  // The count as this instance knows it (the POST records nothing, so it takes no allowance).
  const counters = thresholdsOf(link);
  const { action, ruleIndex, variant } = await evaluateScan(link, scan, counters.length ? scanCountGate(counters).known() : 0);
  if (action.type !== "password") return undefined;
  const rule = { index: ruleIndex, ...(variant === undefined ? {} : { variant }) };
  return { url: settings.utm ? applyUtm(action.url, settings.utm) : action.url, hash: settings.passwordHash, rule };
}
