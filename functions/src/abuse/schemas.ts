// The abuse report's request and answer: one source for the public route, the report page and the console.
import { z } from "zod";
import { text } from "../core/validation";
import { REPORT_REASONS } from "../store/abuse";

export const REPORT_DETAILS_MAX = 2000;

export const ReportSchema = z
  .object({
    code: z.string().trim().min(1).max(2048).describe("The address the code or product link opened (https://<host>/qr/<id>, https://<host>/01/<GTIN>..., a compressed GS1 URI) or a code's 12-character scan id"),
    reason: z.enum(REPORT_REASONS).describe("What is wrong with where the code leads"),
    details: text(REPORT_DETAILS_MAX).optional().describe("What you saw, in your words"),
    contact: z.email().max(254).optional().describe("An address for the operators' questions (optional; kept with the report only)"),
  })
  .strict()
  .meta({ title: "AbuseReport" });

export const ReportAnswerSchema = z.object({ reportId: z.string(), status: z.literal("open") }).strict().meta({ title: "AbuseReportReceived" });

export const ReportListSchema = z.object({ status: z.enum(["open", "takenDown", "dismissed"]).default("open") }).strict();
/** The grouped queue's page: a status, and the cursor the previous page gave (a subject). */
export const ReportGroupListSchema = z
  .object({ status: z.enum(["open", "takenDown", "dismissed"]).default("open"), cursor: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, "Must be a cursor this list gave").optional() })
  .strict();
export const SubjectActionParams = z.object({ subject: z.string().regex(/^([0-9A-Za-z]{12}|gs1_[A-Za-z0-9_-]{32})$/, "Must be a code's scan id or gs1_<itemId>"), action: z.enum(["takedown", "dismiss"]) }).strict();
export const ReportActionParams = z.object({ reportId: z.string().regex(/^rep_[0-9a-f]{20}$/, "Must be a report id"), action: z.enum(["takedown", "dismiss"]) }).strict();
