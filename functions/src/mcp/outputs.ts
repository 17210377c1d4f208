// Zod schemas of what tools return, shared by the tools that return the same things. tools/list publishes
// them as `outputSchema`; each handler's return type is checked against them at compile time, and the
// tests validate every result against the published JSON Schema.
import { z } from "zod";
import { BOOST_FRAMES, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";
import { EYE_STYLES, MODULE_STYLES } from "../codes/fields";
import { getConfig } from "../core/config";

export const isoTime = z.string().describe("ISO 8601 time");
const day = z.string().describe("Local calendar day, YYYY-MM-DD");
export const draftStatus = z.enum(["draft", "published"]).describe("draft until a person publishes it in the console");

export const designOutput = z.object({
  foreground: z.string(),
  background: z.string(),
  moduleStyle: z.enum(MODULE_STYLES),
  eyeStyle: z.enum(EYE_STYLES),
  quietZone: z.number(),
  preset: z.string().nullable(),
  logo: z.object({ mediaType: z.literal("image/png"), width: z.number(), height: z.number(), sha256: z.string() }).nullable(),
});

export const codeOutputShape = {
  codeId: z.string(),
  uniqueQRCodeID: z.string(),
  title: z.string(),
  destinationUrl: z.string(),
  campaign: z.string().nullable(),
  tags: z.array(z.string()),
  dynamic: z.boolean(),
  dynamicLink: z.string().nullable().describe("The tracked, re-pointable link a dynamic code encodes; null for a static code"),
  template: z.enum(TEMPLATES).nullable(),
  scanBeepSound: z.enum(SCAN_BEEP_SOUNDS).nullable(),
  boostFrame: z.enum(BOOST_FRAMES).nullable(),
  design: designOutput.nullable().describe("Brand design; null for the plain black-on-white code"),
  qrImageUrl: z.string().describe("The code as a PNG"),
  qrSvgUrl: z.string().describe("The same code as print-ready SVG"),
  qrPdfUrl: z.string().describe("The same code as a vector PDF for print; add &size=<mm> or &distance=<m>"),
  status: draftStatus,
  source: z.enum(["tool", "bulk", "sandbox-claim", "console"]),
  createdAt: isoTime,
  updatedAt: isoTime,
};
export const codeOutput = z.object(codeOutputShape);

export const menuItemOutput = z.object({ itemId: z.string(), name: z.string(), description: z.string().nullable(), price: z.number().nullable() });

export const menuOutputShape = {
  menuId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  locationId: z.string().nullable(),
  status: draftStatus,
  sections: z.array(z.object({ name: z.string(), items: z.array(menuItemOutput) })),
  itemCount: z.number().int(),
  createdAt: isoTime,
  updatedAt: isoTime,
};
export const menuOutput = z.object(menuOutputShape);

const ranked = <K extends string>(key: K) => z.array(z.object({ [key]: z.string(), scans: z.number().int() } as { [P in K]: z.ZodString } & { scans: z.ZodNumber }));

/** The figures both analytics tools return (scans/analytics.ts). */
export const analyticsFiguresShape = {
  days: z.number().int(),
  from: day,
  to: day,
  totalScans: z.number().int().describe("People's scans in the window (bots counted apart)"),
  byDay: z.array(z.object({ date: day, scans: z.number().int(), uniqueScanners: z.number().int() })).describe("Every local day of the window, zeros included"),
  timeZone: z.string(),
  uniqueScanners: z.number().int(),
  repeatScans: z.number().int(),
  botScans: z.object({ total: z.number().int(), byReason: z.record(z.string(), z.number().int()) }),
  countries: ranked("country"),
  regions: z.array(z.object({ country: z.string(), region: z.string(), scans: z.number().int() })),
  cities: z.array(z.object({ country: z.string(), region: z.string(), city: z.string(), scans: z.number().int() })).optional(),
  devices: ranked("device"),
  operatingSystems: ranked("os"),
  browsers: ranked("browser"),
  hourByWeekday: z.array(z.array(z.number().int())).describe("[weekday][hour]: weekday 0 is Monday, hours local"),
  pending: z.boolean().optional().describe("true when the newest scans (under busy traffic, the last few minutes) are not in the figures yet; a later call has them"),
};

/** The console page where a person looks at (and publishes) what a tool drafted. */
export function consoleUrl(hash: string): string {
  return `${getConfig().appUrl}/console#/${hash}`;
}
export const consoleUrlField = z.string().describe("Console page where a person reviews and publishes it");

/** `n thing(s)` for summaries. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
