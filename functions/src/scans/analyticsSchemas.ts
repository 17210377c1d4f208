// Zod shapes of what the analytics answer (scans/analytics.ts), declared once next to them and used by every
// surface that returns them: the MCP tools' output schemas, the console's routes and REST.
import { z } from "zod";

const day = z.string();

export const rankedOutput = <K extends string>(key: K) => z.array(z.object({ [key]: z.string(), scans: z.number().int() } as { [P in K]: z.ZodString } & { scans: z.ZodNumber }));

/** The figures both analytics tools return (scans/analytics.ts). */
export const analyticsFiguresShape = {
  days: z.number().int(),
  from: day,
  to: day,
  totalScans: z.number().int(),
  byDay: z.array(z.object({ date: day, scans: z.number().int(), uniqueScanners: z.number().int() })),
  timeZone: z.string(),
  uniqueScanners: z.number().int(),
  repeatScans: z.number().int(),
  botScans: z.object({ total: z.number().int(), byReason: z.record(z.string(), z.number().int()) }),
  /** People's scans a closed campaign answered (not-started, ended, capped, cap-busy): never in totalScans. */
  endedScans: z.object({ total: z.number().int(), byReason: z.record(z.string(), z.number().int()) }),
  /** People's scans by the utm_source and utm_medium their code appended. */
  byUtm: z.array(z.object({ source: z.string(), medium: z.string(), scans: z.number().int() })),
  /** People's scans and unique scanners by the host their /qr/ link was opened on (the service's own, or a merchant's domain). */
  byHost: z.array(z.object({ host: z.string(), scans: z.number().int(), uniqueScanners: z.number().int() })),
  countries: rankedOutput("country"),
  regions: z.array(z.object({ country: z.string(), region: z.string(), scans: z.number().int() })),
  cities: z.array(z.object({ country: z.string(), region: z.string(), city: z.string(), scans: z.number().int() })).optional(),
  devices: rankedOutput("device"),
  operatingSystems: rankedOutput("os"),
  browsers: rankedOutput("browser"),
  hourByWeekday: z.array(z.array(z.number().int())),
  /** Figures still catching up: the scan consumer lags, or shards were left for the fold. */
  pending: z.boolean(),
  /** How far the scan consumer is behind the scans it received, in seconds. */
  lagSeconds: z.number().int().min(0),
  /** byDay cut to its newest days (the answer's sentence says so). */
  truncated: z.boolean().optional(),
};

/** One scan of a code's list (scans/analytics.ts codeAnalytics), newest first. */
export const scanOutput = z.object({
  at: z.string(),
  date: z.string(),
  city: z.string(),
  state: z.string(),
  source: z.string(),
  country: z.string(),
  device: z.string(),
  os: z.string(),
  browser: z.string(),
  unique: z.boolean(),
});

/**
 * A scan of the console's list: with the campaign rule that answered it (0 first; null: the code's
 * destination) and its split's variant, absent for codes without rules (the CSV export's columns).
 */
export const ruledScanOutput = scanOutput.extend({ rule: z.number().int().nullable().optional(), variant: z.number().int().nullable().optional() });


/**
 * People's scans of one code per campaign rule that answered them and per A/B variant (scans/analytics.ts
 * codeAnalytics): `rule` is the rule's position when counted (0 first; null: no rule matched, the code's
 * destination), `name` its name in the current rules. Empty for a code without rules.
 */
export const ruleFiguresOutput = z.array(
  z.object({
    rule: z.number().int().nullable(),
    name: z.string().nullable(),
    scans: z.number().int(),
    variants: z.array(z.object({ variant: z.number().int(), url: z.string().nullable(), scans: z.number().int() })),
  }),
);

const rollUp = { scans: z.number().int(), uniqueScanners: z.number().int() };
/** The workspace summary's roll-up of one campaign (scans/analytics.ts scanSummary); null: codes without one. */
export const campaignRollUpShape = { campaign: z.string().nullable(), ...rollUp };
/** The workspace summary's roll-up of one of its top codes. */
export const codeRollUpShape = { codeId: z.string(), ...rollUp };
