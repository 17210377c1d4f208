// Abuse moderation in the console, for users with the `admin` custom claim: the report queue, and a
// decision on each report (take its code down at once, or dismiss it). The same domain functions as the
// admin CLI (scripts/admin.ts).
import { consoleRoute, routeTable } from "./route";
import { ReportDecidedSchema, ReportsSchema } from "./schemas";
import { ReportActionParams, ReportListSchema } from "../abuse/schemas";
import { decideOnReport, publicReport, reportsIn } from "../abuse/service";

const admin = { credential: "admin" } as const;

export const abuseRoutes = routeTable(
  consoleRoute({
    ...admin,
    method: "GET",
    path: "/api/console/reports",
    summary: "Abuse reports, newest first (admins)",
    query: ReportListSchema,
    response: ReportsSchema,
    handle: async ({ query }) => ({ reports: (await reportsIn(query.status)).map(publicReport) }),
  }),
  consoleRoute({
    ...admin,
    method: "POST",
    path: "/api/console/reports/:reportId/:action",
    summary: "Take a reported code down, or dismiss the report (admins)",
    limit: "consoleWrites",
    params: ReportActionParams,
    response: ReportDecidedSchema,
    handle: ({ user, params }) => decideOnReport(params.reportId, params.action, user.uid),
  }),
);
