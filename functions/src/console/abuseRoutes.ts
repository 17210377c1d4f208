// Abuse moderation in the console, for users with the `admin` custom claim: the report queue, and a
// decision on each report (take its code down at once, or dismiss it). The same domain functions as the
// admin CLI (scripts/admin.ts).
import { endpoint } from "../http/endpoint";
import { ReportActionParams, ReportListSchema } from "../abuse/schemas";
import { decideOnReport, publicReport, reportsIn } from "../abuse/service";

const admin = { internal: true, credential: "admin", ownAddressOnly: true } as const;

export const abuseEndpoints = [
  endpoint({
    ...admin,
    method: "GET",
    path: "/api/console/reports",
    summary: "Abuse reports, newest first (admins)",
    limit: "consoleReads",
    query: ReportListSchema,
    handle: async ({ query }) => ({ reports: (await reportsIn(query.status)).map(publicReport) }),
  }),
  endpoint({
    ...admin,
    method: "POST",
    path: "/api/console/reports/:reportId/:action",
    summary: "Take a reported code down, or dismiss the report (admins)",
    limit: "consoleWrites",
    params: ReportActionParams,
    handle: ({ user, params }) => decideOnReport(params.reportId, params.action, user.uid),
  }),
];
