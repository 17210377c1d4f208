// What a merchant reads of conversions (docs/attribution-figures.md): a code's or campaign's funnel (scans,
// people, leads, sales, revenue per currency) by day, rule and A/B arm, and for each A/B split its arms'
// rates, intervals and verdict (stats.ts). The counts come from store/conversions.ts; this adds the names
// a shop owner knows (the rule's name, the variant's letter and URL) and the statistics.
import { z } from "zod";
import { AppError } from "../core/errors";
import { ids } from "../core/ids";
import { findCode } from "../store/codes";
import { readConversionFigures, type ConversionFigures } from "../store/conversions";
import { readWorkspaceTimeZone } from "../store/workspaces";
import { localWindow } from "../scans/localTime";
import { DEFAULT_HORIZON, HORIZON_MAX, HORIZON_MIN, splitResult } from "./stats";

export const FIGURES_DAYS_MAX = 366;

export const ConversionQuerySchema = z
  .object({
    days: z.coerce.number().int("days is a whole number").min(1, "days is at least 1").max(FIGURES_DAYS_MAX, `days is at most ${FIGURES_DAYS_MAX}`).default(30).describe("Days ending today, in the workspace's time zone"),
    horizon: z.coerce
      .number()
      .int("horizon is a whole number")
      .min(HORIZON_MIN, `horizon is at least ${HORIZON_MIN}`)
      .max(HORIZON_MAX, `horizon is at most ${HORIZON_MAX}`)
      .default(DEFAULT_HORIZON)
      .describe("People per arm before an A/B test is read; fix it before the split starts (docs/attribution-figures.md)"),
    metric: z.enum(["sales", "leads"], { error: 'metric is "sales" or "leads"' }).default("sales").describe("What an A/B arm's conversion rate counts"),
  })
  .strict();
export type ConversionQuery = z.infer<typeof ConversionQuerySchema>;

export const WorkspaceConversionQuerySchema = ConversionQuerySchema.extend({
  codeId: ids.codeId.optional(),
  campaign: z.string().min(1).max(100).optional().describe("A campaign's name, as codes carry it"),
}).strict();

const figures = {
  scans: z.int(),
  people: z.int(),
  leads: z.int(),
  sales: z.int(),
  revenue: z.record(z.string(), z.int()).describe("Per ISO 4217 currency, in minor units (cents; yen), net of refunds: never summed across currencies"),
};
const Rate = z.object({ successes: z.int(), trials: z.int(), rate: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() });

export const ConversionFiguresSchema = z
  .object({
    codeId: z.string().nullable(),
    campaign: z.string().nullable(),
    from: z.string(),
    to: z.string(),
    total: z.object(figures),
    byDay: z.array(z.object({ day: z.string(), ...figures })),
    byRule: z.array(z.object({ rule: z.int().nullable().describe("The rule's position; null: the destination (no rule answered)"), name: z.string().nullable(), ...figures })),
    byArm: z.array(z.object({ arm: z.string(), rule: z.int().nullable(), variant: z.int().nullable(), label: z.string(), url: z.string().nullable(), ...figures })),
    abTests: z
      .array(
        z.object({
          rule: z.int().nullable(),
          name: z.string().nullable(),
          metric: z.enum(["sales", "leads"]),
          confidence: z.number(),
          horizon: z.int(),
          alpha: z.number(),
          atHorizon: z.boolean(),
          verdict: z.string(),
          arms: z.array(Rate.extend({ arm: z.string(), label: z.string(), z: z.number().nullable(), pValue: z.number().nullable(), state: z.enum(["control", "collecting", "no_difference", "better", "worse"]) })),
        }),
      )
      .describe("One per A/B split with at least two arms seen: each arm's rate with a 95% Wilson interval, and the verdict"),
  })
  .meta({ title: "ConversionFigures" });
export type ConversionFiguresAnswer = z.infer<typeof ConversionFiguresSchema>;

interface NamedRule {
  name?: string;
  then?: { type?: string; variants?: Array<{ url?: string }> };
}

const LETTERS = "ABCD";
const plain = (f: ConversionFigures) => ({ scans: f.scans, people: f.people, leads: f.leads, sales: f.sales, revenue: { ...f.revenue } });

/** `1.0` is rule 1's first variant; anything else is an arm the current rules cannot name. */
function armOf(arm: string, rules: NamedRule[]): { rule: number | null; variant: number | null; label: string; url: string | null } {
  const match = /^(\d{1,2})\.(\d)$/.exec(arm);
  if (!match) return { rule: null, variant: null, label: arm, url: null };
  const rule = Number(match[1]);
  const variant = Number(match[2]);
  const written = rules[rule]?.then;
  return { rule, variant, label: `Variant ${LETTERS[variant] ?? String(variant + 1)}`, url: written?.type === "split" ? (written.variants?.[variant]?.url ?? null) : null };
}

export async function conversionFigures(merchantId: string, q: ConversionQuery & { codeId?: string; campaign?: string }, now = new Date()): Promise<ConversionFiguresAnswer> {
  const [timeZone, code] = await Promise.all([readWorkspaceTimeZone(merchantId), q.codeId ? findCode(merchantId, { codeId: q.codeId }) : undefined]);
  if (q.codeId && !code) throw new AppError("NOT_FOUND", `No code ${q.codeId} in this workspace`);
  const window = localWindow(q.days, timeZone, now);
  const [from, to] = [window[0], window[window.length - 1]];
  const read = await readConversionFigures(merchantId, { ...(q.codeId ? { codeId: q.codeId } : {}), ...(q.campaign ? { campaignId: q.campaign } : {}), from, to });
  const rules = ((code?.campaignRules as { rules?: NamedRule[] } | undefined)?.rules ?? []) as NamedRule[];
  const byArm = read.byArm.map((a) => ({ arm: a.arm, ...armOf(a.arm, rules), ...plain(a) })).sort((a, b) => a.arm.localeCompare(b.arm));
  const splits = new Map<number | null, typeof byArm>();
  for (const a of byArm) splits.set(a.rule, [...(splits.get(a.rule) ?? []), a]);
  const abTests = [...splits]
    .filter(([, arms]) => arms.length >= 2)
    .map(([rule, arms]) => ({
      rule,
      name: rule === null ? null : (rules[rule]?.name ?? null),
      metric: q.metric,
      ...splitResult(
        arms.map((a) => ({ arm: a.arm, label: a.label, successes: q.metric === "sales" ? a.sales : a.leads, trials: a.people })),
        q.horizon,
      ),
    }));
  return {
    codeId: q.codeId ?? null,
    campaign: q.campaign ?? null,
    from,
    to,
    total: plain(read.total),
    byDay: read.byDay.map((d) => ({ day: d.day, ...plain(d) })),
    byRule: read.byRule.map((r) => {
      const rule = r.ruleId === null || !/^\d{1,2}$/.test(r.ruleId) ? null : Number(r.ruleId);
      return { rule, name: rule === null ? null : (rules[rule]?.name ?? null), ...plain(r) };
    }),
    byArm,
    abTests,
  };
}
