// Abuse moderation in the console, for users with the `admin` custom claim: the report queue, and a
// decision on each report (take its code down at once, or dismiss it). The same domain functions as the
// admin CLI (scripts/admin.ts).
import { consoleRoute, routeTable } from "./route";
import { ReportDecidedSchema, ReportGroupsSchema, ReportsSchema, SubjectDecidedSchema } from "./schemas";
import { ReportActionParams, ReportGroupListSchema, ReportListSchema, SubjectActionParams } from "../abuse/schemas";
import { publicReport, reportsIn } from "../abuse/service";
import { decideOnReport, decideOnSubject, reportGroups } from "../moderation/service";

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
    method: "GET",
    path: "/api/console/report-groups",
    summary: "Abuse reports grouped by the code or GS1 item reported, a page at a time (admins)",
    query: ReportGroupListSchema,
    response: ReportGroupsSchema,
    handle: ({ query }) => reportGroups(query.status, query.cursor),
  }),
  consoleRoute({
    ...admin,
    method: "POST",
    path: "/api/console/report-groups/:subject/:action",
    summary: "Take a reported code or GS1 item down, or dismiss all its open reports (admins)",
    limit: "consoleWrites",
    params: SubjectActionParams,
    response: SubjectDecidedSchema,
    handle: ({ user, params }) => decideOnSubject(params.subject, params.action, user.uid),
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
