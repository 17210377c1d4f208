import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool";
import { ConversionFiguresSchema, conversionFigures, WorkspaceConversionQuerySchema, type ConversionFiguresAnswer } from "../../attribution/statsFigures";

/** Days of byDay a result keeps (the newest): a year of days would pass the result's token budget. */
const BY_DAY_MAX = 31;

const revenueText = (revenue: Record<string, number>) => Object.entries(revenue).map(([c, v]) => `${v} ${c}`).join(" + ") || "no revenue";

export const conversionFiguresTool = defineTool({
  name: "svc.conversion.figures",
  title: "Get conversion figures and A/B results",
  description:
    "Leads, sales and revenue (per currency, minor units, net of refunds) of the workspace, a code (codeId) or a campaign, with scans and people, by day, rule and A/B arm; " +
    "for each A/B split every arm's conversion rate with a 95% Wilson interval and a verdict (the test is read only once each arm has `horizon` people).",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: WorkspaceConversionQuerySchema.partial().strict(),
  output: ConversionFiguresSchema.extend({ byDayTruncated: z.boolean().optional().describe(`byDay keeps the newest ${BY_DAY_MAX} days`) }),
  async handler(input, { caller }): Promise<ConversionFiguresAnswer & { byDayTruncated?: boolean }> {
    const query = WorkspaceConversionQuerySchema.parse(input);
    const figures = await conversionFigures(caller.merchantId, query);
    return figures.byDay.length > BY_DAY_MAX ? { ...figures, byDay: figures.byDay.slice(-BY_DAY_MAX), byDayTruncated: true } : figures;
  },
  summarize: (r) =>
    `${r.codeId ? `Code ${r.codeId}` : r.campaign ? `Campaign ${r.campaign}` : "Workspace"} from ${r.from} to ${r.to}: ${r.total.people} people, ${r.total.leads} leads, ${r.total.sales} sales, ${revenueText(r.total.revenue)}.` +
    r.abTests.map((t) => ` ${t.name ?? "A/B split"}: ${t.verdict}`).join(""),
});
