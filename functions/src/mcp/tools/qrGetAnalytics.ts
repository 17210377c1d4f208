import { z } from "zod";
import { fields } from "../../codes/fields";
import { codeAnalytics, SCAN_LIST_LIMIT } from "../../scans/analytics";
import { analyticsFiguresShape, ruleFiguresOutput, scanOutput, consoleUrl, consoleUrlField, count, daysField, fieldSelection, fitAnalytics, pickFields, SELECTABLE_FIGURES, selectableShape } from "../outputs";
import { defineTool, READ_ONLY } from "../tool";
import { UI_RESOURCES } from "../ui/resources";


const SELECTABLE = [...SELECTABLE_FIGURES, "byRule", "scans"] as const;

interface Figures {
  who: string;
  from: string;
  to: string;
  timeZone: string;
  totalScans?: number;
  uniqueScanners?: number;
  byDay?: readonly { date: string; scans: number }[];
  /** byDay was cut: its busiest day would not be the window's. */
  truncated?: boolean;
}

/** "<who>: N scans by M unique scanners from A to B (zone); busiest day …", with what a field selection returned. */
export function figuresSentence(r: Figures): string {
  const scans = r.totalScans === undefined ? "" : `: ${count(r.totalScans, "scan")}`;
  const people = r.uniqueScanners === undefined ? "" : ` by ${count(r.uniqueScanners, "unique scanner")}`;
  return `${r.who}${scans}${people} from ${r.from} to ${r.to} (${r.timeZone})${r.byDay && !r.truncated ? busiestDay(r.byDay) : ""}`;
}

/** What was cut to stay within about 6,000 tokens, for summaries. */
export function cutSentence(r: { truncated?: boolean; scansTruncated?: boolean; byDay?: unknown[] }): string {
  if (r.truncated) return ` byDay lists the newest ${r.byDay?.length ?? 0} days only (cut to stay within about 6,000 tokens); ask for fewer days or fields.`;
  return "";
}

/** Busiest day of a window, for summaries. */
export function busiestDay(byDay: readonly { date: string; scans: number }[]): string {
  const best = byDay.reduce<{ date: string; scans: number } | undefined>((a, d) => (d.scans > (a?.scans ?? 0) ? d : a), undefined);
  return best ? `; busiest day ${best.date} (${count(best.scans, "scan")})` : "";
}

export const qrGetAnalyticsTool = defineTool({
  name: "svc.qr.get_analytics",
  title: "Get a code's scan analytics",
  description: `Scan analytics of one code, with its scans newest first (at most ${SCAN_LIST_LIMIT}; scansTruncated: cut to fit), dynamic-link and in-app scans alike.`,
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z
    .object({
      codeId: fields.codeId.optional(),
      uniqueQRCodeID: fields.uniqueQRCodeID.optional(),
      days: daysField.optional(),
      fields: fieldSelection(SELECTABLE),
    })
    .strict(),
  output: z.object({
    codeId: z.string(),
    uniqueQRCodeID: z.string(),
    dynamic: z.boolean(),
    ...selectableShape(analyticsFiguresShape, SELECTABLE_FIGURES),
    byRule: ruleFiguresOutput.optional(),
    scans: z.array(scanOutput).optional(),
    scansListed: z.number().int().optional(),
    scansTruncated: z.boolean().optional(),
    consoleUrl: consoleUrlField,
  }),
  ui: UI_RESOURCES.scans.uri,
  async handler({ codeId, uniqueQRCodeID, days, fields: selected }, { caller }) {
    const analytics = await codeAnalytics(caller.merchantId, { codeId, uniqueQRCodeID }, days ?? 30);
    // Per-rule figures are byRule's; each scan's rule is the console's CSV column, not in this schema.
    const scans = analytics.scans.map(({ rule: _rule, variant: _variant, ...scan }) => scan);
    const result = pickFields(
      { ...analytics, scans, consoleUrl: consoleUrl(`code/${analytics.codeId}?days=${analytics.days}`) },
      SELECTABLE,
      selected,
      { scansListed: "scans", scansTruncated: "scans" },
    );
    return fitAnalytics(result);
  },
  summarize: (r) => `${figuresSentence({ ...r, who: `Code ${r.codeId}` })}${r.botScans ? `; ${count(r.botScans.total, "bot scan")} counted apart` : ""}.${cutSentence(r)}`,
});
