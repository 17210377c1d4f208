// Setting a dynamic code's campaign rules (issue 38, docs/campaign-rules.md): the one domain function every
// surface calls (REST bulk/campaignRoutes.ts, the MCP tool svc.qr.set_rules). The settings are validated by
// the zod schemas of rules.ts; refused settings change nothing. The code keeps them as written (what
// callers read back); its link record, in the same transaction, gets them parsed for the evaluator, with
// the UTM template's parameters resolved, so the redirect reads nothing more than the link.
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { formatIssues } from "../core/validation";
import { COLLECTIONS } from "../store/collections";
import { findCodeRecord, setLinkCampaignRules, updateCodeInTransaction, type CodeLookup } from "../store/codes";
import { capOfLinkRules, linkRulesInTransaction, planCap, planThresholds, SCAN_COUNT_THRESHOLDS_MAX, thresholdsOfLinkRules, type ThresholdCounter } from "../store/campaignCaps";
import type { QrCode } from "../codes/model";
import { codeRulesSchema, type CodeRules, type CodeRulesInput } from "./rules";
import { utmTemplatesSchema, type UtmTemplate } from "./utm";
import { hashPassword, type PasswordHash } from "./password";

/**
 * What the link record carries: the parsed settings, the UTM template's parameters (not its name alone),
 * with a cap, which counter holds its allowances (store/campaignCaps.ts), and with a password, its salted
 * scrypt hash (campaigns/password.ts; never the password).
 */
export type LinkCampaignRules = Omit<CodeRules, "password" | "endedPage"> & {
  utm?: Omit<UtmTemplate, "name">;
  capCounter?: { epoch: string; shards: number };
  /** The counters of the scan-count thresholds (store/campaignCaps.ts planThresholds), ascending. */
  scanCounters?: ThresholdCounter[];
  passwordHash?: PasswordHash;
  /** What the ended page shows (redirect/pages.ts), copied at set time: no read on the scan path. */
  brand?: EndedBrand;
};

/**
 * The ended page's branding, copied onto the link when the settings are set: the workspace's name as it
 * was then (a rename shows once the settings are set again, like a UTM template's parameters), the
 * merchant's heading and message, and the code's design colours when it has a design.
 */
export interface EndedBrand {
  name: string;
  heading?: string;
  message?: string;
  foreground?: string;
  background?: string;
}

/** What a surface answers after a change: the code and its settings as written, or null when cleared. */
export interface CodeCampaign {
  codeId: string;
  uniqueQRCodeID: string;
  campaignRules: CodeRulesInput | null;
  updatedAt: string;
}

/**
 * The scan-count thresholds of a code's rules, distinct and ascending: each `min` above 0 and each
 * `max + 1`. A condition `[min, max]` holds for a count c exactly when c >= min and c < max + 1, so it
 * answers the same for every count between two thresholds (docs/campaign-rules.md, "Scan-count conditions").
 */
export function scanCountThresholds(rules: CodeRules["rules"]): number[] {
  const found = new Set<number>();
  for (const { when } of rules) {
    if (!when.scanCount) continue;
    if (when.scanCount.min) found.add(when.scanCount.min);
    if (when.scanCount.max !== undefined) found.add(when.scanCount.max + 1);
  }
  return [...found].sort((a, b) => a - b);
}

/** Settings the service cannot carry out as written: refused, never stored and silently ignored. */
function refuseUnwired(settings: CodeRules): void {
  const issues: { path: string; message: string; code: string }[] = [];
  const thresholds = scanCountThresholds(settings.rules);
  if (thresholds.length > SCAN_COUNT_THRESHOLDS_MAX) {
    issues.push({
      path: "rules",
      message: `scanCount conditions may use at most ${SCAN_COUNT_THRESHOLDS_MAX} distinct thresholds per code (each min above 0, and each max + 1, is a counter every person's scan spends from); these use ${thresholds.length}: ${thresholds.join(", ")}`,
      code: "too_many_thresholds",
    });
  }
  if (settings.password !== undefined && !settings.rules.some((r) => r.then.type === "password")) {
    issues.push({ path: "password", message: 'password is asked for only by a "password" action; add one, or leave password out', code: "unused" });
  }
  if (issues.length) {
    throw new AppError("VALIDATION_FAILED", `Invalid campaign rules: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, { details: { issues } });
  }
}

export function parseCampaignRules(input: unknown): CodeRules {
  const parsed = codeRulesSchema.safeParse(input);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error);
    throw new AppError("VALIDATION_FAILED", `Invalid campaign rules: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`, { details: { issues } });
  }
  refuseUnwired(parsed.data);
  return parsed.data;
}

/** Every URL the settings can send a visitor to (each is checked against the blocklist like a destination). */
export function campaignUrls(settings: CodeRules): string[] {
  const urls = settings.fallbackUrl ? [settings.fallbackUrl] : [];
  for (const { then } of settings.rules) {
    if (then.type === "redirect") urls.push(then.url);
    else if (then.type === "split") urls.push(...then.variants.map((v) => v.url));
    else if (then.type === "password" && then.url) urls.push(then.url);
  }
  return urls;
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/**
 * Parsed settings written back as input (times of day as "HH:MM" again): what the code stores and callers
 * read. Parsing it gives the same settings, so a surface whose schema already parsed them can pass this on.
 */
export function campaignInputOf(settings: CodeRules): CodeRulesInput {
  const rules = settings.rules.map(({ when: { time, ...when }, ...rule }) => ({ ...rule, when: { ...when, ...(time ? { time: { from: hhmm(time.from), to: hhmm(time.to) } } : {}) } }));
  return { ...settings, rules } as CodeRulesInput;
}

/** No rule, no schedule, no fallback: the code behaves as one without rules, and the field is removed. */
const isEmpty = (s: CodeRules) => s.rules.length === 0 && Object.keys(s).length === 1;

/** Plain data for Firestore: no undefined anywhere. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The workspace's UTM template of that name (workspaces/{m}.utmTemplates), or a VALIDATION_FAILED naming what exists. */
function utmTemplateOf(snap: FirebaseFirestore.DocumentSnapshot, name: string): Omit<UtmTemplate, "name"> {
  const stored = utmTemplatesSchema.safeParse(snap.get("utmTemplates") ?? []);
  const templates = stored.success ? stored.data : [];
  const found = templates.find((t) => t.name === name);
  if (!found) {
    throw new AppError("VALIDATION_FAILED", `Invalid campaign rules: utmTemplate: this workspace has no UTM template named ${JSON.stringify(name)}`, {
      hint: templates.length ? `Its templates: ${templates.map((t) => t.name).join(", ")}.` : "This workspace has no UTM templates.",
      details: { issues: [{ path: "utmTemplate", message: "unknown UTM template", code: "not_found" }] },
    });
  }
  const { name: _name, ...params } = found;
  return params;
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The ended page's branding for this code now (EndedBrand): what the link carries. */
function endedBrandOf(workspace: FirebaseFirestore.DocumentSnapshot, code: QrCode, settings: CodeRules): EndedBrand {
  const name = workspace.get("name");
  const { foreground, background } = code.design ?? {};
  const colours = typeof foreground === "string" && typeof background === "string" && HEX_COLOUR.test(foreground) && HEX_COLOUR.test(background) ? { foreground, background } : {};
  return { name: typeof name === "string" ? name : "", ...settings.endedPage, ...colours };
}

/**
 * Replaces a dynamic code's campaign settings (rules, schedule, fallback, UTM template) at once: the code and
 * its link change in one transaction, so the very next scan follows. Empty settings (`{rules: []}`) remove
 * them. A static code, a taken-down code and a blocklisted URL are refused, and nothing changes.
 */
export async function setCodeCampaign(merchantId: string, lookup: CodeLookup, input: CodeRulesInput): Promise<CodeCampaign> {
  const settings = parseCampaignRules(input);
  const abuse = require("../abuse/service") as typeof import("../abuse/service");
  for (const url of new Set(campaignUrls(settings))) await abuse.assertDestinationAllowed(url, { merchantId });
  const cleared = isEmpty(settings);
  // The password is never written as given, nor read back: the link keeps its hash (below).
  const { password, ...kept } = settings;
  // The ended page's texts travel inside the link's `brand` (endedBrandOf).
  const { endedPage: _endedPage, ...linkSettings } = kept;
  const written = cleared ? null : plain(campaignInputOf(kept));
  const asksPassword = settings.rules.some((r) => r.then.type === "password");
  const newHash = password !== undefined && asksPassword ? await hashPassword(password) : undefined;
  const after = await db().runTransaction(async (tx) => {
    const { code, stored } = await findCodeRecord(merchantId, lookup, tx);
    const workspace = await tx.get(db().collection(COLLECTIONS.workspaces).doc(merchantId));
    const utm = settings.utmTemplate !== undefined ? utmTemplateOf(workspace, settings.utmTemplate) : undefined;
    const brand = endedBrandOf(workspace, code, settings);
    const before = await linkRulesInTransaction(tx, code.uniqueQRCodeID);
    // A cap's counter: raised under the same epoch, or made anew (store/campaignCaps.ts planCap).
    const capPlan = settings.humanScanCap === undefined ? undefined : await planCap(tx, merchantId, code.codeId, capOfLinkRules(before), settings.humanScanCap);
    // Scan-count thresholds: each a counter; kept ones keep theirs, new ones start from the nearest old one.
    const thresholds = scanCountThresholds(settings.rules);
    const countPlan = thresholds.length ? await planThresholds(tx, merchantId, code.codeId, thresholdsOfLinkRules(before), thresholds) : undefined;
    // A password action asks for the password given now, or the one the code has.
    const passwordHash = asksPassword ? (newHash ?? (before?.passwordHash as PasswordHash | undefined)) : undefined;
    if (asksPassword && !passwordHash) {
      throw new AppError("VALIDATION_FAILED", 'Invalid campaign rules: password: a "password" action needs password (this code has none yet)', {
        details: { issues: [{ path: "password", message: 'a "password" action needs password', code: "required" }] },
      });
    }
    if (!code.dynamic) {
      throw new AppError("VALIDATION_FAILED", "Campaign rules need a dynamic code; this code is static", {
        hint: "A static code encodes its destination itself: create a dynamic code (dynamic: true) to use rules.",
      });
    }
    abuse.assertNotTakenDown(code);
    const next: QrCode = { ...code, updatedAt: new Date() };
    if (written) next.campaignRules = written;
    else delete next.campaignRules;
    updateCodeInTransaction(tx, next, stored);
    capPlan?.write();
    countPlan?.write();
    const capCounter = capPlan ? { capCounter: { epoch: capPlan.epoch, shards: capPlan.shards } } : {};
    setLinkCampaignRules(tx, code.uniqueQRCodeID, cleared ? null : plain<LinkCampaignRules>({ ...linkSettings, brand, ...(utm ? { utm } : {}), ...capCounter, ...(countPlan ? { scanCounters: countPlan.counters } : {}), ...(passwordHash ? { passwordHash } : {}) }), before !== undefined);
    return next;
  });
  await (require("../codes/service") as typeof import("../codes/service")).emitCodeEvents("code.updated", [after]);
  return { codeId: after.codeId, uniqueQRCodeID: after.uniqueQRCodeID, campaignRules: written, updatedAt: after.updatedAt.toISOString() };
}
